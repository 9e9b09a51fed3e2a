# analyze_recordings.sh — issue 19, section 3: a trace file holding two
# recordings (`flinch record` appends to the same --out). Each window says
# its recording (a `rec` column in --windows, "recording" in JSON, the last
# CSV column); each recording learns its own idle/busy levels (a 700 W run,
# then a 612 W one: over both, p95 would be 612 W); a summary per recording,
# then the total; a window never spans the two. Recorded on the simulator's
# virtual time (the same trace every run), on the `ideal` and `h100`
# presets, marks appended at exact scenario times.
. "$ROOT/tests/lib.sh"
export SIM
unset FLINCH_SIM_SCENARIO FLINCH_SIM_EPOCH_NS FLINCH_SIM_PRESET FLINCH_SIM_SENSOR_SEED
EPOCH=$((1000000000000 + 3700000))   # the sampler 3.7 ms off the scenario's grid
LATER=100000000000                    # the second recording, 100 s after the first's start

# rec SCN OFFSET_NS SECONDS MARK...: one recording appended to two.csv (a
# virtual clock always starts at 1000 s: the recording's rows are moved
# OFFSET_NS later, as a run made later on the same boot), then each mark
# "LABEL MS" at scenario time MS.
rec() {
  scn=$1; off=$2; secs=$3; shift 3
  l0=$(cat two.csv 2>/dev/null | wc -l)
  FLINCH_SIM_VIRTUAL_TIME=1 FLINCH_SIM_EPOCH_NS=$EPOCH FLINCH_SIM_SCENARIO=$scn \
    "$FLINCH" record --nvml-lib "$SIM" -o two.csv -s "$secs" -i 10 --no-rapl -q --proc-stat /dev/null \
    2>>rec_err.txt || return 1
  awk -F, -v OFS=, -v l0="$l0" -v off="$off" 'NR > l0 && NR > 1 { $1 = sprintf("%.0f", $1 + off) } 1' \
    two.csv >moved.csv && mv moved.csv two.csv
  for m in "$@"; do
    set -- $m
    append_mark two.csv $((EPOCH + off + $2 * 1000000)) "$1"
  done
}

# record PRESET: the two recordings into two.csv, the first alone into
# one.csv. Recording 1 (2 s): 700 W over 500-1000 ms, window s/e on it, an
# idle window 1200-1600 ms, and a start at 1800 ms that nothing in it ends.
# Recording 2 (10 s): an end mark at 300 ms before any start (it must not
# close recording 1's open start), 612 W over 1000-9000 ms, window
# 2000-2300 ms on it, an idle window 9200-9600 ms (also marked idle/idle_end).
record() {
  rm -f two.csv
  printf 'preset %s\nsensor_seed 3\nat 0 power=75 util=0\nat 500 power=700 util=98\nat 1000 power=75 util=0\n' "$1" >r1.scn
  printf 'preset %s\nsensor_seed 3\nat 0 power=75 util=0\nat 1000 power=612 util=98\nat 9000 power=75 util=0\n' "$1" >r2.scn
  rec r1.scn 0 2 "s 500" "e 1000" "s 1200" "e 1600" "s 1800" || return 1
  cp two.csv one.csv
  rec r2.scn "$LATER" 10 "e 300" "s 2000" "e 2300" "s 9200" "e 9600" \
    "idle 9200" "idle_end 9600"
}

# ---- ideal preset: exact numbers -------------------------------------------
record ideal
expect_eq "ideal: two recordings appended to one --out (exit 0)" "$?" 0
expect_eq "ideal: the second run appended" "$(grep -c '^flinch record: appending to two.csv: 1 earlier recording' rec_err.txt)" 1
out=$("$FLINCH" analyze --csv two.csv --start s --end e --windows 2>err.txt)
expect_eq "ideal: analyze exit 0, nothing on stderr" "$? $(cat err.txt)" "0 "
echo "$out" | sed 's/^/# /'
expect_eq "ideal: levels learned per recording, each line saying which" "$(echo "$out" | grep '^levels')" \
"levels gpu 0 (recording 1): idle 75.0 W, busy 700.0 W (trace p5/p95)
levels gpu 0 (recording 2): idle 75.0 W, busy 612.0 W (trace p5/p95)"
expect_eq "ideal: the table's rec column" "$(echo "$out" | grep -E '^( +[0-9]+ |window +rec )' | cut -c1-72)" \
"window rec       at_s   duration_s    energy_J       +-J  power_W  util%
     1   1      0.504     0.500000     349.998    13.970    700.0   96.5
     2   1      1.204     0.400000      30.000     0.852     75.0    0.0
     3   2    102.004     0.300000     183.600     5.069    612.0   98.0
     4   2    109.204     0.400000      30.000     0.701     75.0    0.0"
expect_eq "ideal: verdicts" "$(echo "$out" | grep -E '^ +[0-9]+ ' | awk '{ print $1, $15 }' | tr '\n' ' ')" \
  "1 compute 2 waiting 3 compute 4 waiting "
expect_eq "ideal: a summary per recording, then the total" "$(echo "$out" | sed -n '/^recording 1:/,/^summary:/p')" \
"recording 1: windows=2 unmatched_starts=1 unmatched_ends=0
  duration_s median=0.400000 p90=0.500000 p99=0.500000 max=0.500000
  energy_J median=30.000 p90=349.998 p99=349.998 max=349.998
  mean_power_W median=75.0 p90=700.0 p99=700.0 max=700.0
  summary: mixed of 2 windows: 1 mostly compute, 1 mostly waiting; waiting adds a median 400 ms (over the 1 window with any); median power 75 W
recording 2: windows=2 unmatched_starts=0 unmatched_ends=1
  duration_s median=0.300000 p90=0.400000 p99=0.400000 max=0.400000
  energy_J median=30.000 p90=183.600 p99=183.600 max=183.600
  mean_power_W median=75.0 p90=612.0 p99=612.0 max=612.0
  summary: mixed of 2 windows: 1 mostly compute, 1 mostly waiting; waiting adds a median 400 ms (over the 1 window with any); median power 75 W
all 2 recordings:
windows=4 unmatched_starts=1 unmatched_ends=1
duration_s median=0.400000 p90=0.500000 p99=0.500000 max=0.500000
energy_J median=30.000 p90=349.998 p99=349.998 max=349.998
mean_power_W median=75.0 p90=700.0 p99=700.0 max=700.0
summary: mixed of 4 windows: 2 mostly compute, 2 mostly waiting; waiting adds a median 400 ms (over the 2 windows with any); median power 75 W"

# each recording's window is what that recording gives alone: the 700 W
# window reads at the top of its own busy range, not 116% of 612 W
"$FLINCH" analyze --csv two.csv --start s --end e >two.txt
"$FLINCH" analyze --csv one.csv --start s --end e >one.txt
expect_match "ideal: window 1's evidence uses recording 1's levels" \
  '^  verdict=compute  100% compute .*power 700 W = idle 75 W \+ 100% of the busy range' "$(cat two.txt)"
expect_eq "ideal: window 1 and its verdict as recording 1 alone gives them" \
  "$(sed -n '/^window 1:/,$p' two.txt)" "$(sed -n '/^window 1:/,$p' one.txt)"
"$FLINCH" analyze --csv two.csv --start s --end e --format csv >two_out.csv
"$FLINCH" analyze --csv one.csv --start s --end e --format csv >one_out.csv
expect_eq "ideal: recording 1's CSV cells (times to verdict) as recording 1 alone gives them" \
  "$(awk -F, '$NF == 1 { print }' two_out.csv | cut -d, -f6-19)" "$(sed 1d one_out.csv | cut -d, -f6-19)"

# CSV: the first ten columns unchanged, `recording` last, on every row
expect_eq "CSV: the first ten columns" "$(head -n 1 two_out.csv | cut -d, -f1-10)" \
  "window,start_label,end_label,start_line,end_line,t_start_ns,t_end_ns,duration_s,energy_J,uncertainty_J"
expect_eq "CSV: recording is the last column" "$(awk -F, '{ print $NF }' two_out.csv | tr '\n' ' ')" \
  "recording 1 1 2 2 "
expect_eq "CSV: one recording: recording 1 on each row" "$(awk -F, '{ print $NF }' one_out.csv | tr '\n' ' ')" \
  "recording 1 1 "

if command -v python3 >/dev/null 2>&1; then
  "$FLINCH" analyze --csv two.csv --start s --end e --format json >two.json
  expect_eq "JSON: each window's recording" \
    "$(python3 -c 'import json,sys; print([(w["window"], w["recording"]) for w in json.load(open(sys.argv[1]))["windows"]])' two.json)" \
    "[(1, 1), (2, 1), (3, 2), (4, 2)]"
  expect_eq "JSON: per recording levels and summary" \
    "$(python3 -c 'import json,sys
for r in json.load(open(sys.argv[1]))["recordings"]:
    s = r["summary"]
    print(r["recording"], [(g["gpu"], g["idle_W"], g["busy_W"], g["levels_from"]) for g in r["gpus"]],
          s["windows"], s["unmatched_starts"], s["unmatched_ends"], s["energy_J"]["max"], s["verdict"])' two.json)" \
"1 [(0, 75.0, 700.0, 'trace p5/p95')] 2 1 0 349.99794 mixed
2 [(0, 75.0, 612.0, 'trace p5/p95')] 2 0 1 183.599644 mixed"
  "$FLINCH" analyze --csv one.csv --start s --end e --format json >one.json
  expect_eq "JSON: one recording: no recordings member, recording 1" \
    "$(python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); print("recordings" in d, [w["recording"] for w in d["windows"]])' one.json)" \
    "False [1, 1]"
else
  skip "JSON: each window's recording" "python3 not installed"
  skip "JSON: per recording levels and summary" "python3 not installed"
  skip "JSON: one recording: no recordings member, recording 1" "python3 not installed"
fi

# one recording: no rec column, one levels line, no per-recording summary
out1=$("$FLINCH" analyze --csv one.csv --start s --end e --windows)
expect_eq "one recording: the table as before (no rec column)" "$(echo "$out1" | grep '^window  ' | cut -c1-30)" \
  "window       at_s   duration_s"
expect_eq "one recording: one levels line, as before" "$(echo "$out1" | grep '^levels')" \
  "levels gpu 0: idle 75.0 W, busy 700.0 W (trace p5/p95)"
expect_eq "one recording: no per-recording summary" "$(echo "$out1" | grep -c 'recording')" 0

# options that set levels apply to each recording
expect_eq "--busy-w and --idle-w: every recording's levels" \
  "$("$FLINCH" analyze --csv two.csv --start s --end e --idle-w 70 --busy-w 800 | grep '^levels')" \
"levels gpu 0 (recording 1): idle 70.0 W, busy 800.0 W (--idle-w)
levels gpu 0 (recording 2): idle 70.0 W, busy 800.0 W (--idle-w)"

expect_eq "--idle-window: the recording that has it takes its idle level from it" \
  "$("$FLINCH" analyze --csv two.csv --start s --end e --idle-window idle idle_end | grep '^levels')" \
"levels gpu 0 (recording 1): idle 75.0 W, busy 700.0 W (trace p5/p95)
levels gpu 0 (recording 2): idle 75.0 W, busy 612.0 W (--idle-window)"

# ---- h100 preset: 100 ms counter steps, 25-of-100 ms instant power ----------
rm -f rec_err.txt
record h100
expect_eq "h100: two recordings (exit 0)" "$?" 0
out=$("$FLINCH" analyze --csv two.csv --start s --end e --windows 2>err.txt)
expect_eq "h100: analyze exit 0, nothing on stderr" "$? $(cat err.txt)" "0 "
echo "$out" | sed 's/^/# /'
expect_eq "h100: levels learned per recording" "$(echo "$out" | grep '^levels')" \
"levels gpu 0 (recording 1): idle 75.0 W, busy 700.0 W (trace p5/p95)
levels gpu 0 (recording 2): idle 75.0 W, busy 612.0 W (trace p5/p95)"
expect_eq "h100: windows numbered, with their recordings and verdicts" \
  "$(echo "$out" | grep -E '^ +[0-9]+ ' | awk '{ print $1, $2, $15 }' | tr '\n' ' ')" \
  "1 1 compute 2 1 waiting 3 2 compute 4 2 waiting "
# window, exact energy: 700 W x 0.5 s, 75 W x 0.4 s, 612 W x 0.3 s, 75 W x 0.4 s
for we in "1 350" "2 30" "3 183.6" "4 30"; do
  set -- $we
  row=$(echo "$out" | awk -v w="$1" '$1 == w && NF > 10 { print $5, $6 }')
  check "h100: window $1 (${row% *} J +-${row#* }) within 1% of $2 J, the truth inside its +-" \
    awk -v e="${row% *}" -v u="${row#* }" -v x="$2" \
    'BEGIN { d = e - x; if (d < 0) d = -d; exit !(d <= x / 100 && d <= u) }'
done
expect_eq "h100: a summary per recording, then the total" \
  "$(echo "$out" | grep -E '^(recording [0-9]:|all [0-9]+ recordings:|windows=)')" \
"recording 1: windows=2 unmatched_starts=1 unmatched_ends=0
recording 2: windows=2 unmatched_starts=0 unmatched_ends=1
all 2 recordings:
windows=4 unmatched_starts=1 unmatched_ends=1"
expect_eq "h100: each recording's summary holds its own windows' energies" \
  "$(echo "$out" | grep '^  energy_J' | awk '{ print $5 }' | tr '\n' ' ')" \
  "$(echo "$out" | awk '$1 == 1 && NF > 10 { a = $5 } $1 == 3 && NF > 10 { b = $5 } END { printf "max=%s max=%s ", a, b }')"
expect_eq "h100: the first recording alone: the same levels as its line above" \
  "$("$FLINCH" analyze --csv one.csv --start s --end e | grep '^levels')" \
  "levels gpu 0: idle 75.0 W, busy 700.0 W (trace p5/p95)"
done_testing
