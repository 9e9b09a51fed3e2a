# record_marks.sh — MARK rows through the FIFO: plain and client-stamped
# lines, CSV quoting of awkward labels, rejected labels, writers coming and
# going, and the original analyze_trace.py reading a flinch trace.
. "$ROOT/tests/lib.sh"

FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" "$FLINCH" record --out marks.csv --seconds 0 \
  --interval-ms 10 --nvml-lib "$SIM" --no-rapl --marks-fifo "$T/fifo" 2>err.txt &
rec=$!
i=0; while ! grep -q ',MARK,"begin",' marks.csv 2>/dev/null && [ $i -lt 500 ]; do sleep 0.01; i=$((i+1)); done

now=$("$HELPERS/simtool" now)
start=$((now + 100000000)); end=$((start + 724000000))
before=$("$HELPERS/simtool" now)
echo plain > fifo                       # one writer, then it disconnects
after=$("$HELPERS/simtool" now)
printf 'infer_start\t%s\n' "$start" > fifo
printf 'first_token\t%s\n' "$end" > fifo
printf '%s\n' 'a,b' 'say "hi"' '  padded  ' 'two words' > fifo
long=$(head -c 300 /dev/zero | tr '\0' x)
printf '%s\n' "$long" > fifo
printf 'bell\007x\n' > fifo
printf 'bad\tstamp\n' > fifo
printf '\n' > fifo                      # blank: ignored silently
echo after_rejects > fifo
sleep 0.3
kill -TERM $rec; wait $rec
expect_eq "recorder exits 0 after SIGTERM" "$?" 0

label_of() { awk -F, -v l="\"$1\"" '$3 == "MARK" && $4 == l { print; exit }' marks.csv; }
row=$(label_of plain)
check "plain mark recorded" test -n "$row"
t=$(echo "$row" | cut -d, -f1); arr=$(echo "$row" | cut -d, -f20)
expect_eq "plain mark: t_mono_ns is its arrival time" "$t" "$arr"
check "plain mark stamped between write start and end (+50 ms)" test "$t" -ge "$before" -a "$t" -le $((after + 50000000))
expect_eq "stamped mark keeps the client's time" "$(label_of infer_start | cut -d, -f1)" "$start"
expect_eq "stamped mark keeps the client's time (2)" "$(label_of first_token | cut -d, -f1)" "$end"
arr=$(label_of infer_start | cut -d, -f20)
check "stamped mark records its arrival time too" test "$arr" -ge "$now"
expect_eq "MARK rows have empty GPU cells" "$(label_of plain | cut -d, -f5-19 | tr -d ,)" ""

expect_eq "label with comma quoted" "$(grep -c '^[0-9]*,[0-9]*,MARK,"a,b",' marks.csv)" 1
expect_eq "label with quotes doubled" "$(grep -c '^[0-9]*,[0-9]*,MARK,"say ""hi""",' marks.csv)" 1
expect_eq "label with inner space: quoted like every label" "$(grep -c '^[0-9]*,[0-9]*,MARK,"two words",' marks.csv)" 1
expect_eq "padded label stripped like the original" "$(grep -c ',MARK,"padded",' marks.csv)" 1
expect_eq "overlong label rejected" "$(grep -c xxxxxxxxxx marks.csv)" 0
expect_eq "control character label rejected" "$(grep -c bell marks.csv)" 0
expect_eq "bad stamp rejected" "$(grep -c ',MARK,"bad' marks.csv)" 0
expect_eq "marks after the rejects still recorded" "$(grep -c ',MARK,"after_rejects",' marks.csv)" 1
expect_eq "three warnings, one per rejected line" "$(grep -c '^flinch record: warning: marks FIFO ' err.txt)" 3
expect_match "overlong warning" "marks FIFO $T/fifo: label longer than 256 bytes; mark ignored" "$(cat err.txt)"
expect_match "control char warning" "control character in label; mark ignored" "$(cat err.txt)"
expect_eq "CSV intact: every line has 46 cells" \
  "$(awk -F, '$4 !~ /^"/ {print NF}' marks.csv | sort -u)" 46
expect_eq "MARK rows: 2 + 8 accepted" "$(grep -c ',MARK,' marks.csv)" 10
# first_token is stamped 0.8 s ahead: record lingers after `end` for the
# counter updates after it (SAMPLE rows only), so `end` is the last MARK
expect_eq "end mark last" "$(grep ',MARK,' marks.csv | tail -n 1 | cut -d, -f3,4)" 'MARK,"end"'
check "FIFO left in place, as the original did" test -p fifo

# The original analyzer reads a flinch trace and gets the exact duration.
if command -v python3 >/dev/null 2>&1; then
  out=$(python3 "$ROOT/tests/fixtures/analyze_trace.py" --csv marks.csv --start infer_start --end first_token 2>&1)
  expect_eq "original analyze_trace.py: duration" "$(echo "$out" | head -n 1)" "duration_s=0.724000"
  expect_match "original analyze_trace.py: energy line" "^gpu_energy_J≈[0-9.]+  # trapezoid over [0-9]+ samples" "$out"
  out=$(python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
print(sorted(r["label"] for r in rows if r["row_type"] == "MARK" and ("," in r["label"] or "\"" in r["label"])))
' marks.csv)
  expect_eq "python csv module reads the quoted labels back" "$out" "['a,b', 'say \"hi\"']"
else
  skip "original analyze_trace.py: duration" "python3 missing"
  skip "python csv module reads the quoted labels back" "python3 missing"
fi

# A flood of bad lines (issue 26, item 17): the first 10 warnings of a kind
# are printed, the rest counted in one line when the FIFO closes; every good
# mark after them is kept.
FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" "$FLINCH" record --out flood.csv --seconds 0 \
  --interval-ms 10 --nvml-lib "$SIM" --no-rapl --marks-fifo "$T/ffifo" 2>ferr.txt &
rec=$!
wait_for 500 grep -q ',MARK,"begin",' flood.csv
awk 'BEGIN { for (i = 0; i < 5000; i++) printf "bell\007%d\n", i; print "after_flood" }' > ffifo
wait_for 500 grep -q after_flood flood.csv
kill -TERM $rec; wait $rec
expect_eq "flood: recorder exits 0" "$?" 0
expect_eq "flood: 10 warnings printed" "$(grep -c 'control character in label; mark ignored' ferr.txt)" 10
expect_eq "flood: the rest counted in one line" \
  "$(grep 'suppressed' ferr.txt)" "flinch record: warning: $T/ffifo: 4990 more warnings like this suppressed"
expect_eq "flood: stderr stays short" "$(wc -l < ferr.txt)" 11
expect_eq "flood: the good mark after it kept" "$(grep -c ',MARK,"after_flood",' flood.csv)" 1

done_testing
