#!/bin/sh
# tests/cuda_tsan.sh [SECONDS] — `make soak`'s ThreadSanitizer run of the
# CUDA injection library (not in `make check`: TSan needs a build of its
# own). Builds libflinch_cuda.so, the simulated CUPTI and the two stand-in
# applications with -fsanitize=thread into build-tsan-cuda/, then runs:
# the timeline (tests/fixtures/cuda/timeline.scn) plain, with a fork after
# the injection and with a child injecting first; and cuda_flood at 100 k
# and 1 M kernels/s for SECONDS each (default 10), the lines drained from
# a FIFO. Any ThreadSanitizer report, or an exit status other than 0,
# fails. Prints "cuda_tsan: ok" at the end.
cd "$(dirname "$0")/.." || exit 2
S=${1:-10}
B=build-tsan-cuda
CC=${CC:-cc}
mkdir -p "$B"
F="-std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=thread -Icuda -Invtx -Isrc/trace -Iinclude"
$CC $F -fPIC -shared -fvisibility=hidden -ftls-model=initial-exec -DNVTX_EMIT_SOURCE='"cuda"' \
    cuda/*.c nvtx/nvtx_emit.c nvtx/nvtx_writer.c -o "$B/libflinch_cuda.so" -ldl -lpthread &&
$CC $F -fPIC -shared sim/cupti/sim_cupti.c -o "$B/libcupti.so.13" -lpthread &&
$CC $F tests/helpers/cuda_app.c -o "$B/cuda_app" -ldl -lpthread &&
$CC $F tests/helpers/cuda_flood.c -o "$B/cuda_flood" -ldl -lpthread || { echo "cuda_tsan: build failed"; exit 1; }
T=$(mktemp -d)
trap 'exec 3>&-; kill "$drain" 2>/dev/null; rm -rf "$T"' EXIT
mkfifo "$T/f"
exec 3<>"$T/f"
cat <&3 >/dev/null &
drain=$!
export FLINCH_MARKS="$T/f" CUDA_INJECTION64_PATH="$PWD/$B/libflinch_cuda.so" \
       FLINCH_CUPTI_LIB="$PWD/$B/libcupti.so.13" TSAN_OPTIONS="halt_on_error=0 exitcode=66"
fails=0
run() {
  "$@" >"$T/out" 2>&1; rc=$?
  if [ "$rc" -ne 0 ] || grep -q ThreadSanitizer "$T/out"; then
    echo "cuda_tsan: FAIL (exit $rc): $*"; sed 's/^/    /' "$T/out" | head -60; fails=$((fails + 1))
  else echo "cuda_tsan: clean: $* ($(grep -o 'played=[0-9]* not_recorded=[0-9]*' "$T/out"))"; fi
}
for opt in "" --fork-after --fork-first; do
  run "$B/cuda_app" tests/fixtures/cuda/timeline.scn $opt
done
run "$B/cuda_flood" 100000 "$S"
run "$B/cuda_flood" 1000000 "$S"
[ "$fails" -eq 0 ] && echo "cuda_tsan: ok"
exit $((fails > 0))
