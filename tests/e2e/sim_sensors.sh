# tests/e2e/sim_sensors.sh — the sensor models of the simulated NVML
# (sim/sensor_model.c): the `h100` preset's energy counter steps, windowed
# and refreshed instantaneous power, refreshed 1 s average and utilization
# over its trailing period; presets by file and by environment; the sensor
# seed; and virtual time, which makes every reading land at an exact
# scenario time (each device query takes the preset's 20 us of virtual
# time), so values are checked exactly, right at the sensors' edges.
. "$ROOT/tests/lib.sh"

S=$HELPERS/simtool
export SIM
unset FLINCH_SIM_SCENARIO FLINCH_SIM_EPOCH_NS FLINCH_SIM_PRESET FLINCH_SIM_SENSOR_SEED
VSTART=1000000000000   # the virtual clock's start (sim_nvml.c)

# vq SCENARIO AT_US ITEM...: query on virtual time, "now" = AT_US of scenario time.
vq() {
  scn=$1; at=$2; shift 2
  FLINCH_SIM_VIRTUAL_TIME=1 FLINCH_SIM_EPOCH_NS=$((VSTART - at * 1000)) \
    FLINCH_SIM_SCENARIO=$scn "$S" query "$@" | sed 1d | tr '\n' ' '
}

cat >h100.scn <<'SCN'
preset h100
energy_phase_us 30000
energy_jitter_us 0
instant_phase_us 10000
average_phase_us 0
util_phase_us 0
energy_base_mJ 0
at 0 power=100 util=0
at 1000 power=500 util=100
SCN

# The handle query takes 20 us and the item its own 20 us before it reads:
# the first item is read at AT + 40 us.
expect_eq "h100 counter: held since the update at 930 ms" "$(vq h100.scn 1029950 energy)" "energy 93000 "
expect_eq "h100 counter: moves at its update instant 1030 ms (100 J + 30 ms at 500 W)" \
  "$(vq h100.scn 1029970 energy)" "energy 115000 "
expect_eq "h100 counter: then holds for 100 ms" "$(vq h100.scn 1129950 energy)" "energy 115000 "
expect_eq "h100 instant power: mean over [985, 1010] ms, refreshed at 1010" \
  "$(vq h100.scn 1050000 fields:186)" "field:186 260000 "
expect_eq "h100 instant power: held until the next refresh at 1110 ms" \
  "$(vq h100.scn 1109950 fields:186)" "field:186 260000 "
expect_eq "h100 instant power: [1085, 1110] ms all at 500 W" \
  "$(vq h100.scn 1109970 fields:186)" "field:186 500000 "
expect_eq "h100 averaged power: the 1 s mean at the refresh (1000 ms): 100 W" \
  "$(vq h100.scn 1099950 power)" "power 100000 "
expect_eq "h100 averaged power: refreshed at 1100 ms: (0.9*100 + 0.1*500) W" \
  "$(vq h100.scn 1099970 power)" "power 140000 "
expect_eq "h100 util: [833.3, 1000.0] ms busy 0.001% -> 0 until 1166.669 ms" \
  "$(vq h100.scn 1166619 util)" "util 0 0 "
expect_eq "h100 util: refreshed at 1166.669 ms, the period fully busy" \
  "$(vq h100.scn 1166639 util)" "util 100 0 "

# ideal (the default) keeps today's behaviour: continuous counter, point readings.
printf 'energy_base_mJ 0\nat 0 power=100 util=0\nat 1000 power=500 util=100\n' >ideal.scn
expect_eq "ideal: counter, instant, average, util at the query instant" \
  "$(vq ideal.scn 1010000 energy fields:186 power util)" \
  "energy 105000 field:186 500000 power 104000 util 100 0 "
# The environment picks the preset; a file's own preset line wins.
# (phase 0 without a seed; seed 0's jitter puts update 10 at 1000.326 ms)
expect_eq "FLINCH_SIM_PRESET=h100: counter steps every 100 ms, jittered" \
  "$(FLINCH_SIM_PRESET=h100 vq ideal.scn 1050000 energy)" "energy 100163 "
printf 'preset ideal\n' | cat - ideal.scn >ideal2.scn
expect_eq "a file's preset line wins over FLINCH_SIM_PRESET" \
  "$(FLINCH_SIM_PRESET=h100 vq ideal2.scn 1050000 energy)" "energy 125000 "
out=$(FLINCH_SIM_PRESET=h200 "$S" query count 2>&1)
expect_match "bad FLINCH_SIM_PRESET fails nvmlInit with one line" \
  "flinch-sim: FLINCH_SIM_PRESET: expected 'ideal' or 'h100', got 'h200'" "$out"
printf 'preset h100\nenergy_jitter_us 50000\n' >badjit.scn
out=$(FLINCH_SIM_SCENARIO=badjit.scn "$S" query count 2>&1)
expect_match "jitter of half the period or more is refused" "energy_jitter_us must be under half" "$out"
printf 'preset h200\n' >badpreset.scn
out=$(FLINCH_SIM_SCENARIO=badpreset.scn "$S" query count 2>&1)
expect_match "unknown preset in a file: FILE:LINE" "badpreset.scn:1: preset: expected 'ideal' or 'h100'" "$out"

# The seed draws every grid's phase: the same seed gives the same readings,
# another seed other phases.
printf 'preset h100\nenergy_base_mJ 0\nat 0 power=100\nat 1000 power=500\n' >seeded.scn
a=$(FLINCH_SIM_SENSOR_SEED=1 vq seeded.scn 1050000 energy fields:186)
b=$(FLINCH_SIM_SENSOR_SEED=1 vq seeded.scn 1050000 energy fields:186)
c=$(FLINCH_SIM_SENSOR_SEED=2 vq seeded.scn 1050000 energy fields:186)
expect_eq "the same sensor seed replays the same readings" "$a" "$b"
check "another sensor seed moves the grids" [ "$a" != "$c" ]

# Virtual time drives the recorder: 3 s recorded without sleeping, ticks
# exactly on the 10 ms grid (real time would jitter; --no-dither: record
# dithers by default), and every counter
# reading equal to the model's at the sample's own scenario time.
start=$(date +%s%N)
FLINCH_SIM_VIRTUAL_TIME=1 FLINCH_SIM_EPOCH_NS=$VSTART FLINCH_SIM_SCENARIO=h100.scn \
  "$FLINCH" record --nvml-lib "$SIM" -o v.csv -s 3 -i 10 --no-dither --no-rapl -q
expect_eq "virtual time: record exits 0" "$?" "0"
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "virtual time: 3 s of recording took under 2.5 s of real time ($elapsed_ms ms)" [ "$elapsed_ms" -lt 2500 ]
expect_eq "virtual time: 300 samples, every one exactly 10 ms after the last" \
  "$(awk -F, '$3 == "SAMPLE" { if (p) d[$1 - p]++; p = $1; n++ } END { for (k in d) printf "%d:%d ", k, d[k]; print n }' v.csv)" \
  "10000000:299 300"
# counter model: updates at 30 + 100k ms; 100 W before 1000 ms, 500 W after.
bad=$(awk -F, 'NR > 1 && $3 == "SAMPLE" {
    t = ($1 - '"$VSTART"') / 1e6; k = int((t - 30) / 100); if (t < 30) k = -1
    u = 30 + 100 * k; e = u <= 1000 ? 100 * u : 100000 + 500 * (u - 1000); if (u < 0) e = 0
    if ($12 != e) { print t, $12, e; exit } }' v.csv)
expect_eq "virtual time: every counter reading is the model's" "$bad" ""
FLINCH_SIM_VIRTUAL_TIME=1 FLINCH_SIM_SCENARIO=h100.scn "$FLINCH" record --nvml-lib "$SIM" \
  -o d.csv -s 2 -i 10 --no-rapl -q
expect_eq "dithered by default: still 200 samples, each inside its own 10 ms tick" \
  "$(awk -F, '$4 == "\"begin\"" { t0 = $1 } $3 == "SAMPLE" { n++; o = ($1 - t0) - ($18 * 10000000); if (o < 0 || o >= 10000000) bad++; if (o != po) ch++; po = o } END { print n, bad + 0, (ch > 150) }' d.csv)" \
  "200 0 1"
done_testing
