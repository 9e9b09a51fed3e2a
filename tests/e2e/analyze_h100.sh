# tests/e2e/analyze_h100.sh — the recorder and the analyzer on the `h100`
# sensor preset (sim/SCENARIO.md): 100 ms energy counter steps with jitter,
# 25-of-100 ms instant power, 1 s averaged power, 1/6 s utilization.
# Recorded on the simulator's virtual time (no sleeping, every run the same
# trace) with --dither, marks appended at exact scenario times. Checks the
# measured sensor periods, the energy estimator against the exact integral
# (within 1%, the exact value inside the printed uncertainty, which is under
# 3%), what the old counter interpolation gives on the same trace, the
# under-util-period flag, and the `ideal` preset.
. "$ROOT/tests/lib.sh"
export SIM
unset FLINCH_SIM_SCENARIO FLINCH_SIM_EPOCH_NS FLINCH_SIM_PRESET FLINCH_SIM_SENSOR_SEED
VSTART=1000000000000
EPOCH=$((VSTART + 3700000))     # the sampler 3.7 ms off the scenario's grid

# a burst, then from 2.1 s a load that moves every 50 ms (as real power
# always does) so that every sensor shows its own period
{ printf 'preset h100\nsensor_seed 3\nat 0 power=75 util=0\nat 1000 power=612 util=98\nat 1724 power=75 util=0\n'
  t=2100; while [ $t -lt 3000 ]; do
    printf 'at %d power=200 util=30\nat %d power=400 util=60\n' $t $((t + 50)); t=$((t + 100)); done
  printf 'at 3000 power=75 util=0\n'; } >burst.scn

# rec SCN CSV [record options]: 3.5 s on virtual time, marks s/e at 1000/1724 ms
# and short/short_end at 2500/2600 ms.
rec() {
  scn=$1; csv=$2; shift 2
  FLINCH_SIM_VIRTUAL_TIME=1 FLINCH_SIM_EPOCH_NS=$EPOCH FLINCH_SIM_SCENARIO=$scn \
    "$FLINCH" record --nvml-lib "$SIM" -o "$csv" -s 3.5 --no-rapl -q --proc-stat /dev/null "$@" || return 1
  for m in "s 1000" "e 1724" "short 2500" "short_end 2600" "tiny 2500" "tiny_end 2550"; do
    set -- $m
    append_mark "$csv" $((EPOCH + $2 * 1000000)) "$1"
  done
}
rec burst.scn h.csv -i 10 --dither
expect_eq "h100: record on virtual time exits 0" "$?" 0
out=$("$FLINCH" analyze --csv h.csv --start s --end e)
echo "$out" | sed 's/^/# /'
exact=443.088
got=$(echo "$out" | sed -n 's/^gpu_energy_J≈\([0-9.]*\).*/\1/p')
unc=$(echo "$out" | sed -n 's/.*at the edges, +-\([0-9.]*\) J.*/\1/p')
expect_match "h100: the estimator is the source" "counter on its update grid [+] step model" "$out"
check "h100: $got J within 1% of the exact $exact J" near "$got" "$exact" 4.43
check "h100: the exact value is inside +-$unc J" near "$got" "$exact" "$unc"
check "h100: the uncertainty ($unc J) is under 3% of the energy" awk -v u="$unc" 'BEGIN { exit !(u > 0 && u < 13.29) }'
periods=$(echo "$out" | sed -n 's/^sensors gpu 0: //p')
check "h100: counter period measured 95..105 ms ($periods)" \
  awk -v s="$periods" 'BEGIN { match(s, /energy counter [0-9.]+/); v = substr(s, RSTART + 15, RLENGTH - 15) + 0; exit !(v >= 95 && v <= 105) }'
check "h100: utilization period measured 150..180 ms" \
  awk -v s="$periods" 'BEGIN { match(s, /utilization [0-9.]+/); v = substr(s, RSTART + 12, RLENGTH - 12) + 0; exit !(v >= 150 && v <= 180) }'
"$FLINCH" analyze --csv h.csv --start s --end e --format json >h.json
if command -v python3 >/dev/null 2>&1; then
  old=$(python3 -c 'import json; g = json.load(open("h.json"))["windows"][0]["gpus"][0]; print(g["energy_counter_J"])')
  check "h100: the old counter interpolation ($old J) is more than 1% off, the estimator is not" \
    awk -v o="$old" -v e="$exact" 'BEGIN { d = (o - e) / e; if (d < 0) d = -d; exit !(d > 0.01) }'
  expect_eq "h100: JSON sensor periods for the four sensors" \
    "$(python3 -c 'import json; p = json.load(open("h.json"))["gpus"][0]["sensor_periods"]; print(sorted(p), all(p[k]["period_s"] for k in p))')" \
    "['average', 'counter', 'instant', 'util'] True"
else
  skip "h100: old counter interpolation" "python3 missing"
  skip "h100: JSON sensor periods" "python3 missing"
fi

out=$("$FLINCH" analyze --csv h.csv --start short --end short_end)
expect_match "h100: a 100 ms window is flagged under the utilization period" \
  'flags: .*under-util-period' "$out"
expect_match "h100: and its verdict says why" \
  "verdict=inconclusive .*shorter than the utilization sensor's update period" "$out"

# The load moving again 76 ms after the burst: the step after the end is
# no longer one level, and the uncertainty must say so (cover the truth).
printf 'preset h100\nsensor_seed 3\nat 0 power=75 util=0\nat 1000 power=612 util=98\nat 1724 power=75 util=0\n' >near.scn
t=1800; while [ $t -lt 3000 ]; do
  printf 'at %d power=200 util=30\nat %d power=400 util=60\n' $t $((t + 50)) >>near.scn; t=$((t + 100)); done
printf 'at 3000 power=75 util=0\n' >>near.scn
rec near.scn n.csv -i 10 --dither
out=$("$FLINCH" analyze --csv n.csv --start s --end e)
got=$(echo "$out" | sed -n 's/^gpu_energy_J≈\([0-9.]*\).*/\1/p')
unc=$(echo "$out" | sed -n 's/.*at the edges, +-\([0-9.]*\) J.*/\1/p')
check "h100, load moving right after the window: exact inside +-$unc J ($got J)" near "$got" "$exact" "$unc"

# Without the counter the energy comes from instant power: a 50 ms window
# is shorter than its ~100 ms refresh.
{ printf 'unsupported field:83\nunsupported nvmlDeviceGetTotalEnergyConsumption\n'; cat burst.scn; } >nocounter.scn
rec nocounter.scn nc.csv -i 10 --dither
out=$("$FLINCH" analyze --csv nc.csv --start tiny --end tiny_end)
expect_match "h100, no counter: a 50 ms window from instant power is flagged under-power-period" \
  'flags: .*under-power-period' "$out"
expect_match "h100, no counter: and its verdict says why" \
  "verdict=inconclusive .*instantaneous power, which refreshes less often than the window lasts" "$out"

sed 's/^preset h100/preset ideal/' burst.scn >ideal.scn
rec ideal.scn i.csv -i 10
out=$("$FLINCH" analyze --csv i.csv --start s --end e)
got=$(echo "$out" | sed -n 's/^gpu_energy_J≈\([0-9.]*\).*/\1/p')
check "ideal: $got J within 0.1% of $exact J" near "$got" "$exact" 0.443
expect_match "ideal: sensors change at every sample" 'sensors gpu 0: energy counter <= 10\.[0-9] ms' "$out"
done_testing
