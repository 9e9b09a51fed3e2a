#!/bin/sh
# bench/cuda_overhead.sh [BUILD] — what `flinch record --cuda` costs the
# application (issue 24), on the simulated CUPTI: tests/helpers/cuda_flood
# plays RATE kernels a second (2 us each, 4 streams, 20 names) for
# CUDA_BENCH_SECONDS (default 5) under flinch record --cuda, for RATE
# 100000 and 1000000. Prints the CPU time of the library's flush thread
# (it parses and merges every record: records per second per core follow),
# the process's peak RSS, and from TRACE.kernels the records received,
# dropped (CUPTI found no buffer), the pool's misses and lines lost.
cd "$(dirname "$0")/.." || exit 2
B=${1:-build}
SECS=${CUDA_BENCH_SECONDS:-5}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
make --no-print-directory -s BUILD="$B" tests >/dev/null || { echo "cuda_overhead: build failed" >&2; exit 1; }
export FLINCH_CUPTI_LIB="$PWD/$B/sim-cupti/libcupti.so.13"
echo "### --cuda: the injection's cost (simulated CUPTI, ${SECS} s per rate)"
echo
echo "| kernels/s | played | flush thread CPU | CPU per 100 k kernels/s | records/s per core | peak RSS (app + library) | received | dropped | pool misses | lines lost |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for rate in 100000 1000000; do
  "$B/flinch" record -q --nvml-lib "$B/sim/libnvidia-ml.so.1" --no-rapl -i 100 -o "$W/r$rate.csv" --cuda \
    -- "$B/tests/cuda_flood" "$rate" "$SECS" >"$W/out" 2>"$W/err" || { cat "$W/err" >&2; exit 1; }
  set -- $(sed -n 's/played=\([0-9]*\) not_recorded=[0-9]* seconds=\([0-9.]*\) flush_thread_cpu_s=\([0-9.]*\) peak_rss_kb=\([0-9]*\)/\1 \2 \3 \4/p' "$W/out")
  d=$(grep '^D ' "$W/r$rate.csv.kernels" | tail -1)
  f() { echo "$d" | sed -n "s/.* $1=\([0-9]*\).*/\1/p"; }
  awk -v rate="$rate" -v played="$1" -v s="$2" -v cpu="$3" -v rss="$4" -v rec="$(f kernels)" \
      -v drop="$(f dropped)" -v miss="$(f pool_empty)" -v lost="$(f lines_lost)" 'BEGIN {
    printf "| %d | %d | %.2f s in %.1f s (%.1f %% of a core) | %.1f %% of a core | %.2f M | %.1f MiB | %d | %d | %d | %d |\n",
      rate, played, cpu, s, 100 * cpu / s, 100 * cpu / s / (rate / 100000), (cpu > 0 ? rec / cpu / 1e6 : 0),
      rss / 1024, rec, drop, miss, lost }'
done
