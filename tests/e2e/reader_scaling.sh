# reader_scaling.sh — issue 26 (items 4, 14, 15, 17): readers stay linear
# and bounded on big or hostile inputs.
#  - a threads file of many threads appearing in descending tid order
#    (the sorted live list moved its tail per thread: 104 s for 100,000)
#    is read by export, plot and analyze in time linear in its lines;
#  - a T line whose state is not a Linux thread state is skipped with a
#    warning naming file and line, and export writes valid JSON;
#  - repeated warnings are cut to DIAG_REPEAT_SHOWN plus one summary line;
#  - an original 10-column trace (no host cells, no energy counter) no
#    longer holds every window pending to the end (quadratic).
# Times are compared as N against 4N (linear: about 4x; quadratic: 16x),
# with a generous absolute bound, so a loaded machine does not fail them.
. "$ROOT/tests/lib.sh"
"$HELPERS/gen_trace" --rows 200 --windows 1 --out t.csv

# gen_threads N OUT: N threads named w<tid>, tids N..1, each with a state,
# half of them gone at the second sweep.
gen_threads() {
  awk -v n="$1" 'BEGIN {
    print "flinch-threads 1"; print "B 1000000000000 root=1 interval_ms=10 arch=x86_64"
    print "S 1000000000000"
    for (i = n; i >= 1; i--) print "N " i " 1 w" i
    for (i = n; i >= 1; i--) print "T " i " S futex_wait_queue futex -"
    print "S 1001000000000"
    for (i = n; i >= 1; i--) if (i % 2) print "X " i
    print "S 1001500000000"
    print "E 1001500000000 cpu_ns=1 sweeps=3" }' >"$2"
}

# cpu_ms VAR CMD...: the command's user + system CPU time in ms into VAR
# (the children's times of this shell), its exit status in $st.
children_ticks() { read -r -a f </proc/$$/stat; echo $(( f[15] + f[16] )); }
cpu_ms() {
  local var=$1 s0; shift
  s0=$(children_ticks)
  "$@" >/dev/null 2>>err.txt; st=$?
  printf -v "$var" '%s' $(( ($(children_ticks) - s0) * 1000 / $(getconf CLK_TCK) ))
}
# linear NAME MS_N MS_4N: at most ~8x for 4x the input (quadratic is 16x),
# or both small (timer resolution).
linear() {
  if [ "$3" -le 400 ] || [ "$3" -le $(( 8 * $2 + 100 )) ]; then ok "$1 ($2 ms, then $3 ms for 4x)"
  else notok "$1: $2 ms, then $3 ms for 4x (quadratic?)"; fi
}

n=${SCALE_THREADS:-20000}
for k in 1 4; do
  gen_threads $((n * k)) t.csv.threads
  cpu_ms "ex[$k]" timeout 120 "$FLINCH" export --format perfetto t.csv -o t$k.json
  expect_eq "export of $((n * k)) threads: exit 0" "$st" 0
  cpu_ms "pl[$k]" timeout 120 "$FLINCH" plot t.csv -o t$k.svg
  expect_eq "plot of $((n * k)) threads: exit 0" "$st" 0
done
linear "export: threads file read in linear time" "${ex[1]}" "${ex[4]}"
linear "plot: threads file read in linear time" "${pl[1]}" "${pl[4]}"
tracks=$(grep -o '"thread_name"' t4.json | wc -l)
expect_eq "export: one track per thread (plus the GPU's)" "$((tracks >= 4 * n))" 1

# a state byte outside proc(5)'s list ('\' made invalid JSON): skipped, warned
gen_threads 3 t.csv.threads
sed -i 's/^T 2 S /T 2 \\ /; s/^T 1 S /T 1 Q /' t.csv.threads
"$FLINCH" export --format perfetto t.csv -o bad.json 2>err.txt
expect_eq "bad state: export exit 0" "$?" 0
check "bad state: export writes valid JSON" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' bad.json
expect_match "bad state: warning names file and line" \
  "t\.csv\.threads:8: state '\\\\x5c' is not a Linux thread state" "$(cat err.txt)"
expect_match "bad state: the other one too" "t\.csv\.threads:9: state 'Q'" "$(cat err.txt)"
expect_eq "bad state: only the valid state in spans" \
  "$(grep -o '"state":"[^"]*"' bad.json | sort -u)" '"state":"S"'

# a flood of bad lines: the first DIAG_REPEAT_SHOWN (10) printed, then one summary
awk 'BEGIN { print "flinch-threads 1"; print "B 1000000000000 root=1 interval_ms=10 arch=x86_64"
  print "S 1000000000000"; print "N 7 1 w"
  for (i = 0; i < 5000; i++) print "T 7 ? a b c"
  print "E 1001000000000 cpu_ns=1 sweeps=1" }' >t.csv.threads
"$FLINCH" export --format perfetto t.csv -o flood.json 2>err.txt
expect_eq "flood: export exit 0" "$?" 0
expect_eq "flood: 10 warnings and one summary" "$(grep -c 'not a Linux thread state' err.txt) $(grep -c 'warning:' err.txt)" "10 11"
expect_match "flood: the summary counts the rest" \
  "flinch export: warning: t\.csv\.threads: 4990 more warnings like this suppressed" "$(cat err.txt)"
rm -f t.csv.threads

# an original 10-column trace without RAPL: windows resolve as rows come
w=${SCALE_WINDOWS:-1000}
for k in 1 4; do
  "$HELPERS/gen_trace" --rows $((w * k * 20)) --windows $((w * k)) --original --no-rapl --out o$k.csv
  cpu_ms "an[$k]" timeout 120 "$FLINCH" analyze --start infer_start --end first_token --csv o$k.csv
  expect_eq "original trace, $((w * k)) windows: exit 0" "$st" 0
done
linear "original trace without host cells: analyze in linear time" "${an[1]}" "${an[4]}"
"$FLINCH" analyze --start infer_start --end first_token --csv o1.csv --format csv >o1.out 2>/dev/null
expect_eq "original trace: every window" "$(($(wc -l <o1.out) - 1))" "$w"

# start marks that never close: each cost 37 KB (a point per possible GPU);
# 10,000 of them took 370 MB, now a few KB each (the window record)
"$HELPERS/gen_trace" --rows 2000 --windows 1 --out base.csv
awk -F, -v n=10000 'NR == 1 { print; next }
  $3 == "MARK" && $4 == "infer_start" { tmpl = $0 }
  { print }
  $3 == "MARK" && $4 == "first_token" { after = 1; next }
  after && $3 == "SAMPLE" && done < n {
    split(tmpl, f, ","); f[1] = $1; f[2] = $2
    for (j = 0; j < 8 && done < n; j++) {
      s = f[1]; for (i = 2; i <= length(f); i++) s = s "," f[i]; print s; done++ } }' base.csv >open.csv
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f '%M' -o rss.txt "$FLINCH" analyze --start infer_start --end first_token \
    --csv open.csv >open.out 2>/dev/null
  expect_eq "10,000 open starts: exit 0" "$?" 0
  expect_match "10,000 open starts: all unmatched" "unmatched_starts=10000" "$(cat open.out)"
  rss=$(tail -1 rss.txt)
  if [ "$rss" -lt 120000 ]; then ok "10,000 open starts: $rss KB"
  else notok "10,000 open starts: $rss KB (over 120 MB: tens of KB each)"; fi
else
  skip "10,000 open starts: memory" "no /usr/bin/time"
fi

[ "$fails" -eq 0 ]
