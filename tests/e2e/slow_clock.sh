# tests/e2e/slow_clock.sh — slow compute named (issue 21, §3;
# src/analyze/breakdown/slow_clock.h): the recorder writes each GPU's
# maximum SM clock in its flinch_gpu row, and compute at an SM clock below
# half of it is named with its duration, to the clock's sampling, in the
# text, JSON, CSV, plot and export; "the first request after idle" only
# when the GPU idled just before. A ramping clock stays compute. Without a
# recorded maximum (older traces) nothing is said. Also the window's
# reason (issue 21 §2): the segments' reason holding the most time.
# Virtual time, marks at 1000/1724 ms, the ideal and h100 presets.
. "$ROOT/tests/lib.sh"
unset FLINCH_SIM_SCENARIO FLINCH_SIM_EPOCH_NS FLINCH_SIM_PRESET FLINCH_SIM_SENSOR_SEED
VSTART=1000000000000

# rec CSV PRESET BODY [RECORD ARGS]: a full-power burst for the busy level
# (200-600 ms), idle until 1000 ms, then BODY, idle from 1724 ms.
rec() {
  csv=$1; preset=$2; body=$3; shift 3
  printf 'preset %s\nsensor_seed 3\nat 0 power=75 util=0 clock=345 reasons=0x1\nat 200 power=612 util=98 clock=1980 reasons=0x0\nat 600 power=75 util=0 clock=345 reasons=0x1\n%bat 1724 power=75 util=0 clock=345 reasons=0x1\n' \
    "$preset" "$body" >s.scn
  rm -f "$csv"
  FLINCH_SIM_VIRTUAL_TIME=1 FLINCH_SIM_EPOCH_NS=$VSTART FLINCH_SIM_SCENARIO=s.scn "$FLINCH" record \
    --nvml-lib "$SIM" -o "$csv" -s 3.2 --no-rapl -q --proc-stat /dev/null "$@" 2>err.txt || return 1
  append_mark "$csv" $((VSTART + 1000 * 1000000)) infer_start
  append_mark "$csv" $((VSTART + 1724 * 1000000)) first_token
}
an() { f=$1; shift; "$FLINCH" analyze "$f" --start infer_start --end first_token "$@"; }
# the evidence's last clause when it names slow compute (after every
# other stage's, so that a long evidence loses it, not theirs)
clause() { an "$1" | sed -n 's/^  verdict=.*; \([^;]*clocks below half of max [^;]*\)$/\1/p'; }
segs() { an "$1" | sed -n 's/^  segments: //p'; }
# jf CSV EXPR: a Python expression over the JSON report d (w: window 1)
jf() {
  an "$1" --format json | python3 -c 'import json, sys
d = json.load(sys.stdin); w = d["windows"][0]
print(eval(sys.argv[1]))' "$2"
}
ramp='at 1000 power=612 util=98 clock=700 reasons=0x0\nat 1180 clock=1980\n'

# cells CSV_FILE COLUMN...: those cells of every row, space-separated (the
# evidence holds commas: read as CSV)
cells() {
  python3 -c 'import csv, sys
for row in csv.DictReader(open(sys.argv[1])): print(" ".join(row[c] or "-" for c in sys.argv[2:]))' "$@"
}
PY=1
command -v python3 >/dev/null 2>&1 || PY=0
ramp='at 1000 power=612 util=98 clock=700 reasons=0x0\nat 1180 clock=1980\n'

# --- the first request after idle: 180 ms at 700 of 1980 MHz --------------
for preset in ideal h100; do
  rec r_$preset.csv $preset "$ramp"
  expect_eq "$preset ramp: the maximum in the flinch_gpu row" \
    "$(grep 'flinch_gpu index=0 ' r_$preset.csv | grep -o 'max_sm_clock_MHz=[0-9]*')" "max_sm_clock_MHz=1980"
  expect_eq "$preset ramp: a ramping clock is compute, never waiting" "$(segs r_$preset.csv)" "compute 0-724 ms"
done
# The clock is read every ~50 ms (dithered ticks): the change lies between
# the last slow reading and the first fast one, taken at their midpoint
# (180 ms: 181 and 175, each within its +-).
expect_eq "ideal ramp: named, to the clock's sampling, and why" "$(clause r_ideal.csv)" \
  "clocks below half of max for 181 ms (+-27 ms): the first request after idle"
expect_eq "h100 ramp: named, to the clock's sampling, and why" "$(clause r_h100.csv)" \
  "clocks below half of max for 175 ms (+-28 ms): the first request after idle"
if [ $PY = 1 ]; then
  expect_eq "ideal ramp: JSON per GPU (ms, +-, after idle), the GPU's maximum, no window reason" \
    "$(jf r_ideal.csv '(w["gpus"][0]["slow_clock_ms"], w["gpus"][0]["slow_clock_res_ms"], w["gpus"][0]["slow_clock_after_idle"], d["gpus"][0]["max_sm_clock_MHz"], w["reason"], w["gpus"][0]["reason"])')" \
    "(180.765, 27.285, True, 1980, None, None)"
  an r_ideal.csv --format csv >r.out.csv
  expect_eq "ideal ramp: CSV gpu0_slow_clock_ms, an empty reason, before the confidence" \
    "$(cells r.out.csv reason gpu0_slow_clock_ms confidence) $(head -n 1 r.out.csv | tr , '\n' | tail -n 5 | tr '\n' ' ')" \
    "- 180.765 high reason gpu0_slow_clock_ms confidence confidence_reason recording "
else
  skip "ideal ramp: JSON per GPU" "no python3"
  skip "ideal ramp: CSV gpu0_slow_clock_ms" "no python3"
fi
"$FLINCH" plot r_ideal.csv --start infer_start --end first_token -o r.svg 2>err.txt
expect_match "plot: the compute segment's tooltip names it" \
  '<title>compute 0-724 ms \(\+-15 ms\); clocks below half of max for 181 ms: the first request after idle</title>' "$(cat r.svg)"
expect_match "plot: the window's tooltip holds the evidence" \
  '<title>window 1: [^<]*clocks below half of max for 181 ms \(\+-27 ms\): the first request after idle' "$(cat r.svg)"
"$FLINCH" export r_ideal.csv --start infer_start --end first_token -o r.json 2>err.txt
expect_match "export: the window slice's args" \
  '"cat":"window".*"slow_clock_ms":180\.7646391,"slow_clock_gpu":0,"slow_clock_after_idle":true\}' "$(cat r.json)"
expect_match "export: the compute slice's args" \
  '"name":"compute","cat":"segment".*"resolution_ms":14\.57706636,"slow_clock_ms":180\.7646391\}' "$(cat r.json)"

# --- a clock that jumps to its maximum: nothing named ---------------------
# (the idle reading just before the compute stands for a sliver of it,
# shorter than the clock's sampling: not counted)
for preset in ideal h100; do
  rec j.csv $preset 'at 1000 power=612 util=98 clock=1980 reasons=0x0\n'
  expect_eq "$preset jump: nothing named" "$(clause j.csv)" ""
done
[ $PY = 1 ] && expect_eq "jump: JSON 0 ms, not after idle" \
  "$(jf j.csv '(w["gpus"][0]["slow_clock_ms"], w["gpus"][0]["slow_clock_after_idle"])')" "(0.0, False)"

# --- slow in the middle of compute: named, not the first request ----------
rec m_ideal.csv ideal 'at 1000 power=612 util=98 clock=1980 reasons=0x0\nat 1300 clock=800\nat 1500 clock=1980\n'
expect_eq "ideal, 200 ms slow mid-compute: named without 'after idle'" "$(clause m_ideal.csv)" \
  "clocks below half of max for 201 ms (+-27 ms)"
rec m_h100.csv h100 'at 1000 power=612 util=98 clock=1980 reasons=0x0\nat 1300 clock=800\nat 1500 clock=1980\n'
expect_eq "h100, 200 ms slow mid-compute: named without 'after idle'" "$(clause m_h100.csv)" \
  "clocks below half of max for 203 ms (+-28 ms)"

# --- the threshold: below half of 1980 MHz is below 990 --------------------
rec t.csv ideal 'at 1000 power=612 util=98 clock=989 reasons=0x0\n'
expect_eq "989 MHz of 1980: the whole compute" "$(clause t.csv)" \
  "clocks below half of max for 724 ms (+-27 ms): the first request after idle"
rec t.csv ideal 'at 1000 power=612 util=98 clock=990 reasons=0x0\n'
expect_eq "990 MHz of 1980: not below half" "$(clause t.csv)" ""
# against the GPU's own maximum: 800 of 1410 is not slow, 700 is
rec t.csv ideal 'max_clock_MHz 1410\nat 1000 power=612 util=98 clock=800 reasons=0x0\n'
expect_eq "800 MHz of 1410: not below half" "$(clause t.csv)" ""
rec t.csv ideal 'max_clock_MHz 1410\nat 1000 power=612 util=98 clock=700 reasons=0x0\n'
expect_eq "700 MHz of 1410: below half" "$(clause t.csv)" \
  "clocks below half of max for 724 ms (+-27 ms): the first request after idle"

# --- an older trace (no maximum recorded): nothing said ---------------------
sed 's/ max_sm_clock_MHz=1980//' r_ideal.csv >old.csv
expect_eq "no maximum recorded: nothing named" "$(clause old.csv)" ""
if [ $PY = 1 ]; then
  expect_eq "no maximum recorded: JSON nulls" \
    "$(jf old.csv '(w["gpus"][0]["slow_clock_ms"], w["gpus"][0]["slow_clock_res_ms"], w["gpus"][0]["slow_clock_after_idle"], d["gpus"][0]["max_sm_clock_MHz"])')" \
    "(None, None, False, None)"
  an old.csv --format csv >old.out.csv
  expect_eq "no maximum recorded: the CSV cell empty" "$(cells old.out.csv gpu0_slow_clock_ms)" "-"
fi
# nor from a GPU that could not tell (NOT_SUPPORTED: the key left out)
rec u.csv ideal "unsupported nvmlDeviceGetMaxClockInfo\n$ramp"
expect_eq "max clock NOT_SUPPORTED: no key, nothing named" \
  "$(grep -c max_sm_clock u.csv) $(clause u.csv)" "0 "

# --- several GPUs: the one that ran slow is named ---------------------------
rec g.csv ideal 'gpus 2\nat 1000 power=612 util=98 clock=1980 reasons=0x0\nat 1000 gpu 1 clock=700\nat 1180 gpu 1 clock=1980\n' --gpu all
expect_match "two GPUs: GPU 1 named" \
  '; gpu 1 clocks below half of max for [0-9]+ ms \(\+-[0-9]+ ms\): the first request after idle' "$(an g.csv)"
[ $PY = 1 ] && expect_eq "two GPUs: JSON per GPU" \
  "$(jf g.csv '[g["slow_clock_ms"] for g in w["gpus"]]')" "[0.0, 180.765]"

# --- the window's reason (§2): the segments' reason holding the most time ---
rec s.csv ideal 'at 1000 power=225 util=100 clock=1980 reasons=0x0 sm_active=4 dram_bw=2\n'
expect_eq "spin: segments" "$(segs s.csv)" "waiting (gpu-spin) 0-724 ms"
if [ $PY = 1 ]; then
  expect_eq "spin: the window's and the GPU's reason in JSON" "$(jf s.csv '(w["reason"], w["gpus"][0]["reason"])')" \
    "('gpu-spin', 'gpu-spin')"
  an s.csv --format csv >s.out.csv
  expect_eq "spin: the CSV's reason column" "$(cells s.out.csv reason)" "gpu-spin"
fi
"$FLINCH" export s.csv --start infer_start --end first_token -o s.json 2>err.txt
expect_match "spin: the export's window slice carries the reason" '"cat":"window".*"reason":"gpu-spin"' "$(cat s.json)"

done_testing
