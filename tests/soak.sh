#!/bin/bash
# tests/soak.sh SECONDS [BUILD] — issue 6's soak: `flinch record` at a 1 ms
# interval (SOAK_INTERVAL_MS) on the simulated GPU playing
# sim/scenarios/soak.scn, while SOAK_WRITERS (4) processes send marks at
# SOAK_RATE_HZ (1000) in total through the FIFO with include/flinch_mark.h
# (tests/helpers/markflood.c). Then checks:
#   - RSS flat: VmRSS 1 s in vs at the end (reported; end <= start + 512 KiB;
#     not checked under ASan, whose quarantine grows by design);
#   - no lost marks: every mark a writer reports sent is in the trace, once;
#   - sample count exact: ticks 0..N-1 (N = SECONDS * 1000 / interval),
#     samples + ticks skipped after a recorded overrun = N;
#   - exit 0 and the whole file parses.
# Prints TAP lines ("ok - ..."), so tests/e2e/soak_short.sh runs it under
# tests/run.sh, and a summary line "soak: ..." with the numbers.
# `make soak` runs one hour (SOAK_SECONDS=3600).
secs=${1:?usage: soak.sh SECONDS [BUILD]}
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${FLINCH:-}" ]; then
  b=$root/${2:-build}
  export FLINCH=$b/flinch SIM=$b/sim/libnvidia-ml.so.1 HELPERS=$b/tests \
         SCENARIOS=$root/sim/scenarios ROOT=$root
fi
if [ -z "${T:-}" ]; then T=$(mktemp -d); trap 'rm -rf "$T"' EXIT; fi
cd "$T" || exit 2
. "$root/tests/lib.sh"

iv=${SOAK_INTERVAL_MS:-1}
writers=${SOAK_WRITERS:-4}
rate=${SOAK_RATE_HZ:-1000}
wsecs=$(awk -v s="$secs" 'BEGIN { print (s > 4 ? s - 2 : s / 2) }')  # writers stop before the recorder
fifo=$T/soak.fifo
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }

FLINCH_SIM_SCENARIO="$SCENARIOS/soak.scn" exec "$FLINCH" record --out soak.csv --seconds "$secs" \
  --interval-ms "$iv" --marks-fifo "$fifo" --nvml-lib "$SIM" --no-rapl -q 2>err.txt &
rec=$!
i=0; until grep -q ',MARK,"begin",' soak.csv 2>/dev/null || [ $i -ge 250 ]; do sleep 0.02; i=$((i + 1)); done
for w in $(seq 1 "$writers"); do
  "$HELPERS/markflood" "$fifo" "$w" "$(awk -v r="$rate" -v n="$writers" 'BEGIN { print r / n }')" \
    "$wsecs" >"sent$w.txt" 2>"werr$w.txt" &
done
sleep 1
rss_start=$(rss $rec)
rss_max=$rss_start
# sample RSS once a second until the last second of the recording
end_at=$(( $(date +%s) + ${secs%.*} - 2 ))
while [ "$(date +%s)" -lt "$end_at" ] && kill -0 $rec 2>/dev/null; do
  sleep 1
  r=$(rss $rec); [ -n "$r" ] && [ "$r" -gt "$rss_max" ] && rss_max=$r
done
rss_end=$(rss $rec)
wait $rec
rc=$?
wait
expect_eq "soak: recorder exit 0" "$rc" 0
expect_eq "soak: no messages on stderr" "$(cat err.txt)" ""

sent=0; failed=0
for w in $(seq 1 "$writers"); do
  s=$(sed -n 's/^sent=\([0-9]*\) .*/\1/p' "sent$w.txt"); f=$(sed -n 's/.*failed=\([0-9]*\)$/\1/p' "sent$w.txt")
  sent=$((sent + ${s:-0})); failed=$((failed + ${f:-0}))
done
expect_eq "soak: every mark sent without error" "$failed $(cat werr*.txt)" "0 "

"$HELPERS/tracecheck" soak.csv >summary.txt 2>tc_err.txt
expect_eq "soak: trace parses" "$?$(cat tc_err.txt)" 0
get() { tr ' ' '\n' < summary.txt | sed -n "s/^$1=//p"; }
n=$(awk -v s="$secs" -v i="$iv" 'BEGIN { printf "%d", s * 1000 / i + 0.5 }')
samples=$(get samples); skipped=$(get skipped_ticks); gaps=$(get tick_gaps)
ticks=$(get ticks)
expect_eq "soak: samples + skipped ticks = $n, last tick $((n - 1))" \
  "$((samples + skipped)) ${ticks#*..}" "$n $((n - 1))"

"$HELPERS/tracecheck" --marks soak.csv | awk '$3 ~ /^w[0-9]+-[0-9]+$/ { print $3 }' | sort > got.txt
for w in $(seq 1 "$writers"); do
  s=$(sed -n 's/^sent=\([0-9]*\) .*/\1/p' "sent$w.txt")
  seq 1 "${s:-0}" | sed "s/^/w$w-/"
done | sort > want.txt
expect_eq "soak: marks in the trace = marks sent ($sent)" "$(wc -l < got.txt)" "$sent"
check "soak: each sent mark exactly once" cmp -s got.txt want.txt
expect_eq "soak: begin and end marks" "$("$HELPERS/tracecheck" --marks soak.csv | awk '$3 == "begin" || $3 == "end" { print $3 }' | tr '\n' ' ')" "begin end "
# client-stamped: the recorder kept each writer's stamp; arrival after it
lat=$("$HELPERS/tracecheck" --marks soak.csv | awk '$3 ~ /^w/ { d = $2 - $1; if (d < 0) neg++; if (d > m) m = d }
                                                   END { printf "%d %d", neg, m / 1000 }')
expect_eq "soak: no mark arrived before its stamp" "${lat% *}" 0

if [ -n "${SANITIZED:-}" ]; then
  skip "soak: RSS flat (start ${rss_start} KiB, end ${rss_end} KiB)" "ASan quarantine grows RSS by design"
else
  check "soak: RSS flat (start ${rss_start} KiB, end ${rss_end} KiB, max ${rss_max} KiB)" \
    test -n "$rss_start" -a -n "$rss_end" -a "${rss_end:-999999}" -le $((${rss_start:-0} + 512))
fi
echo "soak: ${secs}s at ${iv} ms: $samples samples, $skipped ticks skipped in $gaps gaps; $sent marks sent by $writers writers, $(wc -l < got.txt) in the trace; max mark latency ${lat#* } us; VmRSS start ${rss_start} KiB, end ${rss_end} KiB, max ${rss_max} KiB; $(wc -c < soak.csv) bytes"
done_testing
