# reader_recordings.sh — issue 9, item 3 (readers): a file holding several
# recordings (`flinch record` appends) is read as its parts. They split only
# at the `begin` MARKs the recorder wrote itself (arrival_mono_ns empty); a
# window never spans two recordings; time may restart between them (a
# reboot) without "sample out of time order"; plot breaks its lines there.
. "$ROOT/tests/lib.sh"
FX="$ROOT/tests/fixtures"
W="$FX/flinch_windows.csv"     # 3 windows, one end before any start, one start never ended
A="--start infer_start --end first_token"

# the same recording appended 100 s later: its stray first_token (an end
# before any start) must not close the first recording's open infer_start
awk -F, -v OFS=, 'NR > 1 { $1 = sprintf("%.0f", $1 + 100000000000); if ($20 != "") $20 = sprintf("%.0f", $20 + 100000000000); print }' "$W" >later.csv
cat "$W" later.csv >two.csv
out=$("$FLINCH" analyze --csv two.csv $A 2>err.txt)
expect_eq "two recordings: exit 0" "$?" 0
expect_match "two recordings: 6 windows, none across the gap" \
  '^windows=6 unmatched_starts=2 unmatched_ends=2$' "$out"
expect_eq "two recordings: no warning" "$(cat err.txt)" ""

# time going back (a reboot): read, moved after the first, one warning
cat "$W" >back.csv
tail -n +2 "$W" >>back.csv
out=$("$FLINCH" analyze --csv back.csv $A 2>err.txt)
expect_eq "time restarts: exit 0" "$?" 0
expect_match "time restarts: 6 windows" '^windows=6 unmatched_starts=2 unmatched_ends=2$' "$out"
expect_eq "time restarts: one warning naming the line" "$(cat err.txt)" \
  "flinch analyze: warning: back.csv:43: recording 2 starts 3.000 s before the latest time of the one before it (the clock restarted: a reboot?); its times are read 4.000 s later, to follow it"
"$FLINCH" plot back.csv -o back.svg 2>err.txt
expect_eq "time restarts: plot exit 0" "$?" 0
expect_eq "time restarts: plot warns once" "$(grep -c 'recording 2 starts' err.txt)" 1
"$FLINCH" export -f perfetto back.csv -o back.json -q 2>err.txt
expect_eq "time restarts: export exit 0" "$?" 0

# plot: one polyline per series and recording, never a line across the gap
"$FLINCH" plot "$W" -o one.svg
"$FLINCH" plot two.csv -o two.svg
expect_eq "plot: lines broken at the second recording" \
  "$(grep -c '<polyline' two.svg)" "$(( 2 * $(grep -c '<polyline' one.svg) ))"

# a mark named begin sent by a user (arrival_mono_ns set) splits nothing
awk -F, -v OFS=, 'NR == 22 { print "11600000000,1790000011600000000,MARK,begin,,,,,,,,,,,,,,,,11600000000,,,," } { print }' "$W" >userbegin.csv
out=$("$FLINCH" analyze --csv userbegin.csv $A 2>err.txt)
expect_match "user's begin: the same 3 windows" '^windows=3 unmatched_starts=1 unmatched_ends=1$' "$out"
"$FLINCH" plot userbegin.csv -o ub.svg
expect_eq "user's begin: no break in the lines" "$(grep -c '<polyline' ub.svg)" "$(grep -c '<polyline' one.svg)"
done_testing
