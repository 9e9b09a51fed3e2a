#!/bin/bash
# read_once.sh — plot and export read their trace once (the rows go to
# their own output and to the windows' analysis in one pass), with the
# results of reading it several times: plot's range from a row later than
# the file's last lines, export's origin and host name from rows past the
# first ones it guesses from, the same bytes to a file, to standard output
# on a file and to a pipe (where the trace is measured before anything is
# written), nothing left by a trace that fails at its last line, the
# analysis's warnings only where its windows are used, and a warning about
# the trace said once.
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

# --- export: a MARK earlier than every row before it, past the first
# rows (export guesses the origin from those, and checks): it is time 0
"$HELPERS/gen_trace" --rows 6000 --windows 3 --out g.csv
gbegin=$(grep -m1 ',MARK,begin,' g.csv)
first=$(sed -n 2p g.csv | cut -d, -f1)
{ head -n 5000 g.csv
  echo "$gbegin" | sed 's/^[0-9]*,[0-9]*,/7,1699999000000000007,/; s/,begin,/,early,/'
  tail -n +5001 g.csv; } >early.csv
expect_status "export: an early MARK past the first rows" 0 "$FLINCH" export early.csv -o e.json
expect_eq "export: the early MARK at time 0" "$(grep -o '"name":"early","ph":"i","s":"p","pid":1000,"tid":1,"ts":[0-9.]*' e.json)" \
  '"name":"early","ph":"i","s":"p","pid":1000,"tid":1,"ts":0.000'
expect_eq "export: the first row from it" "$(grep -m1 -o '"name":"begin","ph":"i","s":"p","pid":1000,"tid":1,"ts":[0-9.]*' e.json | sed 's/.*"ts"://')" \
  "$(awk -v t="$first" 'BEGIN { printf "%.3f", (t - 7) / 1000 }')"
"$FLINCH" export early.csv -o - | cat >e_pipe.json
check "export: to a file (read once) as to a pipe (measured first)" cmp -s e.json e_pipe.json

# --- export: the recorder's host name past the first rows names the host
{ head -n 5000 g.csv
  echo "$gbegin" | sed 's/,MARK,begin,/,EVENT,flinch_host name=late-node driver=1,/'
  tail -n +5001 g.csv; } >host.csv
expect_status "export: a late host name" 0 "$FLINCH" export host.csv -o h.json
expect_eq "export: the host named by it" "$(grep -c '"args":{"name":"host CPU (late-node)"}' h.json)" 1
"$FLINCH" export host.csv -o - | cat >h_pipe.json
check "export: late host name, file as pipe" cmp -s h.json h_pipe.json

# --- export: an ordinary trace, to a file, to standard output on a file,
# to a pipe: the same bytes
"$FLINCH" export g.csv -o g1.json
"$FLINCH" export g.csv -o - >g2.json
"$FLINCH" export g.csv -o - | cat >g3.json
check "export: file and standard output on a file" cmp -s g1.json g2.json
check "export: file and pipe" cmp -s g1.json g3.json

# --- export: a trace whose last row is bad leaves nothing anywhere
{ cat g.csv; sed -n 3p g.csv | sed 's/,SAMPLE,,[0-9.]*,/,SAMPLE,,abc,/'; } >bad.csv
expect_status "export: bad last row, to a file" 2 "$FLINCH" export bad.csv -o bad.json
expect_eq "export: no file" "$(ls bad.json 2>/dev/null | wc -l)" 0
echo "before" >held.json
"$FLINCH" export bad.csv -o - >>held.json 2>err4.txt
expect_eq "export: standard output on a file cut back to where it stood" "$(cat held.json)" before
expect_eq "export: the reader's error" "$(grep -c "bad.csv:$(wc -l <bad.csv): column gpu_power_W: not a number: 'abc'" err4.txt)" 1
"$FLINCH" export bad.csv -o - >fresh.json 2>/dev/null
expect_eq "export: nothing on standard output on a new file" "$(wc -c <fresh.json)" 0
"$FLINCH" export bad.csv -o - 2>/dev/null | cat >pipe.json
expect_eq "export: nothing on a pipe" "$(wc -c <pipe.json)" 0

done_testing
