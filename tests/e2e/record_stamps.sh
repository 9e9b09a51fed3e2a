#!/bin/bash
# record_stamps.sh — issue 9, item 10 (recorder part): a client's stamp far
# from the recorder's clock (2^63-1, a day and more off) is rejected as a
# mark with the reason, never converted to wall time with an overflow;
# stamps within a day are kept with their wall time shifted exactly.
# The "old" stamp is an hour old, or half the time since boot on a machine
# up for less than two hours (CI may run on one booted minutes ago: an
# hour-old stamp there would lie before boot, a negative CLOCK_MONOTONIC).
. "$ROOT/tests/lib.sh"
TC="$HELPERS/tracecheck"
fifo="$T/m.fifo"
day=86400000000000

"$FLINCH" record --out s.csv --nvml-lib "$SIM" --no-rapl --seconds 0 --marks-fifo "$fifo" 2>err.txt &
pid=$!
wait_for 250 grep -q begin s.csv
now=$("$HELPERS/simtool" now)
age=3600000000000
[ $((now / 2)) -lt $age ] && age=$((now / 2))
age_s=$((age / 1000000000))
{
  printf 'far\t9223372036854775807\n'
  printf 'day_ahead\t%s\n' $((now + day + 1000000000))
  printf 'hour_ago\t%s\n' $((now - age))
} > "$fifo"
err=$("$FLINCH" mark x --fifo "$fifo" --at-ns 9223372036854775807 2>&1); rc=$?
expect_eq "flinch mark --at-ns 2^63-1: refused (exit 2)" "$rc" 2
expect_match "flinch mark --at-ns 2^63-1: message" \
  "^flinch mark: --at-ns 9223372036854775807: more than a day from now \(CLOCK_MONOTONIC is [0-9]+\); the recorder would reject it$" "$err"
wait_for 250 grep -q hour_ago s.csv
kill -TERM $pid; wait $pid
expect_eq "recorder exit 0 (no overflow trap under UBSan)" "$?" 0
expect_eq "marks: the far stamps rejected, the hour-old one kept" \
  "$("$TC" --marks s.csv | cut -d' ' -f3-)" "begin
hour_ago
end"
expect_eq "both far stamps rejected with the reason" \
  "$(grep -c "stamped [0-9]* ns, more than a day from the recorder's clock ([0-9]*); mark ignored" err.txt)" 2
expect_match "the rejection names the mark" "mark 'far' stamped 9223372036854775807 ns" "$(cat err.txt)"
# the kept mark's wall time is shifted by exactly its distance from its arrival
row=$(grep ',"\?hour_ago"\?,' s.csv)
mono=$(echo "$row" | cut -d, -f1); wall=$(echo "$row" | cut -d, -f2); arr=$(echo "$row" | cut -d, -f20)
expect_eq "hour-old stamp kept as sent" "$mono" $((now - age))
check "its wall time is about $age_s s before its arrival's" \
  [ $(( ($(date +%s%N) - wall) / 1000000000 )) -ge $((age_s - 1)) ]
check "its arrival is set" [ -n "$arr" ]
done_testing
