#!/bin/bash
# record_append.sh — issue 9, item 3 (writer part): before appending, the
# recorder checks the existing trace: it says what it appends to (earlier
# recordings counted from its own `begin` rows, not a user's mark named
# begin), cuts a partial last row away with a warning, refuses NUL bytes
# and a header from the original tracer or an older flinch with a message
# that says so and suggests a new file; the file is left as it was.
. "$ROOT/tests/lib.sh"
TC="$HELPERS/tracecheck"
rec() {
  out=$1; shift
  "$FLINCH" record --out "$out" --nvml-lib "$SIM" --no-rapl --seconds 0.05 "$@" 2>err.txt
}

rec a.csv
expect_eq "a new file: nothing said about appending" "$(cat err.txt)" ""
rows=$(( $(wc -l < a.csv) - 1 ))
rec a.csv
expect_eq "appending: says so with the earlier recordings and rows" "$(cat err.txt)" \
  "flinch record: appending to a.csv: 1 earlier recording, $rows rows"

# A user's mark named begin (it came through the FIFO: arrival set) is not
# a recording.
"$FLINCH" record --out b.csv --nvml-lib "$SIM" --no-rapl --seconds 0 --marks-fifo "$T/b.fifo" 2>/dev/null &
pid=$!
wait_for 250 grep -q begin b.csv
"$FLINCH" mark begin --fifo "$T/b.fifo"
wait_for 250 [ "$(grep -c begin b.csv)" -ge 2 ]
kill -TERM $pid; wait $pid
rec b.csv
rec b.csv
expect_match "a user's mark named begin is not counted as a recording" \
  "^flinch record: appending to b.csv: 2 earlier recordings, [0-9]+ rows$" "$(cat err.txt)"

# Thousands separators: a recording of over 1000 rows.
FLINCH_SIM_SCENARIO="$SCENARIOS/multi_gpu.scn" "$FLINCH" record --out big.csv --nvml-lib "$SIM" \
  --no-rapl --gpu all --seconds 1 --interval-ms 1 2>/dev/null
rows=$(( $(wc -l < big.csv) - 1 ))
check "that recording has over 1000 rows ($rows)" [ "$rows" -ge 1000 ]
rec big.csv
expect_eq "row count with a thousands separator" "$(cat err.txt)" \
  "flinch record: appending to big.csv: 1 earlier recording, $(echo "$rows" | sed -E ':a;s/^([0-9]+)([0-9]{3})/\1,\2/;ta') rows"

# A trace from before a reboot: its clock is ahead of this boot's.
rec e.csv
sed -i '$ s/^[0-9]*,/9000000000000000000,/' e.csv
rec e.csv
expect_match "a trace from before a reboot: said so" \
  "^flinch record: appending to e.csv: 1 earlier recording, [0-9]+ rows \(made before this boot: its clock is ahead of this one's\)$" \
  "$(cat err.txt)"

# kill -9 mid-row (simulated: the last row without its newline).
rec c.csv
printf '123456,789,SAMP' >> c.csv
rec c.csv
expect_eq "partial last row: appended after cutting it (exit 0)" "$?" 0
expect_match "partial last row: warned" \
  "^flinch record: warning: c.csv: its last row was cut short \(15 bytes without a newline: a crash or a full disk\); removed them before appending$" \
  "$(head -n 1 err.txt)"
check "partial last row: gone, the trace reads whole" "$TC" --marks c.csv
expect_eq "partial last row: no fragment left" "$(grep -c 'SAMP,' c.csv)" 0

# A NUL-filled tail (power loss): refused, file unchanged.
rec d.csv
size=$(stat -c %s d.csv)
head -c 4096 /dev/zero >> d.csv
sum=$(md5sum < d.csv)
rec d.csv
expect_eq "NUL tail: refused (exit 2)" "$?" 2
expect_eq "NUL tail: message" "$(cat err.txt)" \
  "flinch record: d.csv: holds NUL bytes from byte $size (line $(( $(head -c "$size" d.csv | wc -l) + 1 ))), left by a crash or power loss; refusing to append: record into a new file (if the damage is only at the end, 'truncate -s $size d.csv' cuts it off)"
expect_eq "NUL tail: file unchanged" "$(md5sum < d.csv)" "$sum"
truncate -s "$size" d.csv
rec d.csv
expect_eq "after the suggested truncate: appends (exit 0)" "$?" 0

# Headers of the original tracer and of an older flinch.
printf 't_mono_ns,t_wall_ns,row_type,label,gpu_power_W,gpu_util_pct,gpu_mem_util_pct,gpu_sm_clock_MHz,gpu_temp_C,rapl_energy_uj\n1,2,MARK,begin,,,,,,\n' > orig.csv
sum=$(md5sum < orig.csv)
rec orig.csv
expect_eq "original tracer's header: refused (exit 2)" "$?" 2
expect_eq "original tracer's header: message" "$(cat err.txt)" \
  "flinch record: orig.csv: exists with a different header (written by the original nvml_trace.py (its ten columns only)); refusing to append: record into a new file (another --out)"
expect_eq "original tracer's file unchanged" "$(md5sum < orig.csv)" "$sum"
head -n 1 a.csv | sed 's/,[a-z_]*$//' > older.csv
echo "1,2,MARK,begin" >> older.csv
rec older.csv
expect_eq "older flinch's header: refused (exit 2)" "$?" 2
expect_eq "older flinch's header: message" "$(cat err.txt)" \
  "flinch record: older.csv: exists with a different header (written by an older flinch, with fewer or older-named columns); refusing to append: record into a new file (another --out)"
done_testing
