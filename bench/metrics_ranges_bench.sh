#!/bin/sh
# bench/metrics_ranges_bench.sh [BUILD] — what the per-range-name metrics
# (record --metrics-file, --metrics-ranges N, issue 14) cost the recorder.
#
# Records BENCH_SECONDS (default 10) at 10 ms with --metrics-file while a
# client (python3) sends ranges of 40 names in real time, 1 ms long, at 200
# and 1000 ranges per second, stamped as they are written; once with
# --metrics-ranges 0 (the recorder without the ranges' analysis) and once
# with the default 32. CPU and peak RSS of the whole recorder from wait4
# (tests/helpers/runstat). Target: <= 10 % of one core at 200 ranges/s.
# The original kit has no live metrics; the ideal costs 0.
cd "$(dirname "$0")/.." || exit 2
. bench/lib.sh
bench_init "${1:-build}"
secs=${BENCH_SECONDS:-10}
command -v python3 >/dev/null 2>&1 || { echo "python3 missing: metrics_ranges_bench not run"; exit 0; }

echo "### Per-range-name metrics: recorder cost ($secs s at 10 ms, ranges of 40 names)"
echo
echo "| ranges/s | --metrics-ranges | ranges sent | recorder CPU | % of one core | peak RSS | range series | target |"
echo "|---:|---:|---:|---:|---:|---:|---:|---|"
status=0
for rate in 200 1000; do
  for cap in 0 32; do
    rm -f "$W/b.csv" "$W/b.prom" "$W/fifo"
    FLINCH_SIM_SCENARIO=sim/scenarios/demo.scn "$RUNSTAT" "$W/run.stat" "$FLINCH" record \
      --out "$W/b.csv" --nvml-lib "$SIM" --no-rapl -q --interval-ms 10 --seconds "$secs" \
      --marks-fifo "$W/fifo" \
      --metrics-ranges "$cap" --metrics-file "$W/b.prom" 2>/dev/null &
    rec=$!
    i=0; while [ ! -p "$W/fifo" ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i+1)); done
    sent=$(python3 -c 'import os, sys, time
rate, secs = int(sys.argv[1]), float(sys.argv[2]) - 1.5
fd = os.open(sys.argv[3], os.O_WRONLY)
t0 = time.monotonic(); k = 0
while time.monotonic() - t0 < secs:
    now = time.monotonic_ns()
    os.write(fd, b"name %d\t%d\tstart=1.%d\n" % (k % 40, now, k))
    os.write(fd, b"name %d\t%d\tend=1.%d\n" % (k % 40, now + 1000000, k))
    k += 1
    time.sleep(max(0, t0 + k / rate - time.monotonic()))
print(k)' "$rate" "$secs" "$W/fifo")
    wait $rec
    if [ "$(stat_field "$W/run.stat" status)" != 0 ] || [ "${sent:-0}" -lt 1 ]; then
      echo "| $rate | $cap | recorder or client failed | | | | | FAIL |"; status=1; continue
    fi
    user=$(stat_field "$W/run.stat" user_us); sys=$(stat_field "$W/run.stat" sys_us)
    rss=$(stat_field "$W/run.stat" maxrss_kib)
    series=$(grep -c '^flinch_window_duration_seconds_count{range=' "$W/b.prom")
    target="-"
    if [ "$rate" = 200 ] && [ "$cap" = 32 ]; then
      if [ "$(verdict "($user + $sys) / ($secs * 1e6) <= 0.10")" = pass ]; then target="<= 10 %: pass"
      else target="<= 10 %: FAIL"; status=1; fi
    fi
    awk -v r="$rate" -v c="$cap" -v n="$sent" -v u="$user" -v s="$sys" -v secs="$secs" \
        -v m="$rss" -v ser="$series" -v t="$target" 'BEGIN {
      printf "| %d | %d | %d | %.2f s | %.1f %% | %.1f MiB | %d | %s |\n", r, c, n, (u + s) / 1e6,
             100 * (u + s) / (secs * 1e6), m / 1024, ser, t }'
  done
done
exit $status
