#!/bin/sh
# bench/nvtx_overhead.sh [BUILD] — what an NVTX range and a flinch.window
# cost the application (issue 12): one nvtxRangePushA + nvtxRangePop pair
# (tests/nvtx/bench.c, real nvtx3 headers) without the bridge, with the
# bridge filtering it out (--nvtx='name!=bench'), and recorded by a running
# `flinch record --nvtx` (through the bridge's writer thread, and without
# it: FLINCH_NVTX_THREAD=0, each mark written by the calling thread, as the
# bridge did before); one `with flinch.window()` (two marks) recorded and
# with no recorder. Best of BENCH_REPEAT (3) runs; wall time per pair, the
# calling thread's CPU time and the process's (every thread: the writer
# included) per pair (user + system, getrusage). Recorded runs go in bursts
# of BENCH_BURST pairs 10 ms apart, a rate the recorder keeps up with, and
# the marks that reached the trace are counted.
#   BENCH_PAIRS (recorded, default 100000), BENCH_PAIRS_FAST (2000000),
#   BENCH_BURST (200)
cd "$(dirname "$0")/.." || exit 2
B=${1:-build}
. bench/lib.sh 2>/dev/null || true
N=${BENCH_PAIRS:-100000}
NF=${BENCH_PAIRS_FAST:-2000000}
R=${BENCH_REPEAT:-3}
BURST=${BENCH_BURST:-200}
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
  rm -f "$tmp/t.csv"
  FLINCH_SIM_SCENARIO=sim/scenarios/demo.scn "$B/flinch" record -q --out "$tmp/t.csv" \
    --nvml-lib "$B/sim/libnvidia-ml.so.1" --no-rapl --interval-ms 10 "$@"
}
rec_direct() {  # rec, the bridge without its writer thread
  rm -f "$tmp/t.csv"
  FLINCH_NVTX_THREAD=0 FLINCH_SIM_SCENARIO=sim/scenarios/demo.scn "$B/flinch" record -q --out "$tmp/t.csv" \
    --nvml-lib "$B/sim/libnvidia-ml.so.1" --no-rapl --interval-ms 10 "$@"
}
# row CASE "WALL PROCESS_CPU [THREAD_CPU]" TARGET [MARKS]
row() {
  set -- "$1" "$2" "$3" "${4:--}"
  thr=$(echo "$2" | cut -d' ' -f3)
  printf '| %s | %s | %s | %s | %s | %s |\n' "$1" "$(echo "$2" | cut -d' ' -f1)" "${thr:--}" \
    "$(echo "$2" | cut -d' ' -f2)" "$4" "$3"
}
in_trace() {  # marks named bench in the last recorded trace, and the dropped counts
  awk -F, '$3 == "MARK" && $4 == "\"bench\"" { n++ }
    $3 == "EVENT" && $4 ~ /marks_dropped/ { split($4, a, /[ =]/); d += a[3] }
    END { printf "%d of %d (dropped %d)", n, 2 * N, d }' N="$N" "$tmp/t.csv"
}

echo "### NVTX bridge and Python helper: cost per range (bench/nvtx_overhead.sh)"
echo
if [ -z "$inc" ]; then
  echo "no nvtx3 headers found: skipped"
  exit 0
fi
cc -O2 -D_POSIX_C_SOURCE=200809L -I"$inc" tests/nvtx/bench.c -o "$tmp/bench" -ldl || exit 2
echo "headers: $inc/nvtx3; $N pairs recorded, $NF otherwise; best of $R"
echo
echo "| case | wall ns/pair | calling thread cpu ns/pair | process cpu ns/pair | marks in the trace | target |"
echo "|---|---|---|---|---|---|"
row "NVTX push/pop, no tool (NVTX_INJECTION64_PATH unset)" "$(env -u NVTX_INJECTION64_PATH "$tmp/bench" "$NF")" "the floor"
row "bridge, range filtered out (name!=bench)" \
  "$(best env NVTX_INJECTION64_PATH="$LIB" FLINCH_NVTX_FILTER='name!=bench' FLINCH_MARKS="$tmp/none" "$tmp/bench" "$NF")" "<= 100"
row "bridge, domain filtered out (domain=other)" \
  "$(best env NVTX_INJECTION64_PATH="$LIB" FLINCH_NVTX_FILTER='domain=other' FLINCH_MARKS="$tmp/none" "$tmp/bench" "$NF")" "<= 100"
row "bridge, no recorder (marks counted undelivered)" \
  "$(best env NVTX_INJECTION64_PATH="$LIB" FLINCH_MARKS="$tmp/none" "$tmp/bench" "$N")" ""
r=$(best rec_direct --nvtx -- "$tmp/bench" "$N" - "$BURST")
row "before: recorded, each mark written by its thread (FLINCH_NVTX_THREAD=0), SIGPIPE default" "$r" "" "$(in_trace)"
r=$(best rec_direct --nvtx -- "$tmp/bench" "$N" ignore-sigpipe "$BURST")
row "before: the same, SIGPIPE ignored (as in every Python process)" "$r" "" "$(in_trace)"
r=$(best rec --nvtx -- "$tmp/bench" "$N" - "$BURST")
row "after: recorded through the writer thread, SIGPIPE default" "$r" "<= 2000" "$(in_trace)"
r=$(best rec --nvtx -- "$tmp/bench" "$N" ignore-sigpipe "$BURST")
row "after: the same, SIGPIPE ignored" "$r" "<= 2000" "$(in_trace)"
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
echo "Each recorded pair is two marks. Before: each one write() into the FIFO by the calling thread;"
echo "where SIGPIPE is not ignored the bridge blocks it around the write (flinch_mark.h's guard). After:"
echo "the calling thread stamps, formats and queues the line (no system call); the bridge's writer"
echo "thread writes up to PIPE_BUF bytes of lines at once. cpu: user + system time of the calling thread"
echo "and of the whole process (the writer thread included); wall includes waiting for a CPU on a"
echo "loaded machine. Recorded runs: bursts of $BURST pairs 10 ms apart (pauses not in the wall time)."
