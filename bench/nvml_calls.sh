#!/bin/sh
# bench/nvml_calls.sh BUILD — what flinch record costs the driver (issue 13):
# NVML calls per GPU per tick, and NVML time per GPU per second, at 10 ms
# and 1 ms, with the simulated NVML's per-call latency (latency_us,
# BENCH_NVML_LATENCY_US, default 200: a busy multi-GPU host).
#
# The simulated library counts every device query it answers and writes the
# counts at nvmlShutdown (FLINCH_SIM_STATS, sim/SCENARIO.md); the getting of
# the handle is left out. NVML time = calls * latency: on a real driver
# those are the microseconds the driver's lock is held for flinch, the ones
# an application's own NVML or CUDA calls can queue behind.
#
# Rows: "before" is BENCH_BEFORE, a flinch binary built from an earlier
# commit (e.g. git worktree add /tmp/before 5256717 && make -C /tmp/before;
# BENCH_BEFORE=/tmp/before/build/flinch, BENCH_BEFORE_LABEL names it), run
# against this build's simulated
# library (same ABI); "after" is BUILD's flinch. The original nvml_trace.py
# makes 4 calls a tick (power, utilization, SM clock, temperature: read off
# its source, not run: it needs pynvml); the ideal is 1 (one field-values
# call, the fewest that read the energy counter at all).
# Target: <= 3 calls per GPU per tick on average.
#
# Each recorder runs twice: alone (--seconds) and tracing a command
# (-- sleep SECONDS), which adds the per-process read
# (nvmlDeviceGetProcessUtilization, once a second: gpu_proc_util.h).
cd "$(dirname "$0")/.." || exit 2
. bench/lib.sh
bench_init "$1"

secs=${BENCH_SECONDS:-10}
lat=${BENCH_NVML_LATENCY_US:-200}
intervals=${BENCH_INTERVALS:-10 1}
printf 'latency_us %s\nat 0 power=300 util=50 mem_util=20 clock=1500 temp=50 reasons=0x4\n' "$lat" >"$W/lat.scn"

echo "### NVML calls per GPU per tick (${secs} s per run, 1 GPU, simulated NVML, ${lat} us per call)"
echo
echo "| recorder | interval | ticks sampled | NVML calls / tick | NVML time / s | share of wall time in NVML | target <= 3 calls / tick |"
echo "|---|---|---|---|---|---|---|"

# run NAME FLINCH INTERVAL [traced]: one recording, one table row.
run() {
  rm -f "$W/run.csv" "$W/stats.txt"
  name=$1 fl=$2 iv=$3
  if [ "${4:-}" = traced ]; then name="$name, tracing -- sleep $secs"; set -- -- sleep "$secs"
  else set -- --seconds "$secs"; fi
  if ! FLINCH_SIM_STATS="$W/stats.txt" FLINCH_SIM_SCENARIO="$W/lat.scn" "$fl" record --nvml-lib "$SIM" \
      --out "$W/run.csv" --interval-ms "$iv" --no-rapl -q "$@" 2>"$W/err.txt"; then
    echo "| $name | $iv ms | record failed: $(head -c 160 "$W/err.txt" | tr '\n|' ' /') ||||"
    return 1
  fi
  ticks=$(grep -c ',SAMPLE,' "$W/run.csv")
  calls=$(awk '$1 == "gpu" && $2 == 0 && $3 != "nvmlDeviceGetHandleByIndex" { n += $4 } END { print n + 0 }' "$W/stats.txt")
  per_tick=$(calc "$calls / $ticks" %.2f)
  ms_per_s=$(calc "$calls * $lat / 1000 / $secs" %.1f)
  share=$(calc "$calls * $lat / 1e4 / $secs" %.1f)
  echo "| $name | $iv ms | $ticks | $per_tick | $ms_per_s ms | $share % | $(verdict "$per_tick <= 3") |"
}

failed=0
for iv in $intervals; do
  for mode in alone traced; do
    if [ -n "${BENCH_BEFORE:-}" ]; then
      run "before (${BENCH_BEFORE_LABEL:-$BENCH_BEFORE})" "$BENCH_BEFORE" "$iv" $mode || failed=1
    fi
    run "after (this build)" "$FLINCH" "$iv" $mode || failed=1
  done
  echo "| original nvml_trace.py (by reading its source) | $iv ms | - | 4 | $(calc "4 * $lat * 1000 / $iv / 1000" %.1f) ms | $(calc "4 * $lat / 10 / $iv" %.1f) % | - |"
  echo "| ideal | $iv ms | - | 1 | $(calc "$lat * 1000 / $iv / 1000" %.1f) ms | $(calc "$lat / 10 / $iv" %.1f) % | - |"
done
echo
echo "NVML time / s = calls x ${lat} us per second of recording; at 1 ms a tick cannot hold more than"
echo "$(calc "1000 / $lat" %.0f) calls of ${lat} us, so a recorder that needs more skips ticks (fewer ticks sampled)."

# --gpu auto before any GPU joins: the discovery poll (gpu_auto.h) asks each
# GPU not yet found for its compute processes, every 500 ms, and nothing
# else; `sleep` never creates a CUDA context, so all 4 GPUs stay undecided.
echo
echo "### --gpu auto discovery (${secs} s, 4 simulated GPUs none of which the command uses, ${lat} us per call)"
echo
echo "| recorder | process-list calls / s / GPU | other NVML device calls / s | NVML time / s | target <= 2 calls / s / GPU |"
echo "|---|---|---|---|---|"
printf 'gpus 4\nlatency_us %s\nat 0 power=75 util=0\n' "$lat" >"$W/auto.scn"
rm -f "$W/stats.txt"
if FLINCH_SIM_STATS="$W/stats.txt" FLINCH_SIM_SCENARIO="$W/auto.scn" "$FLINCH" record --nvml-lib "$SIM" \
    --out "$W/auto.csv" --gpu auto --no-rapl -q -- sleep "$secs" 2>"$W/err.txt"; then
  plist=$(awk '$1 == "gpu" && $3 ~ /^nvmlDeviceGetComputeRunningProcesses/ { n += $4 } END { print n + 0 }' "$W/stats.txt")
  other=$(awk '$1 == "gpu" && $3 !~ /^nvmlDeviceGetComputeRunningProcesses/ && $3 != "nvmlDeviceGetHandleByIndex" { n += $4 } END { print n + 0 }' "$W/stats.txt")
  per=$(calc "$plist / 4 / $secs" %.2f)
  echo "| after (this build) | $per | $(calc "$other / $secs" %.1f) | $(calc "($plist + $other) * $lat / 1000 / $secs" %.2f) ms | $(verdict "$per <= 2") |"
else
  echo "| after (this build) | record failed: $(head -c 160 "$W/err.txt" | tr '\n|' ' /') ||||"
  failed=1
fi
[ "$failed" = 0 ]
