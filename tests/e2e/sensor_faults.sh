# tests/e2e/sensor_faults.sh — bad sensor data is named, never trusted
# silently (sim `sensor_fault` and `unsupported_after`, sim/SCENARIO.md):
# a stuck counter (also one that never moves, the first-time user's case),
# a counter that goes backwards, one that jumps, instantaneous power frozen
# while utilization moves, and the counter switching to NOT_SUPPORTED
# mid-run (field 83 and the entry point). Each is flagged with its token, its span and reason are printed,
# and the energy comes from the next-best source, exactly; a fault alone
# does not make the verdict inconclusive. Recorded on virtual time, host CPU
# left empty (--proc-stat /dev/null): the real /proc/stat barely moves between
# virtual ticks, and its share decided the verdict of the idle case by load.
. "$ROOT/tests/lib.sh"
export SIM
unset FLINCH_SIM_SCENARIO FLINCH_SIM_EPOCH_NS FLINCH_SIM_PRESET FLINCH_SIM_SENSOR_SEED
VSTART=1000000000000

# rec SCN CSV: 5 s at 10 ms on virtual time (--no-dither: the spans below
# are on the exact grid), marks s/e at 1500/2224 ms.
rec() {
  FLINCH_SIM_VIRTUAL_TIME=1 FLINCH_SIM_EPOCH_NS=$VSTART FLINCH_SIM_SCENARIO=$1 \
    "$FLINCH" record --nvml-lib "$SIM" -o "$2" -s 5 -i 10 --no-dither --no-rapl -q --proc-stat /dev/null || return 1
  append_mark "$2" $((VSTART + 1500 * 1000000)) s
  append_mark "$2" $((VSTART + 2224 * 1000000)) e
}
energy() { echo "$1" | sed -n 's/^gpu_energy_J≈\([0-9.]*\).*/\1/p'; }

# case NAME SCENARIO-TEXT FLAG SOURCE REASON-PATTERN
case_() {
  name=$1; printf '%b' "$2" >"$name.scn"; flag=$3; source=$4; reason=$5
  rec "$name.scn" "$name.csv"
  out=$("$FLINCH" analyze --csv "$name.csv" --start s --end e)
  want=$("$HELPERS/simtool" energy "$name.scn" 0 1500 2224)
  expect_match "$name: flagged $flag" "flags: .*$flag" "$out"
  expect_match "$name: span and reason named" "gpu 0 sensors: $flag over [0-9.]+-[0-9.]+ s \\($reason" "$out"
  expect_match "$name: energy from $source" "energy [0-9.]+ J [+]-[0-9.]+ \\($source\\)" "$out"
  case_name=$name   # check() sets name itself
  check "$case_name: $(energy "$out") J is the exact $want J" near "$(energy "$out")" "$want" 0.002
  standing=yes
  printf '%s\n' "$out" | grep -q 'verdict=inconclusive' && standing=no
  expect_eq "$case_name: the fault alone leaves the verdict standing" "$standing" yes
}

case_ stuck 'energy_update_ms 25\nat 0 power=300 util=50\nsensor_fault counter_stuck 1000 3000\n' \
  counter-stuck "gpu_power_instant_W trapezoid" "the energy counter did not move while power read 300 W or more\\): energy from gpu_power_instant_W trapezoid instead of gpu_energy_mJ counter"
case_ never 'energy_update_ms 25\nat 0 power=75 util=0\nsensor_fault counter_stuck 0 100000\n' \
  counter-stuck "gpu_power_instant_W trapezoid" "the energy counter did not move while power read 75 W"
expect_match "never: the counter never moved over the whole trace" "counter-stuck over 0.000-4.990 s" "$out"
case_ reset 'energy_update_ms 25\nat 0 power=300 util=50\nsensor_fault counter_reset 2000 2000\n' \
  counter-backwards "gpu_power_instant_W trapezoid" "the energy counter went back by 1592.500 J"
case_ jump 'preset h100\nat 0 power=300 util=50\nsensor_fault counter_jump 2000 2000 5000000\n' \
  counter-jump "gpu_power_instant_W trapezoid" "one counter increment implies [0-9]+ W, over twice the power limit"
case_ lost 'energy_update_ms 25\nat 0 power=300 util=50\nunsupported_after 100 field:83\nunsupported_after 100 nvmlDeviceGetTotalEnergyConsumption\n' \
  sensor-lost "gpu_power_instant_W trapezoid" "the energy counter stopped reporting"
# instant power frozen at 300 W over [1, 4] s while the load alternates:
# with the counter, the energy is still the counter's (flag only); without
# it, the frozen instant power is not used: the 1 s average is.
frozen="sensor_fault instant_frozen 1000 4000\n"
t=0; while [ $t -lt 5000 ]; do frozen="${frozen}at $t power=300 util=40\nat $((t + 100)) power=500 util=80\n"; t=$((t + 200)); done
printf '%b' "energy_update_ms 25\n$frozen" >frozen.scn
rec frozen.scn frozen.csv
out=$("$FLINCH" analyze --csv frozen.csv --start s --end e)
want=$("$HELPERS/simtool" energy frozen.scn 0 1500 2224)
expect_match "frozen: flagged power-frozen with its span" \
  "gpu 0 sensors: power-frozen over 1.000-[0-9.]+ s \\(instantaneous power held 300.000 W while utilization kept changing\\)$" "$out"
check "frozen: the counter's energy stands ($(energy "$out") J, exact $want J)" near "$(energy "$out")" "$want" 7
printf '%b' "unsupported field:83\nunsupported nvmlDeviceGetTotalEnergyConsumption\n$frozen" >frozen2.scn
rec frozen2.scn frozen2.csv
out=$("$FLINCH" analyze --csv frozen2.csv --start s --end e)
expect_match "frozen, no counter: the 1 s average instead of the frozen instant power" \
  "power-frozen .*: energy from gpu_power_W trapezoid instead of gpu_power_instant_W trapezoid" "$out"
done_testing
