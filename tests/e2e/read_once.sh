#!/bin/bash
# read_once.sh — plot reads its trace once (the rows go to its lines and
# to the windows' analysis in one pass), with the results of reading it
# several times: the range from a row later than the file's last lines,
# the analysis's warnings only where its windows are used, and a warning
# about the trace said once.
. "$ROOT/tests/lib.sh"
FIX=$ROOT/tests/fixtures/plot_2gpu.csv

# --- plot: a MARK later than every other row, in the middle of the file:
# the axis reaches it, as --to at its time gives
begin=$(grep -m1 ',MARK,begin,' "$FIX")
{ head -n 30 "$FIX"
  echo "$begin" | sed 's/^5000000000,1700000005000000000,/12000000000,1700000012000000000,/; s/,begin,/,late,/'
  tail -n +31 "$FIX"; } >late.csv
expect_status "plot: a late MARK mid-file" 0 "$FLINCH" plot late.csv -o a.svg
expect_status "plot: the same with --to at its time" 0 "$FLINCH" plot late.csv -o b.svg --to 7
check "plot: the range reaches the late MARK (as --to 7)" cmp -s a.svg b.svg
expect_eq "plot: the late MARK drawn" "$(grep -o '<text[^>]*class="mlabel"[^>]*>late' a.svg | wc -l)" 1

# --- plot: a truncated last line is warned about once
head -c "$(( $(wc -c <"$FIX") - 40 ))" "$FIX" >cut.csv
expect_status "plot: truncated last line" 0 "$FLINCH" plot cut.csv -o c.svg
"$FLINCH" plot cut.csv -o c.svg 2>err1.txt
expect_eq "plot: the truncated line warned about once" "$(grep -c 'truncated last line ignored' err1.txt)" 1

# --- plot: the analysis's warnings (persistence off) only with windows
{ head -n 2 "$FIX"
  echo "$begin" | sed 's/,MARK,begin,/,EVENT,flinch_gpu index=0 name=X persistence=off,/'
  tail -n +3 "$FIX"; } >pers.csv
sed '/,MARK,infer_start,/d; /,MARK,first_token,/d' pers.csv >pers_nolabels.csv
"$FLINCH" plot pers.csv -o p.svg 2>err2.txt
expect_eq "plot with windows: the persistence warning, once" "$(grep -c 'persistence mode off' err2.txt)" 1
"$FLINCH" plot pers_nolabels.csv -o q.svg 2>err3.txt
expect_eq "plot without windows: no persistence warning" "$(grep -c 'persistence mode off' err3.txt)" 0
expect_eq "plot without windows: the no-windows warning" "$(grep -c 'no windows drawn' err3.txt)" 1

done_testing
