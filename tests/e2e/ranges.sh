# ranges.sh — the mark-line protocol's third field (range attributes): the
# mark_attrs column, dropped-mark reports as EVENT rows, and analyze / plot /
# export pairing ranges by id where pairing by order is wrong (nested ranges
# of one name, ranges overlapping across threads).
. "$ROOT/tests/lib.sh"

FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" "$FLINCH" record --out r.csv --seconds 0 \
  --interval-ms 10 --nvml-lib "$SIM" --no-rapl --marks-fifo "$T/fifo" 2>err.txt &
rec=$!
i=0; while ! grep -q ',MARK,"begin",' r.csv 2>/dev/null && [ $i -lt 500 ]; do sleep 0.01; i=$((i+1)); done

t0=$(( $("$HELPERS/simtool" now) + 50000000 ))
ms() { echo $((t0 + $1 * 1000000)); }
{
  # two requests overlapping across threads: A 0..500 ms, B 100..300 ms
  printf 'request\t%s\tstart=7.1 tid=11 domain=srv\n' "$(ms 0)"
  printf 'request\t%s\tstart=7.2 tid=12 domain=srv\n' "$(ms 100)"
  printf 'request\t%s\tend=7.2 tid=13 domain=srv\n' "$(ms 300)"
  printf 'request\t%s\tend=7.1 tid=14 domain=srv\n' "$(ms 500)"
  # one name nested in itself on one thread: outer 0..600, inner 10..60
  printf 'step\t%s\tstart=7.3 tid=11\n' "$(ms 0)"
  printf 'step\t%s\tstart=7.4 tid=11\n' "$(ms 10)"
  printf 'step\t%s\tend=7.4 tid=11\n' "$(ms 60)"
  printf 'step\t%s\tend=7.3 tid=11\n' "$(ms 600)"
  # four ranges that end in another order than they start (C, D, B, A):
  # the windows are reported in start order all the same
  printf 'job\t%s\tstart=9.1\n' "$(ms 0)"
  printf 'job\t%s\tstart=9.2\n' "$(ms 100)"
  printf 'job\t%s\tstart=9.3\n' "$(ms 200)"
  printf 'job\t%s\tend=9.3\n' "$(ms 230)"
  printf 'job\t%s\tstart=9.4\n' "$(ms 400)"
  printf 'job\t%s\tend=9.4\n' "$(ms 440)"
  printf 'job\t%s\tend=9.2\n' "$(ms 600)"
  printf 'job\t%s\tend=9.1\n' "$(ms 650)"
  # the same name in another domain, and a plain mark with attributes
  printf 'request\t%s\tstart=8.1 domain=other\n' "$(ms 700)"
  printf 'request\t%s\tend=8.1 domain=other\n' "$(ms 710)"
  printf 'note\t%s\ttid=11 domain=srv\n' "$(ms 20)"
  printf 'nvtx pid=7 reason=rate\t%s\tdropped=1234\n' "$(ms 30)"
  printf 'bad\t%s\tstart=a b\n' "$(ms 40)"
  printf 'old_style\t%s\n' "$(ms 50)"
} > fifo
sleep 0.9
kill -TERM $rec; wait $rec
expect_eq "recorder exits 0" "$?" 0

attrs_of() { awk -F, -v l="\"$1\"" -v n="$2" '$3 == "MARK" && $4 == l && ++k == n { print $24 }' r.csv; }
expect_eq "mark_attrs: start, tid, domain in canonical form" "$(attrs_of request 1)" "start=7.1 tid=11 domain=srv"
expect_eq "mark_attrs: end on another thread" "$(attrs_of request 3)" "end=7.2 tid=13 domain=srv"
expect_eq "mark_attrs: plain mark with thread and domain" "$(attrs_of note 1)" "tid=11 domain=srv"
expect_eq "mark_attrs: empty for an old-style line" "$(attrs_of old_style 1)" ""
expect_eq "mark_attrs: empty for the recorder's begin" "$(attrs_of begin 1)" ""
expect_eq "dropped report is an EVENT row, not a MARK" \
  "$(awk -F, '$3 == "EVENT" && $4 ~ /^"marks_dropped/ { print $1 "," $4 }' r.csv)" \
  "$(ms 30),\"marks_dropped count=1234 nvtx pid=7 reason=rate\""
expect_eq "bad attributes rejected, warned" "$(grep -c ',MARK,"bad",' r.csv),$(grep -c 'attributes after the second tab' err.txt)" "0,1"

win() { "$FLINCH" analyze --csv r.csv --format csv "$@" | awk -F, 'NR > 1 { print $2 ":" $8 }' | tr '\n' ' '; }
expect_eq "--range pairs overlapping requests by id" "$(win --range request --domain srv)" \
  "request:0.500000 request:0.200000 "
expect_eq "--range without --domain: every domain" "$(win --range request)" \
  "request:0.500000 request:0.200000 request:0.010000 "
expect_eq "--range pairs nested same-name ranges by id" "$(win --range step)" \
  "step:0.600000 step:0.050000 "
expect_eq "ranges ending out of order: numbered and listed in start order" \
  "$("$FLINCH" analyze --csv r.csv --format csv --range job | awk -F, 'NR > 1 { print $1 ":" $8 }' | tr '\n' ' ')" \
  "1:0.650000 2:0.500000 3:0.030000 4:0.040000 "
expect_eq "--domain '': the default domain only" "$(win --range step --domain '')" \
  "step:0.600000 step:0.050000 "
expect_eq "--domain '' excludes named domains" "$("$FLINCH" analyze --csv r.csv --range request --domain '' 2>&1 >/dev/null)" \
  "flinch analyze: no window in r.csv: no MARK 'request' in domain '' opens a range (start=ID) that a later end=ID closes (--range pairs by the mark_attrs column; plain marks need --start/--end)"
expect_eq "pairing by order gets the overlapping requests wrong (why ids)" \
  "$(win --start request --end request | cut -d' ' -f1-2)" "request:0.100000 request:0.200000"
expect_status "--range with --start refused" 2 "$FLINCH" analyze --csv r.csv --range request --start a 2>/dev/null
expect_status "--domain without --range refused" 2 "$FLINCH" analyze --csv r.csv --start a --end b --domain x 2>/dev/null

sed 's/,start=7.1 tid=11 domain=srv,/,start=7.1 colour=red,/' r.csv > bad.csv
line=$(grep -n 'colour=red' bad.csv | cut -d: -f1)
expect_eq "malformed mark_attrs cell: file, line, column" "$("$FLINCH" analyze --csv bad.csv --range request 2>&1)" \
  "flinch analyze: bad.csv:$line: column mark_attrs: not start=ID, end=ID, tid=N, domain=NAME, category=NAME or payload=NUMBER: 'start=7.1 colour=red'"

"$FLINCH" plot r.csv -o r.svg --range request --domain srv 2>/dev/null
expect_eq "plot --range shades the two requests" \
  "$(grep -o '<title>window [0-9]*: request→request: [0-9.]* s' r.svg | tr '\n' ' ')" \
  "<title>window 1: request→request: 0.500 s <title>window 2: request→request: 0.200 s "
"$FLINCH" export --format perfetto -o r.json -q r.csv --range step 2>/dev/null
expect_eq "export --range: two step windows" "$(grep -o '"name":"step[^"]*"' r.json | grep -c '\u2192\|→')" 2

if command -v python3 >/dev/null 2>&1; then
  out=$(python3 "$ROOT/tests/fixtures/analyze_trace.py" --csv r.csv --start note --end old_style 2>&1)
  expect_eq "original analyze_trace.py reads a trace with mark_attrs" "$(echo "$out" | head -n 1)" "duration_s=0.030000"
else
  skip "original analyze_trace.py reads a trace with mark_attrs" "python3 missing"
fi

# --range across several traces (HOST=PATH): refused, saying why and what to do instead
cp r.csv r2.csv
"$FLINCH" analyze --csv a=r.csv --csv b=r2.csv --range request >/dev/null 2>err.txt
expect_eq "--range with two traces: exit 2 and the way out" "$?:$(cat err.txt)" \
  "2:flinch analyze: --range pairs the ranges of one trace, and 2 were given: analyze each trace alone, or use --start HOST:LABEL --end HOST:LABEL across traces"
"$FLINCH" analyze --csv r.csv --range request --method seed >/dev/null 2>err.txt
expect_eq "--range with --method seed: exit 2" "$?:$(cat err.txt)" "2:flinch analyze: --range works with --method exact only"

done_testing
