#!/bin/sh
# bench/mark_latency.sh [BUILD] — how long a mark waits between the client's
# write() and the recorder's arrival stamp (issue 4; target p99 < 100 us).
#
# flinch record samples the simulated GPU at 10 ms while the markclient
# helper (tests/helpers/markclient.c, --raw-us mode) writes client-stamped
# lines "lat-N<TAB>T": T is CLOCK_MONOTONIC taken just before write(). The
# recorder keeps T as t_mono_ns and writes its arrival stamp to
# arrival_mono_ns, so arrival_mono_ns - t_mono_ns is the write-to-stamp
# latency of each mark. Prints a Markdown table.
#
# Environment: BENCH_MARKS (default 10000), BENCH_MARK_SPACING_US (pause
# between marks, default 100).
. "$(dirname "$0")/lib.sh"
bench_init "$1"

marks=${BENCH_MARKS:-10000}
spacing=${BENCH_MARK_SPACING_US:-100}
MC="$HELPERS/markclient"
[ -x "$MC" ] || { echo "bench: $MC not built" >&2; exit 2; }

fifo="$W/marks.fifo"
out="$W/latency.csv"
env -u FLINCH_SIM_SCENARIO "$FLINCH" record --nvml-lib "$SIM" --no-rapl --out "$out" \
    --interval-ms 10 --seconds 0 --marks-fifo "$fifo" 2>"$W/record.err" &
rec=$!
FLINCH_MARKS="$fifo" "$MC" --wait-reader 5000 || { kill "$rec"; exit 2; }
FLINCH_MARKS="$fifo" "$MC" --raw-us "$spacing" --count "$marks" --prefix lat- || { kill "$rec"; exit 2; }
sleep 0.2
kill -INT "$rec"
wait "$rec"

# latencies in ns, sorted
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "arrival_mono_ns") a = i; next }
         $3 == "MARK" && $4 ~ /^"lat-/ { print $a - $1 }' "$out" | sort -n >"$W/lat.txt"
got=$(wc -l <"$W/lat.txt")
samples=$(awk -F, '$3 == "SAMPLE"' "$out" | wc -l)
pct() { # fraction -> value in us
  awk -v f="$1" -v n="$got" 'BEGIN { k = int(n * f + 0.999999); if (k < 1) k = 1 }
                             NR == k { printf "%.1f", $1 / 1000; exit }' "$W/lat.txt"
}
median=$(pct 0.5); p99=$(pct 0.99); max=$(tail -n 1 "$W/lat.txt" | awk '{ printf "%.1f", $1 / 1000 }')
verdict=$(awk -v p="$p99" -v g="$got" -v m="$marks" 'BEGIN { print (g == m && p < 100) ? "pass" : "FAIL" }')

echo "### mark write-to-stamp latency"
echo
echo "$marks client-stamped marks, one every ${spacing} us, while recording at 10 ms ($samples samples)."
echo
echo "| marks sent | marks recorded | median | p99 | max | target | |"
echo "|---|---|---|---|---|---|---|"
echo "| $marks | $got | ${median} us | ${p99} us | ${max} us | p99 < 100 us, none lost | $verdict |"
