#!/bin/bash
# record_fragments.sh — issue 9, item 2: a half line left in the FIFO by a
# writer that died is never glued onto the next writer's mark. flinch's own
# clients start every write with a newline; a fragment that sits without
# its newline for 200 ms is dropped with a warning that shows it (escaped);
# a last line without newline at stop is dropped with a warning too.
. "$ROOT/tests/lib.sh"
TC="$HELPERS/tracecheck"
fifo="$T/m.fifo"

"$FLINCH" record --out f.csv --nvml-lib "$SIM" --no-rapl --seconds 0 --marks-fifo "$fifo" 2>err.txt &
pid=$!
wait_for 250 grep -q begin f.csv

# 1. a writer dies mid-line; the next mark comes a while later
printf 'half_a_li' > "$fifo"
sleep 0.5
"$FLINCH" mark infer_start --fifo "$fifo"
expect_eq "flinch mark after a stranded fragment: exit 0" "$?" 0
# 2. a fragment, then at once a mark from flinch mark and from the C header
printf 'dead_writer_\033[31m' > "$fifo"
"$FLINCH" mark first_token --fifo "$fifo"
FLINCH_MARKS="$fifo" "$HELPERS/markclient" from_header
# 3. a plain writer (echo) still works; one with a CRLF too
echo plain_echo > "$fifo"
printf 'crlf_line\r\n' > "$fifo"
wait_for 250 grep -q crlf_line f.csv
# 4. the last line has no newline when recording stops
printf 'cut_at_stop' > "$fifo"
sleep 0.05
kill -TERM $pid; wait $pid
expect_eq "recorder exit 0" "$?" 0

labels=$("$TC" --marks f.csv | cut -d' ' -f3-)
expect_eq "marks: each intact, the stranded fragments never glued on" "$labels" \
"begin
infer_start
first_token
from_header
plain_echo
crlf_line
end"
expect_eq "a fragment that waited 200 ms: dropped with a warning showing it" \
  "$(grep -c "incomplete line \"half_a_li\" (no newline within 200 ms" err.txt)" 1
expect_eq "the last line without newline at stop: dropped with a warning" \
  "$(grep -c "incomplete line \"cut_at_stop\" (the last line had no newline when recording stopped); dropped" err.txt)" 1
expect_eq "the fragment ended by the next write's newline, with an escape in it: rejected" \
  "$(grep -c 'control character in label; mark ignored' err.txt)" 1
check "warnings never carry raw escapes" [ "$(grep -c $'\033' err.txt)" -eq 0 ]
done_testing
