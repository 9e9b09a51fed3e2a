# answer_first.sh — issue 22: the answer first. Line 4 is window 1's answer
# line with its confidence (exact text for each verdict and each grade), one
# per window with --windows (at most 20), the summary after them and no
# second verdict for one window, the evidence under its heading with the
# lines that carry nothing left out (kept by -v and JSON), merged thread
# entries, the table's confidence and reason columns, JSON/CSV confidence,
# and the recorder's status line with its FIFO and last mark.
#
# GPU scenarios on the simulator's virtual clock (exact 10 ms grid, marks
# appended afterwards), as in answer.sh; host CPU left empty unless set.
. "$ROOT/tests/lib.sh"

VSTART=1000000000000
EP=$((VSTART - 5000000))
vrec() {   # vrec SCENARIO OUT SECONDS [record args...]
  scn=$1; out=$2; secs=$3; shift 3
  rm -f "$out"
  FLINCH_SIM_VIRTUAL_TIME=1 FLINCH_SIM_EPOCH_NS=$EP FLINCH_SIM_SCENARIO=$scn "$FLINCH" record \
    --nvml-lib "$SIM" -o "$out" -s "$secs" -i 10 --no-dither --no-rapl -q --proc-stat /dev/null "$@" 2>/dev/null
}
add_mark() {   # add_mark FILE LABEL SCENARIO_MS
  n=$(head -n 1 "$1" | awk -F, '{ print NF }')
  { printf '%s,,MARK,%s' $((EP + $3 * 1000000)) "$2"; i=4; while [ $i -lt "$n" ]; do printf ','; i=$((i + 1)); done; echo; } >>"$1"
}
an() { "$FLINCH" analyze "$@" --start infer_start --end first_token; }
L="window 1 infer_start -> first_token"

# Compute 1000-1900 ms; the energy counter's step at each change places it
# (+-10 ms on this 10 ms grid: the updates known to half a sample, the
# levels' ramp), +-8 ms where the window holds no change.
cat >c.scn <<'SCN'
at 0 power=75 util=0 clock=345 reasons=0x1
at 1000 power=612 util=98 mem_util=71 clock=1980 reasons=0x0
at 1900 power=75 util=0 clock=345 reasons=0x1
SCN
vrec c.scn c.csv 3
add_mark c.csv infer_start 1000; add_mark c.csv first_token 1724
add_mark c.csv infer_start 2000; add_mark c.csv first_token 2005
add_mark c.csv infer_start 1000; add_mark c.csv first_token 1100
add_mark c.csv infer_start 1700; add_mark c.csv first_token 2200
out=$(an c.csv)
expect_eq "compute, high: line 4" "$(echo "$out" | sed -n 4p)" \
  "$L  0.724 s  compute  (edges +-8 ms, confidence high)"
expect_eq "the three compatibility lines first" "$(echo "$out" | sed -n 1p; echo "$out" | sed -n 3p)" \
  "duration_s=0.724000
avg_gpu_util_pct≈97.83"
expect_eq "one answer line, window 1 of 4 said once, then the summary, then the evidence" \
  "$(echo "$out" | sed -n '5p;10,11p')" \
  "(window 1 of 4; --windows gives every window its answer line)
summary: mixed of 4 windows: 1 inconclusive, 2 mostly compute, 1 mixed; waiting adds a median 300 ms (over the 1 window with any); median power 290 W
evidence:"
check "no verdict= line outside the evidence" [ "$(echo "$out" | sed -n '1,/^evidence:$/p' | grep -c 'verdict=')" = 0 ]
win=$(an c.csv --windows)
expect_eq "--windows: an answer line per window: inconclusive, medium (edges, GPM), medium (GPM)" \
  "$(echo "$win" | sed -n 4,7p)" \
  "$L  0.724 s  compute  (edges +-8 ms, confidence high)
window 2 infer_start -> first_token  0.005 s  inconclusive: fewer than two samples in the window  (edges +-8 ms, confidence none)
window 3 infer_start -> first_token  0.100 s  compute  (edges +-8 ms, confidence medium: edges +-8 ms are 8% of the 100 ms window; GPM too coarse to check the compute's SM activity)
window 4 infer_start -> first_token  0.500 s  mixed: 40% compute, then 60% waiting  (edges +-10 ms, confidence medium: GPM too coarse to check the compute's SM activity)"
expect_eq "--windows: table header with confidence and reason" \
  "$(echo "$win" | grep '^window ' | tail -n 1 | tr -s ' ')" \
  "window at_s duration_s energy_J +-J power_W util% cpu% samples gap_ms compute_ms hostcpu_ms waiting_ms verdict confidence flags reason"
expect_eq "--windows: each row's verdict, confidence, flags and reason" \
  "$(echo "$win" | awk '/^window +at_s/ { t = 1; next } t && $1 ~ /^[0-9]+$/ { s = $14; for (i = 15; i <= NF; i++) s = s " " $i; print s }')" \
  "compute high none power 612 W = idle 75 W + 100% of the busy range
inconclusive none few-samples,under-counter-step fewer than two samples in the window
compute medium none power 612 W = idle 75 W + 100% of the busy range
mixed medium none power 290 W = idle 75 W + 40% of the busy range"

# Low: a 60 ms window around the end of the compute, 30 ms of it compute:
# the edge's +-10 ms are a third of that part.
vrec c.scn low.csv 3
add_mark low.csv infer_start 1870; add_mark low.csv first_token 1930
expect_eq "low: line 4" "$(an low.csv | sed -n 4p)" \
  "$L  0.060 s  mixed: 50% compute, then 50% waiting  (edges +-10 ms, confidence low: edges +-10 ms are 33% of the 30 ms compute part)"

# Waiting then compute (300 + 424 ms): mixed, high (the edge +-10 ms).
cat >a.scn <<'SCN'
at 0 power=75 util=0 clock=345 reasons=0x1
at 1300 power=612 util=98 mem_util=71 clock=1980 reasons=0x0
at 1724 power=75 util=0 clock=345 reasons=0x1
SCN
vrec a.scn a.csv 3
add_mark a.csv infer_start 1000; add_mark a.csv first_token 1724
out=$(an a.csv)
expect_eq "mixed, high: line 4" "$(echo "$out" | sed -n 4p)" \
  "$L  0.724 s  mixed: 41% waiting, then 59% compute  (edges +-10 ms, confidence high)"
expect_eq "one window: the evidence right after the answer, no summary verdict" "$(echo "$out" | sed -n 5p)" "evidence:"
check "one window: no summary line" [ "$(echo "$out" | grep -c '^summary')" = 0 ]
win=$(an a.csv --windows)
check "one window with --windows: the counts, no second verdict" \
  [ "$(echo "$win" | grep -c '^windows=1 unmatched_starts=0 unmatched_ends=0$')" = 1 -a "$(echo "$win" | grep -c '^summary')" = 0 ]
if command -v python3 >/dev/null 2>&1; then
  expect_eq "json: confidence and its reason" "$(an a.csv --format json | python3 -c '
import json, sys
w = json.load(sys.stdin)["windows"][0]
print(w["verdict"], w["confidence"], w["confidence_reason"])')" \
    "mixed high "
  expect_eq "csv: the first ten columns unchanged, confidence and its reason last before the recording" "$(an c.csv --format csv | python3 -c '
import csv, sys
rows = list(csv.reader(sys.stdin))
print(",".join(rows[0][:10]), rows[0][-3:])
for r in rows[1:]: print(" | ".join(r[-3:-1]))')" \
    "window,start_label,end_label,start_line,end_line,t_start_ns,t_end_ns,duration_s,energy_J,uncertainty_J ['confidence', 'confidence_reason', 'recording']
high | 
none | fewer than two samples in the window
medium | edges +-8 ms are 8% of the 100 ms window; GPM too coarse to check the compute's SM activity
medium | GPM too coarse to check the compute's SM activity"
else
  skip "json/csv confidence" "no python3"
fi

# Waiting with the traced process asleep (--pid of a sleep): high; its
# busiest thread at 0.00 of a core, the PCIe line with no byte moved and the
# copies line with no copy time are left out of the text, kept by -v and
# in JSON.
sleep 30 & sleeper=$!
printf 'at 0 power=75 util=0 clock=345 reasons=0x1\n' >i.scn
vrec i.scn i.csv 3 --pid $sleeper
kill $sleeper 2>/dev/null; wait $sleeper 2>/dev/null
add_mark i.csv infer_start 1000; add_mark i.csv first_token 1724
out=$(an i.csv)
expect_eq "waiting, high: line 4" "$(echo "$out" | sed -n 4p)" "$L  0.724 s  waiting  (edges +-8 ms, confidence high)"
verbose=$(an i.csv -v)
expect_match "-v: the busiest thread at 0.00 of a core" "; busiest thread '[0-9]+ [^']+' 0\.00 of a core while no GPU computed; SM active" "$verbose"
expect_match "-v: the PCIe line with nothing moved" '^  pcie: to host 0\.000 GB, from host 0\.000 GB, mean 0\.000 GB/s' "$verbose"
expect_match "-v: the copies line with no copy time" '^  waiting on host<->GPU copies: 0\.0 of 724\.0 ms waiting' "$verbose"
check "default: no busiest thread, no pcie, no copies line" \
  [ "$(echo "$out" | grep -c "busiest thread\|^  pcie:\|host<->GPU copies")" = 0 ]
check "default: the rest of the evidence as -v has it" \
  [ "$(echo "$out" | grep -c '^  verdict=waiting  100% waiting (724 ms), edges +-8 ms; power 75 W = idle 75 W + 0% of the busy range; gpu util 0%; process 0.00 cores; SM active 0% (GPM, 3 spans of 200 ms)$')" = 1 ]
expect_match "json keeps the busiest thread" "busiest thread '[0-9]+ [^']+' 0\.00 of a core" "$(an i.csv --format json)"

# Host-cpu on a saturated host with no traced tree: the job's CPU unknown.
col=$(head -n 1 i.csv | tr ',' '\n' | grep -n '^host_cpu_busy_pct$' | cut -d: -f1)
awk -F, -v OFS=, -v c="$col" '$3 == "SAMPLE" { $c = 95.0 } NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^proc_/) p[i] = 1 } NR > 1 { for (i in p) $i = "" } 1' i.csv >n95.csv
expect_eq "host-cpu, medium: line 4" "$(an n95.csv | sed -n 4p)" \
  "$L  0.724 s  host-cpu  (edges +-8 ms, confidence medium: the job's CPU was not traced: host-cpu is the whole host's load)"

# More than 20 windows: 20 answer lines, then a pointer to the table.
cp c.csv many.csv
k=0; while [ $k -lt 23 ]; do add_mark many.csv infer_start $((1000 + k)); add_mark many.csv first_token $((1500 + k)); k=$((k + 1)); done
win=$(an many.csv --windows)
check "27 windows: 20 answer lines" [ "$(echo "$win" | grep -c '^window [0-9]* infer_start -> first_token ')" = 20 ]
expect_eq "27 windows: then the table's pointer" "$(echo "$win" | sed -n 24p)" "... 7 more windows: see the table"

# Threads of one name in one state: one entry. The fixture's two threads
# renamed "sleep", both asleep in clock_nanosleep.
FX="$ROOT/tests/fixtures"
cp "$FX/flinch_windows.csv" s.csv
sed -E -e 's/^N (424[23]) 4242 .*/N \1 4242 sleep/' \
    -e 's/^T (424[23]) .*/T \1 S hrtimer_nanosleep clock_nanosleep -/' "$FX/flinch_windows.threads" >s.csv.threads
expect_eq "merged: one entry for both sleeping threads" \
  "$("$FLINCH" analyze s.csv --start infer_start --end first_token | grep '^  threads')" \
  "  threads (every 100 ms, edges +-50 ms): sleep 1000 ms: sleep in clock_nanosleep 200% (2 threads together)"

# The status line on a terminal: the FIFO and the last mark; with -- CMD
# the private FIFO said at the start.
if command -v script >/dev/null 2>&1; then
  rm -f st.csv; mkfifo_path="$PWD/st.marks"
  FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" script -qec \
    "'$FLINCH' record --out st.csv --nvml-lib '$SIM' --no-rapl --seconds 3 --marks-fifo '$mkfifo_path' & while [ ! -p '$mkfifo_path' ]; do sleep 0.05; done; '$FLINCH' mark --fifo '$mkfifo_path' infer_start; wait" \
    /dev/null >st.out
  line=$(tr '\r' '\n' <st.out | grep 'rows, GPU' | tail -n 1 | sed 's/\x1b\[K//')
  expect_match "status line: the FIFO and the last mark" \
    "^flinch record: [0-9.]+ s, [0-9]+ rows, GPU 0 power [0-9.]+ W; marks $mkfifo_path, last 'infer_start'$" "$line"
  rm -f sc.csv
  FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" script -qec \
    "'$FLINCH' record --out sc.csv --nvml-lib '$SIM' --no-rapl -- sh -c 'echo \"\$FLINCH_MARKS\" >fifo.txt; sleep 0.3'" \
    /dev/null >sc.out
  fifo=$(cat fifo.txt)
  expect_eq "-- CMD: the private FIFO said at the start" "$(tr '\r' '\n' <sc.out | grep 'marks FIFO:' | sed 's/\x1b\[K//')" \
    "flinch record: marks FIFO: $fifo (from other shells: flinch mark --fifo $fifo LABEL)"
  expect_match "-- CMD: the status line names it" "; marks $fifo, no mark yet" "$(tr '\r' '\n' <sc.out | grep 'rows, GPU' | tail -n 1)"
  FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" "$FLINCH" record --out sq.csv --nvml-lib "$SIM" --no-rapl \
    -- sh -c 'sleep 0.1' 2>sq.err
  expect_eq "-- CMD, stderr not a terminal: nothing said" "$(cat sq.err)" ""
else
  skip "status line" "no script(1) to give the recorder a terminal"
fi
done_testing
