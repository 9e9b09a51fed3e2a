#!/bin/sh
# bench/nvtx_overhead.sh [BUILD] — what an NVTX range and a flinch.window
# cost the application (issue 12): one nvtxRangePushA + nvtxRangePop pair
# (tests/nvtx/bench.c, real nvtx3 headers) without the bridge, with the
# bridge filtering it out (--nvtx='name!=bench'), and recorded by a running
# `flinch record --nvtx`; one `with flinch.window()` (two marks) recorded
# and with no recorder. Best of BENCH_REPEAT (3) runs; wall time per pair
# and the process's CPU time per pair (user + system, getrusage).
#   BENCH_PAIRS (recorded, default 100000), BENCH_PAIRS_FAST (2000000)
cd "$(dirname "$0")/.." || exit 2
B=${1:-build}
. bench/lib.sh 2>/dev/null || true
N=${BENCH_PAIRS:-100000}
NF=${BENCH_PAIRS_FAST:-2000000}
R=${BENCH_REPEAT:-3}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
inc=
for d in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda $(ls -d /usr/local/cuda-* 2>/dev/null | sort -r -V) /opt/cuda /usr; do
  if [ -n "$d" ] && [ -f "$d/include/nvtx3/nvToolsExt.h" ]; then inc=$d/include; break; fi
done
LIB=$(cd "$B" && pwd -P)/libflinch_nvtx.so
best() {  # best CMD...: the smallest wall (and its cpu) of R runs
  i=0; out=
  while [ $i -lt "$R" ]; do
    r=$("$@" 2>/dev/null | tail -n 1)
    out="$out$r
"
    i=$((i + 1))
  done
  printf '%s' "$out" | grep . | sort -n | head -n 1
}
rec() {
  FLINCH_SIM_SCENARIO=sim/scenarios/demo.scn "$B/flinch" record -q --out "$tmp/t.csv" \
    --nvml-lib "$B/sim/libnvidia-ml.so.1" --no-rapl --interval-ms 10 "$@"
}
row() { printf '| %s | %s | %s | %s |\n' "$1" "$(echo "$2" | cut -d' ' -f1)" "$(echo "$2" | cut -d' ' -f2)" "$3"; }

echo "### NVTX bridge and Python helper: cost per range (bench/nvtx_overhead.sh)"
echo
if [ -z "$inc" ]; then
  echo "no nvtx3 headers found: skipped"
  exit 0
fi
cc -O2 -D_POSIX_C_SOURCE=200809L -I"$inc" tests/nvtx/bench.c -o "$tmp/bench" -ldl || exit 2
echo "headers: $inc/nvtx3; $N pairs recorded, $NF otherwise; best of $R"
echo
echo "| case | wall ns/pair | cpu ns/pair | target |"
echo "|---|---|---|---|"
row "NVTX push/pop, no tool (NVTX_INJECTION64_PATH unset)" "$(env -u NVTX_INJECTION64_PATH "$tmp/bench" "$NF")" "the floor"
row "bridge, range filtered out (name!=bench)" \
  "$(best env NVTX_INJECTION64_PATH="$LIB" FLINCH_NVTX_FILTER='name!=bench' FLINCH_MARKS="$tmp/none" "$tmp/bench" "$NF")" "<= 100"
row "bridge, domain filtered out (domain=other)" \
  "$(best env NVTX_INJECTION64_PATH="$LIB" FLINCH_NVTX_FILTER='domain=other' FLINCH_MARKS="$tmp/none" "$tmp/bench" "$NF")" "<= 100"
row "bridge, no recorder (marks counted undelivered)" \
  "$(best env NVTX_INJECTION64_PATH="$LIB" FLINCH_MARKS="$tmp/none" "$tmp/bench" "$N")" ""
row "bridge, recorded by flinch record --nvtx" "$(best rec --nvtx -- "$tmp/bench" "$N")" "<= 2000"
row "bridge, recorded, SIGPIPE ignored (as in every Python process)" \
  "$(best rec --nvtx -- "$tmp/bench" "$N" ignore-sigpipe)" "<= 2000"
if command -v python3 >/dev/null 2>&1; then
  cat > "$tmp/pybench.py" <<'PY'
import os, sys, time, flinch
n = int(sys.argv[1])
with flinch.window("warm-up"):
    pass
c0 = os.times(); t0 = time.monotonic_ns()
for i in range(n):
    with flinch.window("bench"):
        pass
t1 = time.monotonic_ns(); c1 = os.times()
print("%.1f %.1f" % ((t1 - t0) / n, ((c1.user + c1.system) - (c0.user + c0.system)) * 1e9 / n))
PY
  export PYTHONPATH="$PWD/python"
  row "Python: with flinch.window() (2 marks), no recorder" \
    "$(best env FLINCH_MARKS="$tmp/none" python3 "$tmp/pybench.py" "$N")" "a few us a mark"
  row "Python: with flinch.window() (2 marks), recorded" \
    "$(best rec -- python3 "$tmp/pybench.py" "$N")" "a few us a mark"
fi
echo
echo "Each recorded pair is two marks, each one write() into the FIFO; where SIGPIPE is not ignored the"
echo "bridge blocks it around the write (three more system calls, flinch_mark.h's guard). cpu: the"
echo "application's own user + system time; wall includes waiting for a CPU on a loaded machine."
