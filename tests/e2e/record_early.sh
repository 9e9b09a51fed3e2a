# record_early.sh — plain marks written to an existing marks FIFO before a
# recorder read it (the writer blocked in open(2)) get early=1 and one
# warning; a client-stamped mark keeps its stamp and is not early; marks
# after `begin` are not early.
. "$ROOT/tests/lib.sh"

mkfifo -m 600 e.fifo
now=$(awk '{ printf "%.0f\n", $1 * 1e9 }' /proc/uptime)
printf 'early_a\nearly_b\nearly_c\t%s\n' "$(( now - 1000000000 ))" > e.fifo &
w1=$!
sleep 0.3
FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" "$FLINCH" record -q --out e.csv --interval-ms 10 \
  --nvml-lib "$SIM" --no-rapl --marks-fifo e.fifo --seconds 1 2>err.txt &
rp=$!
wait $w1
wait_for 250 grep -qs ',MARK,"begin",' e.csv
timeout 5 sh -c 'echo late > e.fifo'
wait $rp
expect_eq "record: exit 0; one warning naming the early marks" "$?:$(cat err.txt)" \
  "0:flinch record: warning: marks FIFO e.fifo: 2 marks written before the recording began (first 'early_a'): their time is their arrival, not when they were written"
expect_eq "MARK rows: early=1 on the plain marks that came before begin only" \
  "$(sed 's/"//g' e.csv | awk -F, '$3 == "MARK" { print $4 "=" $24 }' | sort | tr '\n' ' ')" \
  "begin= early_a=early=1 early_b=early=1 early_c= end= late= "
done_testing
