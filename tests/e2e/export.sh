#!/bin/bash
# export.sh — `flinch export --format perfetto`: exact events from the
# fixtures (processes, counters, marks, windows), two hosts aligned on
# t_wall_ns, JSON validity for hostile labels, and usage errors.
. "$ROOT/tests/lib.sh"
FIX=$ROOT/tests/fixtures/plot_2gpu.csv
HB=$ROOT/tests/fixtures/host_b.csv

valid_json() { # NAME FILE
  expect_eq "$1 (jsoncheck)" "$("$HELPERS/jsoncheck" "$2")" valid
  if command -v python3 >/dev/null 2>&1; then
    check "$1 (python3 -m json.tool)" sh -c 'python3 -m json.tool "$1" >/dev/null' _ "$2"
  else
    skip "$1 (python3 -m json.tool)" "python3 not installed"
  fi
}

expect_status "export fixture" 0 "$FLINCH" export --format perfetto "$FIX" -o a.json -q
valid_json "export is valid JSON" a.json
expect_eq "document frame" "$(head -c 16 a.json)|$(tail -n 1 a.json)" '{"traceEvents":[|],"displayTimeUnit":"ms"}'
expect_eq "process names" "$(grep '"process_name"' a.json)" \
'{"name":"process_name","ph":"M","pid":1000,"tid":0,"args":{"name":"host CPU (plot_2gpu)"}},
{"name":"process_name","ph":"M","pid":1001,"tid":0,"args":{"name":"GPU 0 (plot_2gpu)"}},
{"name":"process_name","ph":"M","pid":1002,"tid":0,"args":{"name":"GPU 1 (plot_2gpu)"}},'
expect_eq "no pid 0" "$(grep -c '"pid":0,' a.json)" 0
expect_eq "thread names" "$(grep -o '"thread_name".*' a.json | grep -o '"name":"[a-z]*"}' | tr '\n' ' ')" \
  '"name":"marks"} "name":"windows"} "name":"events"} '
expect_eq "GPU 0 counters at t=0" "$(grep '"pid":1001,"tid":0,"ts":0.000,' a.json | grep -o '"name":"[^"]*".*"args":{[^}]*}' | sed 's/"ph.*"args"://' | tr '\n' ' ')" \
  '"name":"power instant",{"W":75} "name":"power 1 s average",{"W":75} "name":"utilization",{"%":0} "name":"memory utilization",{"%":0} "name":"SM clock",{"MHz":345} "name":"memory used",{"MiB":70000} "name":"temperature",{"C":40} '
expect_eq "counters only on change: GPU 0 power instant" \
  "$(grep '"power instant","ph":"C","pid":1001' a.json | grep -o '"ts":[0-9.]*,"args":{"W":[0-9]*}' | tr '\n' ' ')" \
  '"ts":0.000,"args":{"W":75} "ts":1000000.000,"args":{"W":612} "ts":1700000.000,"args":{"W":75} '
expect_eq "GPU 1 clock (ts offset 1 us)" "$(grep '"SM clock","ph":"C","pid":1002' a.json)" \
  '{"name":"SM clock","ph":"C","pid":1002,"tid":0,"ts":1.000,"args":{"MHz":345}},'
expect_eq "host CPU counter" "$(grep '"CPU busy"' a.json | grep -o '"ts":[0-9.]*,"args":{[^}]*}' | tr '\n' ' ')" \
  '"ts":0.000,"args":{"%":10} "ts":2500000.000,"args":{"%":90} "ts":2600000.000,"args":{"%":10} '
expect_eq "process CPU counter" "$(grep '"process CPU"' a.json)" \
  '{"name":"process CPU","ph":"C","pid":1000,"tid":0,"ts":100000.000,"args":{"cores":0.5}},'
expect_eq "marks as instant events" "$(grep '"ph":"i"' a.json | sed 's/,"ph":"i","s":"p","pid":1000,"tid":1//' | tr '\n' ' ')" \
  '{"name":"begin","ts":0.000,"args":{"line":2}}, {"name":"infer_start","ts":950000.001,"args":{"line":23}}, {"name":"first_token","ts":1650000.001,"args":{"line":38}}, {"name":"a<b&\"c\"","ts":1950000.001,"args":{"line":45}}, {"name":"end","ts":3000000.001,"args":{"line":68}}, '
expect_eq "window as a complete event" "$(grep '"ph":"X"' a.json)" \
  '{"name":"infer_start→first_token","cat":"window","ph":"X","pid":1000,"tid":2,"ts":950000.001,"dur":700000.000,"args":{"window":1,"verdict":"compute","energy_J":450.5499995,"uncertainty_J":43.506,"mean_power_W":643.6428564,"duration_s":0.7,"evidence":"100% compute (700 ms), edges +-66 ms; power 574 W = idle 75 W + 93% of the busy range (gpu 0); gpu util 94%; gpus: gpu 0 computes 700 ms, the others 0 ms at most and wait (a straggler); cpu 10%; process 0.50 cores"}},
{"name":"compute","cat":"segment","ph":"X","pid":1000,"tid":2,"ts":950000.001,"dur":700000.000,"args":{"window":1,"resolution_ms":65.96648045}}'
expect_status "export --no-windows" 0 "$FLINCH" export -f perfetto "$FIX" -o nw.json -q --no-windows
expect_eq "no complete events" "$(grep -c '"ph":"X"' nw.json)" 0
expect_status "export --start/--end" 0 "$FLINCH" export -f perfetto "$FIX" -o se.json -q --start first_token --end 'a<b&"c"'
expect_eq "explicit window name escaped" "$(grep -o '"name":"first_token→a<b&\\"c\\"","cat":"window","ph":"X","pid":1000,"tid":2,"ts":1650000.001,"dur":300000.000' se.json | wc -l)" 1

# two hosts aligned on t_wall_ns
err=$("$FLINCH" export -f perfetto "$FIX" nodeB="$HB" -o two.json 2>&1); st=$?
expect_eq "two hosts: offsets reported" "$st: $err" "0: flinch export: host plot_2gpu: $FIX: clock offset t_wall_ns - t_mono_ns = 1700000000000000000 ns (median of 67 rows, spread 0 ns)
flinch export: host nodeB: $HB: clock offset t_wall_ns - t_mono_ns = 1699999105500000000 ns (median of 66 rows, spread 0 ns)"
valid_json "two-host export is valid JSON" two.json
expect_eq "second host's processes" "$(grep '"process_name"' two.json | grep -o '"pid":[0-9]*,"tid":0,"args":{"name":"[^"]*"' | tr '\n' ' ')" \
  '"pid":1000,"tid":0,"args":{"name":"host CPU (plot_2gpu)" "pid":1001,"tid":0,"args":{"name":"GPU 0 (plot_2gpu)" "pid":1002,"tid":0,"args":{"name":"GPU 1 (plot_2gpu)" "pid":2000,"tid":0,"args":{"name":"host CPU (nodeB)" "pid":2001,"tid":0,"args":{"name":"GPU 0 (nodeB)" "pid":2002,"tid":0,"args":{"name":"GPU 1 (nodeB)" '
# nodeB starts 0.5 s later on the wall clock: its infer_start is at 0.5 + 0.950000001 s
expect_eq "second host aligned on the wall clock" "$(grep '"infer_start","ph":"i","s":"p","pid":2000' two.json)" \
  '{"name":"infer_start","ph":"i","s":"p","pid":2000,"tid":1,"ts":1450000.001,"args":{"line":23}},'
expect_eq "second host's window" "$(grep '"cat":"window"' two.json | grep -o '"ph":"X","pid":2000,"tid":2,"ts":[0-9.]*,"dur":[0-9.]*')" \
  '"ph":"X","pid":2000,"tid":2,"ts":1450000.001,"dur":700000.000'
expect_eq "order of files does not move the origin" \
  "$("$FLINCH" export -f perfetto nodeB="$HB" "$FIX" -o - -q | grep -o '"begin","ph":"i","s":"p","pid":[0-9]*,"tid":1,"ts":[0-9.]*' | tr '\n' ' ')" \
  '"begin","ph":"i","s":"p","pid":1000,"tid":1,"ts":500000.000 "begin","ph":"i","s":"p","pid":2000,"tid":1,"ts":0.000 '

# The timeline starts at the trace's first row (ts 0): thread states the
# sampler saw before it (its session began 200 ms earlier) are cut there,
# one wholly before it is left out.
cp "$FIX" th.csv
printf '%s\n' 'flinch-threads 1' 'B 4800000000 root=7 interval_ms=100 arch=x86_64' \
  'S 4850000000' 'N 7 7 early' 'T 7 S - clock_nanosleep -' 'N 8 8 gone' 'T 8 R - - -' \
  'S 4950000000' 'X 8' 'S 5100000000' 'T 7 R - - -' 'S 5200000000' \
  'E 5200000001 cpu_ns=1 sweeps=4' > th.csv.threads
expect_status "export with early thread states" 0 "$FLINCH" export th.csv -o th.json --no-windows
expect_eq "thread states from ts 0" "$(grep '"cat":"thread"' th.json | grep -o '"tid":[0-9]*,"ts":[0-9.]*,"dur":[0-9.]*' | tr '\n' ' ')" \
  '"tid":7,"ts":0.000,"dur":25000.000 "tid":7,"ts":25000.000,"dur":175000.000 '
expect_eq "no event before the first row" "$(grep -c '"ts":-' th.json)" 0

# hostile labels: quotes, backslashes, control characters, UTF-8, invalid bytes
{ head -n 30 "$FIX"
  printf '5990000000,1700000005990000000,MARK,"q""uote\\back\tslash\001ctl caf\303\251 \342\206\222 bad\377",,,,,,,,,,,,,,,,,,,\n'
  tail -n +31 "$FIX"; } > hostile.csv
expect_status "export hostile labels" 0 "$FLINCH" export -f perfetto hostile.csv -o h.json -q
valid_json "hostile labels stay valid JSON" h.json
expect_eq "hostile label escaped" "$(grep -c '"name":"q\\"uote\\\\back\\tslash\\u0001ctl café → bad�"' h.json)" 1
expect_status "plot hostile labels" 0 "$FLINCH" plot hostile.csv -o h.svg
if command -v xmllint >/dev/null 2>&1; then
  check "hostile labels: svg well-formed" xmllint --noout h.svg
else
  skip "hostile labels: svg well-formed" "xmllint not installed"
fi

# errors
# --format perfetto is the default; one trace has no clock offset to report
err=$("$FLINCH" export "$FIX" -o nf.json 2>&1); st=$?
expect_eq "no --format: perfetto, no offset line" "$st: $err" "0: "
expect_eq "no --format: same JSON" "$(cmp a.json nf.json && echo same)" same
err=$("$FLINCH" export -f chrome "$FIX" -o x.json 2>&1); st=$?
expect_eq "unknown format" "$st: $err" "2: flinch export: unknown --format 'chrome' (known: perfetto)"
err=$("$FLINCH" export -f perfetto "$FIX" "$FIX" -o x.json 2>&1); st=$?
expect_eq "same host twice" "$st: $err" "2: flinch export: $FIX and $FIX are both host 'plot_2gpu' (name them: HOST=PATH)"
cut -d, -f1,3- "$FIX" | sed '1s/^t_mono_ns/t_mono_ns/' > nowall.csv
err=$("$FLINCH" export -f perfetto "$FIX" nowall.csv -o x.json 2>&1); st=$?
expect_eq "no wall clock on a second host" "$st: $err" "2: flinch export: nowall.csv: no t_wall_ns values: cannot align it with the other hosts"
err=$("$FLINCH" export -f perfetto "$FIX" -o x.json -q --start nope --end never 2>&1); st=$?
expect_eq "labels in no trace" "$st: $err" "2: flinch export: no trace has both 'nope' and 'never' MARKs (labels seen: begin, infer_start, first_token, a<b&\"c\", end)"
grep -v ',MARK,' "$FIX" > nomarks.csv
err=$("$FLINCH" export nomarks.csv -o x.json --start nope --end never 2>&1); st=$?
expect_eq "labels in no trace, no marks" "$st: $err" "2: flinch export: no trace has both 'nope' and 'never' MARKs (no MARK rows at all)"
expect_eq "no JSON left on error" "$(ls x.json 2>/dev/null)" ""
err=$("$FLINCH" export -f perfetto "$FIX" -o x.json --end first_token 2>&1); st=$?
expect_eq "--end alone" "$st: $err" "2: flinch export: --start and --end go together (see --help)"
err=$("$FLINCH" export -f perfetto "$FIX" -o x.json --no-windows --start a --end b 2>&1); st=$?
expect_eq "--no-windows with labels" "$st: $err" "2: flinch export: --no-windows contradicts --start/--end"
err=$("$FLINCH" export -f perfetto 'a:b.csv' -o x.json 2>&1); st=$?
expect_eq "host name with a colon" "$st: $err" "2: flinch export: 'a:b.csv': host name 'a:b' may not hold ':', '=' or control characters (use HOST=PATH)"
check "--help lists every flag" sh -c '"$1" export --help | grep -q -- --no-windows && "$1" export --help | grep -q -- --quiet' _ "$FLINCH"
done_testing
