#!/bin/sh
# bench/run.sh [BUILD] — `make bench`: runs every benchmark and prints its
# tables (Markdown), then a line counting the targets met and missed.
#
#   record_bench.sh   flinch record's timing and cost (issue 2)
#   analyze_bench.sh  flinch analyze's speed against analyze_trace.py (issue 3)
#   read_bench.sh     analyze, plot and export reading one large trace, against
#                     cat and pandas (issue 25)
#   accuracy.sh       energy of the scripted burst: exact vs flinch vs original
#   mark_latency.sh   write-to-stamp latency of client marks (issue 4)
#   nvtx_overhead.sh  what an NVTX range / flinch.window costs the application (issue 12)
#   nvml_calls.sh     NVML calls and driver time per GPU per tick (issue 13)
#   sensor_accuracy.py window energy on the h100/ideal sensor presets, 200
#                     trials each on virtual time, four methods (issue 10)
#   breakdown_bench.py  segment edges and verdicts of the breakdown (issue 11)
#   thread_sampler_bench.sh  the thread-state sampler's CPU cost (issue 15)
#   metrics_ranges_bench.sh  the per-range-name metrics' cost to the recorder (issue 14)
#   busy_host.sh      whether the energy's +- holds on a quiet and a busy host,
#                     the last window of a recording included, and whether the
#                     breakdown's edges hold the true waiting time there
#
# Environment: BENCH_ONLY="record analyze read accuracy marks nvml sensors breakdown threads ranges busy" picks some;
# BENCH_SECONDS (recorder run length, default 20), BENCH_ROWS (analyzer
# trace rows, default 1000000), BENCH_REPEAT, BENCH_PYTHON=0, BENCH_KEEP=1:
# see each script. A full run takes about 5 minutes on 2 cores (busy_host.sh alone nearly 3).
cd "$(dirname "$0")/.." || exit 2
B=${1:-build}
only=${BENCH_ONLY:-record analyze read accuracy marks nvml sensors breakdown threads ranges busy}

# The helpers (gen_trace, runstat, simtool) live in tests/helpers/.
make --no-print-directory -s BUILD="$B" tests >/dev/null || { echo "bench: build failed" >&2; exit 2; }

echo "## flinch benchmarks"
echo
echo "- machine: $(nproc) CPU ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), Linux $(uname -r); shared with other work, load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
echo "- $("$B/flinch" --version 2>/dev/null | head -n 1), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' + local changes'), $(cc --version | head -n 1)"
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo

out=$(mktemp) || exit 2
trap 'rm -f "$out" "$out.part"' EXIT
status=0
for b in $only; do
  case $b in
    record) script=bench/record_bench.sh ;;
    analyze) script=bench/analyze_bench.sh ;;
    read) script=bench/read_bench.sh ;;
    accuracy) script=bench/accuracy.sh ;;
    marks) script=bench/mark_latency.sh ;;
    nvtx) script=bench/nvtx_overhead.sh ;;
    nvml) script=bench/nvml_calls.sh ;;
    sensors) script=bench/sensor_accuracy.py ;;
    breakdown) script=bench/breakdown_bench.py ;;
    threads) script=bench/thread_sampler_bench.sh ;;
    ranges) script=bench/metrics_ranges_bench.sh ;;
    busy) script=bench/busy_host.sh ;;
    *) echo "bench: unknown benchmark '$b' (record, analyze, read, accuracy, marks, nvml, sensors, breakdown, threads, ranges, busy)" >&2; exit 2 ;;
  esac
  case $script in
    *.py) if command -v python3 >/dev/null 2>&1; then python3 "$script" "$B" >"$out.part" || status=1
          else echo "python3 missing: $script not run" >"$out.part"; fi ;;
    *) sh "$script" "$B" >"$out.part" || status=1 ;;
  esac
  cat "$out.part"
  cat "$out.part" >>"$out"
  echo
done

met=$(grep -o '\bpass\b' "$out" | wc -l)
missed=$(grep -o '\bFAIL\b' "$out" | wc -l)
echo "bench: $met targets met, $missed missed"
exit $status
