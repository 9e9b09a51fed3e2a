#!/bin/sh
# bench/cuda_real.sh [BUILD] — `flinch record --cuda` on a real GPU (issue 24).
#
# One command of at most 5 minutes (start-up included) for the first task
# lent a GPU (PyTorch and the CUDA driver; no network). A small PyTorch
# workload (bf16 matrix products in bursts, 5 ms host gaps) runs for
# CUDA_REAL_SECONDS (default 15) per run:
#   A  flinch record --cuda: the kernel union over the measured loop, from
#      TRACE.kernels; the NVML-only answer of flinch analyze over the same
#      loop (marks loop_start/loop_end); the loop's throughput
#   B  torch.profiler alone (no flinch: CUPTI has one subscriber): its
#      kernel union over the same loop
#   C  flinch record without --cuda: the throughput (target: A loses <= 2 %)
#   D  flinch record --cuda, then a torch.profiler started later in the same
#      process: what it gets (CUPTI error 39 expected: no kernel events, the
#      error in its stderr) and flinch's own records still whole
# and prints a Markdown table. Environment: CUDA_REAL_SECONDS,
# CUDA_REAL_OUT=DIR leaves the raw material there (traces, .kernels,
# stdout/stderr of each run), CUDA_REAL_DRY=1 runs what can run without a
# GPU: A's and D's recording path on the simulated NVML and CUPTI with the
# stand-in application (tests/helpers/cuda_app.c), the torch steps shown as
# not run. Exit status: 0 measured (or dry run done); 2 no GPU or no
# PyTorch (nothing run); 1 a step failed.
cd "$(dirname "$0")/.." || exit 2
ROOT=$(pwd)
B=${1:-build}
SECS=${CUDA_REAL_SECONDS:-15}
DRY=${CUDA_REAL_DRY:-0}
W=$(mktemp -d)
trap '[ -n "${CUDA_REAL_OUT:-}" ] && cp -r "$W"/. "$CUDA_REAL_OUT"/ 2>/dev/null; rm -rf "$W"' EXIT
make --no-print-directory -s -j"$(nproc)" BUILD="$B" tests >/dev/null || { echo "cuda_real: build failed" >&2; exit 1; }
F="$ROOT/$B/flinch"
UNION="awk -f $ROOT/tests/helpers/kernels_union.awk"

if [ "$DRY" != 1 ]; then
  python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null || {
    echo "cuda_real: no GPU visible to PyTorch (CUDA_REAL_DRY=1 runs the path on the simulator)" >&2; exit 2; }
fi

cat >"$W/work.py" <<'PY'
# The workload: bursts of bf16 matrix products with 5 ms host gaps; marks
# loop_start/loop_end (CLOCK_MONOTONIC, client-stamped) around the measured loop.
import os, sys, time
import torch
mode, secs = sys.argv[1], float(sys.argv[2])
CUDA = torch.autograd.DeviceType.CUDA

def mark(label):
    p = os.environ.get("FLINCH_MARKS")
    if p:
        try:
            fd = os.open(p, os.O_WRONLY | os.O_NONBLOCK)
            os.write(fd, ("%s\t%d\n" % (label, time.monotonic_ns())).encode())
            os.close(fd)
        except OSError:
            pass

a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
b = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)

def step():
    for _ in range(8):
        a @ b
    torch.cuda.synchronize()
    time.sleep(0.005)

def union_us(events):
    iv = sorted((e.time_range.start, e.time_range.end) for e in events if e.device_type == CUDA)
    total, cur = 0.0, None
    for s, e in iv:
        if cur and s <= cur[1]:
            cur[1] = max(cur[1], e)
        else:
            if cur:
                total += cur[1] - cur[0]
            cur = [s, e]
    if cur:
        total += cur[1] - cur[0]
    return total, len(iv)

for _ in range(10):
    step()

def loop():
    t0 = time.monotonic_ns(); mark("loop_start")
    n = 0
    while time.monotonic_ns() - t0 < secs * 1e9:
        step(); n += 1
    t1 = time.monotonic_ns(); mark("loop_end")
    print("loop_ns=%d %d iters=%d iters_per_s=%.3f" % (t0, t1, n, n / ((t1 - t0) / 1e9)))
    return t0, t1

if mode == "profile":
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        t0, t1 = loop()
    u, k = union_us(prof.events())
    print("profiler_union_ms=%.3f kernels=%d loop_ms=%.3f" % (u / 1e3, k, (t1 - t0) / 1e6))
else:
    loop()
    if mode == "late":
        from torch.profiler import profile, ProfilerActivity
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(5):
                step()
        u, k = union_us(prof.events())
        print("late_profiler_kernels=%d" % k)
PY

rec() { "$F" record -q --no-rapl -i 10 "$@"; }
if [ "$DRY" = 1 ]; then
  export FLINCH_CUPTI_LIB="$ROOT/$B/sim-cupti/libcupti.so.13"
  RECOPT="--nvml-lib $ROOT/$B/sim/libnvidia-ml.so.1"
  APP_A="$ROOT/$B/tests/cuda_app $ROOT/tests/fixtures/cuda/timeline.scn"
else
  RECOPT=""
  APP_A="python3 $W/work.py plain $SECS"
fi

echo "## bench/cuda_real.sh$([ "$DRY" = 1 ] && echo ' (dry run: simulated NVML and CUPTI, stand-in application)')"
echo
echo "| run | what | figure |"
echo "|---|---|---|"
# A: --cuda
# shellcheck disable=SC2086
rec $RECOPT -o "$W/a.csv" --cuda -- $APP_A >"$W/a.out" 2>"$W/a.err" || { echo "cuda_real: run A failed" >&2; cat "$W/a.err" >&2; exit 1; }
if [ "$DRY" = 1 ]; then
  t0=$(sed -n 's/.*t0=\([0-9]*\).*/\1/p' "$W/a.out")
  echo "| A | kernel union (sim timeline) | $($UNION -v type=B -v gpu=0 -v t0="$t0" "$W/a.csv.kernels" | head -1) |"
  echo "| A | counts (last D line) | $(grep '^D ' "$W/a.csv.kernels" | tail -1) |"
  echo "| A | NVML-only answer (flinch analyze, first 3 lines) | $("$F" analyze "$W/a.csv" --start begin --end end 2>&1 | head -3 | tr '\n' ' ') |"
  echo "| B, C | torch.profiler union; throughput without --cuda | not run (dry run: needs PyTorch and a GPU) |"
  SIM_CUPTI_SUBSCRIBE=39 rec $RECOPT -o "$W/d.csv" --cuda -- $APP_A >"$W/d.out" 2>"$W/d.err"
  echo "| D | another subscriber first (sim error 39): flinch's EVENT | $(grep -o '"cuda_off [^"]*"' "$W/d.csv") |"
  exit 0
fi
set -- $(sed -n 's/^loop_ns=\([0-9]*\) \([0-9]*\) iters=\([0-9]*\) iters_per_s=\([0-9.]*\)/\1 \2 \3 \4/p' "$W/a.out")
lo=$1; hi=$2; ips_a=$4
ua=$($UNION -v type=B -v gpu=0 -v t0="$lo" -v lo="$lo" -v hi="$hi" "$W/a.csv.kernels" | head -1)
loop_ms=$(awk -v a="$lo" -v b="$hi" 'BEGIN { printf "%.3f", (b - a) / 1e6 }')
ua_ms=$(echo "$ua" | sed -n 's/.* total=\([0-9.e+]*\) .*/\1/p' | awk '{ printf "%.3f", $1 / 1000 }')
echo "| A | loop | $loop_ms ms, $3 iterations, $ips_a it/s |"
echo "| A | kernel union over the loop (TRACE.kernels) | $ua_ms ms ($(awk -v u="$ua_ms" -v l="$loop_ms" 'BEGIN { printf "%.1f", 100 * u / l }') % of the loop) |"
echo "| A | counts (last D line) | $(grep '^D ' "$W/a.csv.kernels" | tail -1) |"
echo "| A | NVML-only answer: flinch analyze --start loop_start --end loop_end | $("$F" analyze "$W/a.csv" --start loop_start --end loop_end 2>&1 | head -6 | tr '\n' ' ') |"
# B: torch.profiler alone
python3 "$W/work.py" profile "$SECS" >"$W/b.out" 2>"$W/b.err" || { echo "cuda_real: run B failed" >&2; tail -5 "$W/b.err" >&2; exit 1; }
echo "| B | torch.profiler kernel union over its loop | $(grep '^profiler_union_ms' "$W/b.out") |"
# C: without --cuda
rec -o "$W/c.csv" -- python3 "$W/work.py" plain "$SECS" >"$W/c.out" 2>"$W/c.err" || { echo "cuda_real: run C failed" >&2; exit 1; }
ips_c=$(sed -n 's/.*iters_per_s=\([0-9.]*\).*/\1/p' "$W/c.out")
echo "| C | throughput without --cuda; loss with it (target <= 2 %) | $ips_c it/s; $(awk -v a="$ips_a" -v c="$ips_c" 'BEGIN { printf "%.2f", 100 * (c - a) / c }') % |"
# D: a later torch.profiler in a --cuda process
rec -o "$W/d.csv" --cuda -- python3 "$W/work.py" late 3 >"$W/d.out" 2>"$W/d.err"
echo "| D | later torch.profiler under --cuda: its kernel events | $(grep '^late_profiler_kernels' "$W/d.out") |"
echo "| D | its stderr names error 39 / MULTIPLE_SUBSCRIBERS | $(grep -c -i 'MULTIPLE_SUBSCRIBERS\|error 39\|CUPTI_ERROR' "$W/d.err") lines |"
echo "| D | flinch's records still there | $(grep -c '^B ' "$W/d.csv.kernels") B lines |"
