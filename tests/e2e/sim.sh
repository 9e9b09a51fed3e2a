# tests/e2e/sim.sh — the simulated NVML, driven through dlopen by simtool
# exactly as flinch record drives it: exported symbols, readings at known
# scenario times, averaged power, exact energy and its counter, period wrap,
# every fault directive, return codes and parse errors.
#
# Timing: FLINCH_SIM_EPOCH_NS is set so that "now" is a chosen scenario
# time; every check picks a time at least ~400 ms inside a segment where the
# expected value is constant, so a slow start (ASan, a loaded machine) does
# not change it. Values are then checked exactly.
. "$ROOT/tests/lib.sh"

S=$HELPERS/simtool
LEGACY=$BUILD/sim-legacy/libnvidia-ml.so.1
export SIM
unset FLINCH_SIM_SCENARIO FLINCH_SIM_EPOCH_NS

# q SCENARIO AT_MS ITEM...: query at scenario time AT_MS (+ start-up delay).
q() {
  scn=$1; at=$2; shift 2
  FLINCH_SIM_SCENARIO=$scn "$S" query --at "$at" "$@"
}
# line N TEXT: the Nth line of TEXT.
line() { printf '%s\n' "$2" | sed -n "${1}p"; }

# --- the built-in scenario and the exported symbols ---------------------
"$S" builtin >builtin.scn
check "built-in scenario is demo.scn byte for byte" cmp -s builtin.scn "$SCENARIOS/demo.scn"

all_syms="nvmlInit_v2 nvmlInit nvmlShutdown nvmlErrorString nvmlDeviceGetCount_v2 nvmlDeviceGetCount nvmlDeviceGetHandleByIndex_v2 nvmlDeviceGetHandleByIndex nvmlDeviceGetName nvmlDeviceGetPowerUsage nvmlDeviceGetUtilizationRates nvmlDeviceGetMemoryInfo nvmlDeviceGetClockInfo nvmlDeviceGetTemperature nvmlDeviceGetTotalEnergyConsumption nvmlDeviceGetFieldValues nvmlDeviceGetEnforcedPowerLimit nvmlDeviceGetCurrentClocksEventReasons nvmlDeviceGetCurrentClocksThrottleReasons nvmlDeviceGetTemperatureV nvmlDeviceGetPerformanceState nvmlSystemGetDriverVersion nvmlSystemGetNVMLVersion nvmlDeviceGetUUID nvmlDeviceGetPciInfo_v3 nvmlDeviceGetPersistenceMode nvmlDeviceGetComputeMode nvmlDeviceGetMigMode nvmlDeviceGetComputeRunningProcesses_v3 nvmlDeviceGetComputeRunningProcesses_v2 nvmlDeviceGetComputeRunningProcesses nvmlGpmQueryDeviceSupport nvmlGpmSampleAlloc nvmlGpmSampleFree nvmlGpmSampleGet nvmlGpmMetricsGet nvmlDeviceGetProcessUtilization nvmlDeviceGetMaxClockInfo flinchsim_energy_J flinchsim_epoch_ns flinchsim_builtin_scenario flinchsim_vclock_now flinchsim_vclock_sleep_until flinchsim_vclock_wall_offset_ns"
legacy_syms="nvmlInit nvmlShutdown nvmlErrorString nvmlDeviceGetCount nvmlDeviceGetHandleByIndex nvmlDeviceGetName nvmlDeviceGetPowerUsage nvmlDeviceGetUtilizationRates nvmlDeviceGetMemoryInfo nvmlDeviceGetClockInfo nvmlDeviceGetTemperature nvmlDeviceGetEnforcedPowerLimit nvmlDeviceGetCurrentClocksThrottleReasons nvmlDeviceGetPerformanceState nvmlSystemGetDriverVersion nvmlSystemGetNVMLVersion nvmlDeviceGetUUID nvmlDeviceGetPciInfo_v3 nvmlDeviceGetPersistenceMode nvmlDeviceGetComputeMode nvmlDeviceGetComputeRunningProcesses nvmlDeviceGetMaxClockInfo flinchsim_energy_J flinchsim_epoch_ns flinchsim_builtin_scenario flinchsim_vclock_now flinchsim_vclock_sleep_until flinchsim_vclock_wall_offset_ns"
expect_eq "exports every NVML entry point (dlsym)" "$("$S" syms | tr '\n' ' ')" "$all_syms "
expect_eq "legacy ABI: no _v2, energy, fields, EventReasons (dlsym)" \
  "$("$S" --lib "$LEGACY" syms | tr '\n' ' ')" "$legacy_syms "
if command -v nm >/dev/null 2>&1; then
  expect_eq "nothing else in the dynamic symbol table (nm -D)" \
    "$(nm -D --defined-only "$SIM" | awk '$2 == "T" { print $3 }' | sort | tr '\n' ' ')" \
    "$(printf '%s\n' $all_syms | sort | tr '\n' ' ')"
  expect_eq "legacy: nothing else exported (nm -D)" \
    "$(nm -D --defined-only "$LEGACY" | awk '$2 == "T" { print $3 }' | sort | tr '\n' ' ')" \
    "$(printf '%s\n' $legacy_syms | sort | tr '\n' ' ')"
else
  skip "nothing else in the dynamic symbol table (nm -D)" "no nm"
  skip "legacy: nothing else exported (nm -D)" "no nm"
fi
expect_eq "legacy ABI still serves the pre-_v2 calls" \
  "$(FLINCH_SIM_SCENARIO=$SCENARIOS/demo.scn "$S" --lib "$LEGACY" query count throttle reasons energy fields:186)" \
  "count 1
handle:0 ok
throttle 0x1
reasons missing nvmlDeviceGetCurrentClocksEventReasons
energy missing nvmlDeviceGetTotalEnergyConsumption
fields:186 missing nvmlDeviceGetFieldValues"

# --- readings at known scenario times (demo.scn) ------------------------
# 1200 ms: request 1 is computing (segment [1000, 1724)).
# (FLINCH_SIM_EPOCH_NS set from the shell here, as recorder tests do; q
# below has simtool set it.)
now=$("$S" now)
out=$(FLINCH_SIM_SCENARIO=$SCENARIOS/demo.scn FLINCH_SIM_EPOCH_NS=$((now - 1200000000)) \
      "$S" query t count name util mem clock temp limit reasons throttle fields:186 null badhandle handle:1)
t=$(line 1 "$out" | cut -d' ' -f2)
check "demo busy query landed inside [1200, 1724) ms (t=$t)" test "$t" -ge 1200 -a "$t" -lt 1724
expect_eq "demo at 1.2 s: readings through every entry point" "$(printf '%s\n' "$out" | sed 1d)" \
  "count 1
handle:0 ok
name Simulated H200
util 98 71
mem 150754820096 73160196096 77594624000
clock 1980
temp 52
limit 700000
reasons 0x0
throttle 0x0
field:186 612000
null error 2 Invalid Argument
badhandle error 2 Invalid Argument
handle:1 error 2 Invalid Argument"
# 3200 ms: request 2 is waiting; the 1 s average window holds only idle.
expect_eq "demo at 3.2 s: idle, averaged power exactly 75 W" \
  "$(q "$SCENARIOS/demo.scn" 3200 power fields:185,186 util clock temp mem reasons)" \
  "handle:0 ok
power 75000
field:185 75000
field:186 75000
util 0 0
clock 345
temp 45
mem 150754820096 77354500096 73400320000
reasons 0x1"

# --- averaged versus instantaneous power --------------------------------
# 300 ms of 660 W in a 1 s window of 60 W: 60*0.7 + 660*0.3 = 240 W for
# every t in [1300, 2000].
printf 'at 0 power=60\nat 1000 power=660\nat 1300 power=60\n' >step.scn
expect_eq "1 s average 300 ms after a 60->660 W step is 240 W" \
  "$(q step.scn 1500 power fields:185,186)" \
  "handle:0 ok
power 240000
field:185 240000
field:186 60000"
printf 'power_readout instant\nat 0 power=60\nat 1000 power=660\nat 1600 power=60\n' >instant.scn
out=$(q instant.scn 1100 power fields:186)
expect_eq "power_readout instant returns the current power" "$out" \
  "handle:0 ok
power 660000
field:186 660000"
expect_eq "before time 0 the GPU reads its time-0 values" \
  "$(q step.scn -5000 power util)" "handle:0 ok
power 60000
util 0 0"

# --- exact energy --------------------------------------------------------
expect_eq "demo energy over [1000, 1724] ms = 612*0.724 J" "$("$S" energy "$SCENARIOS/demo.scn" 0 1000 1724)" "443.088000"
expect_eq "built-in energy over [1000, 1724] ms" "$("$S" energy builtin 0 1000 1724)" "443.088000"
expect_eq "demo energy over [3000, 3724] ms = 75*0.724 J" "$("$S" energy "$SCENARIOS/demo.scn" 0 3000 3724)" "54.300000"
expect_eq "demo energy over [900, 1100] straddles a step" "$("$S" energy "$SCENARIOS/demo.scn" 0 900 1100)" "68.700000"
expect_eq "demo energy over [0, 5500] ms" "$("$S" energy "$SCENARIOS/demo.scn" 0 0 5500)" "898.788000"
expect_eq "energy before time 0 at the time-0 power" "$("$S" energy "$SCENARIOS/demo.scn" 0 -1000 0)" "75.000000"
expect_eq "mixed.scn energy over [1000, 1724]" "$("$S" energy "$SCENARIOS/mixed.scn" 0 1000 1724)" "248.694000"
expect_eq "compute.scn energy over [1000, 1724]" "$("$S" energy "$SCENARIOS/compute.scn" 0 1000 1724)" "443.088000"
expect_eq "waiting.scn energy over [1000, 1724]" "$("$S" energy "$SCENARIOS/waiting.scn" 0 1000 1724)" "54.300000"
expect_eq "multi_gpu.scn GPU 1 energy over [3000, 3724]" "$("$S" energy "$SCENARIOS/multi_gpu.scn" 1 3000 3724)" "427.160000"

# The counter: base + integral to the last multiple of energy_update_ms, mJ
# rounded down. In [2000, 3000): 5000 + 100*500 + 300.5*1500 = 505750 mJ.
printf 'energy_update_ms 1000\nenergy_base_mJ 5000\nat 0 power=100\nat 500 power=300.5\n' >counter.scn
expect_eq "energy counter is base + exact integral at the last update" \
  "$(q counter.scn 2300 energy)" "handle:0 ok
energy 505750"
printf 'energy_update_ms 1000\nenergy_base_mJ 0\npower_readout instant\nat 0 power=0.0015\n' >floor.scn
expect_eq "counter and power are rounded down to whole mJ / mW" \
  "$(q floor.scn 1300 energy power)" "handle:0 ok
energy 1
power 1"
# demo.scn updates every 25 ms; at 75 W that is 1875 mJ per update.
e=$(q "$SCENARIOS/demo.scn" 400 energy | sed -n 's/^energy //p')
check "demo counter moves in 25 ms steps (e=$e)" \
  awk -v e="$e" 'BEGIN { d = e - 1000000; exit !(d % 1875 == 0 && d >= 30000 && d < 75000) }'

# --- period_ms: the timeline repeats, integrals stay exact ----------------
expect_eq "soak.scn: one hour = 1800 periods of 538.788 J" \
  "$("$S" energy "$SCENARIOS/soak.scn" 0 0 3600000)" "969818.400000"
expect_eq "soak.scn: [6000, 6800] equals [0, 800]" "$("$S" energy "$SCENARIOS/soak.scn" 0 6000 6800)" "221.100000"
expect_eq "soak.scn: an interval across a period boundary" "$("$S" energy "$SCENARIOS/soak.scn" 0 1900 2600)" "106.200000"
expect_eq "soak.scn at 3 periods + 700 ms reads as at 700 ms" \
  "$(q "$SCENARIOS/soak.scn" 6700 util fields:186)" "handle:0 ok
util 98 71
field:186 612000"
# Period 1000 ms, 100 W then 500 W from 400 ms: 340 J per period. A 1 s
# average always spans one whole period (340 W); the counter at [5000, 6000)
# holds 5 periods.
printf 'period_ms 1000\nenergy_update_ms 1000\nenergy_base_mJ 0\nat 0 power=100\nat 400 power=500\n' >period.scn
expect_eq "period wrap: counter and average exact after 5 periods" \
  "$(q period.scn 5100 energy power fields:186)" "handle:0 ok
energy 1700000
power 340000
field:186 100000"

# --- several GPUs ---------------------------------------------------------
expect_eq "multi_gpu.scn at 3.2 s: GPU 1 computes while GPU 0 waits" \
  "$(q "$SCENARIOS/multi_gpu.scn" 3200 count util gpu:1 util clock gpu:2)" "count 2
handle:0 ok
util 0 0
gpu:1 ok
util 95 65
clock 1965
gpu:2 error 2 Invalid Argument"

# --- faults ---------------------------------------------------------------
expect_eq "no_driver: nvmlInit fails with Driver Not Loaded" \
  "$(FLINCH_SIM_SCENARIO=$SCENARIOS/no_driver.scn "$S" query count)" "init error 9 Driver Not Loaded"
expect_eq "no_gpus: zero devices, index 0 invalid" \
  "$(FLINCH_SIM_SCENARIO=$SCENARIOS/no_gpus.scn "$S" query count handle:0)" "count 0
handle:0 error 2 Invalid Argument"
expect_eq "unsupported.scn: energy and field 186 not supported, the rest works" \
  "$(q "$SCENARIOS/unsupported.scn" 3200 energy fields:186,185,999 power)" "handle:0 ok
energy error 3 Not Supported
field:186 error 3 Not Supported
field:185 75000
field:999 error 3 Not Supported
power 75000"
# max_clock_MHz (nvmlDeviceGetMaxClockInfo, read once by the recorder): 1980
# by default on both presets, per GPU when set, the memory clock's 2619; the
# usual faults.
printf 'gpus 3\nmax_clock_MHz 1410 gpu 1\n' >maxclk.scn
expect_eq "max_clock_MHz: default 1980 (both presets), per GPU when set" \
  "$(q maxclk.scn 0 maxclock gpu:1 maxclock gpu:2 maxclock)" "handle:0 ok
maxclock 1980 2619
gpu:1 ok
maxclock 1410 2619
gpu:2 ok
maxclock 1980 2619"
expect_eq "max_clock_MHz: the h100 preset keeps 1980" \
  "$(FLINCH_SIM_PRESET=h100 q maxclk.scn 0 maxclock)" "handle:0 ok
maxclock 1980 2619"
printf 'max_clock_MHz 1755\nunsupported nvmlDeviceGetMaxClockInfo\n' >maxclk2.scn
expect_eq "max_clock_MHz: unsupported like any entry point" "$(q maxclk2.scn 0 maxclock)" "handle:0 ok
maxclock error 3 Not Supported"
printf 'unsupported_after 3 nvmlDeviceGetPowerUsage\nunsupported_after 1 field:185\nunsupported nvmlDeviceGetCount_v2\n' >after.scn
expect_eq "unsupported_after: a feature disappears after N calls" \
  "$(q after.scn 3200 count power power power power fields:185 fields:185 power)" "count error 3 Not Supported
handle:0 ok
power 60000
power 60000
power 60000
power error 3 Not Supported
field:185 60000
field:185 error 3 Not Supported
power error 3 Not Supported"
# lost.scn: lost_after 30. The handle is query 1, so 29 readings succeed.
out=$(q "$SCENARIOS/lost.scn" 3200 $(printf 'power %.0s' $(seq 31)) handle:0 count)
expect_eq "lost_after 30: 29 readings after the handle succeed" "$(printf '%s\n' "$out" | grep -c '^power 75000$')" 29
expect_eq "lost_after 30: then every query is GPU is lost, handles too" \
  "$(printf '%s\n' "$out" | tail -4)" "power error 15 GPU is lost
power error 15 GPU is lost
handle:0 error 15 GPU is lost
count 1"
printf 'gpus 2\nlost_after 3 gpu 1\n' >lost1.scn
expect_eq "lost_after N gpu G counts and loses only GPU G" \
  "$(q lost1.scn 3200 gpu:1 power power power gpu:0 power power power power)" "gpu:1 ok
power 60000
power 60000
power error 15 GPU is lost
gpu:0 ok
power 60000
power 60000
power 60000
power 60000"

# us_of OUT N: the us= figure of line N.
us_of() { line "$2" "$1" | sed 's/.* us=//'; }
printf 'stall_ms 300 at_query 6\n' >stall.scn
out=$(FLINCH_SIM_SCENARIO=stall.scn "$S" query -T power power power power power power power)
check "stall_ms 300 at_query 6: the 6th query takes >= 300 ms ($(us_of "$out" 6) us)" test "$(us_of "$out" 6)" -ge 300000
check "stall_ms: the queries around it do not stall" \
  test "$(us_of "$out" 5)" -lt 300000 -a "$(us_of "$out" 7)" -lt 300000
out=$(FLINCH_SIM_SCENARIO=$SCENARIOS/stall.scn "$S" query -T $(printf 'power %.0s' $(seq 40)))
check "stall.scn: the 40th query (39th power) takes >= 50 ms ($(us_of "$out" 40) us)" \
  test "$(us_of "$out" 40)" -ge 50000
printf 'gpus 2\nstall_ms 300 at_query 2 gpu 1\n' >stall1.scn
out=$(FLINCH_SIM_SCENARIO=stall1.scn "$S" query -T power gpu:1 power)
check "stall_ms ... gpu 1 stalls GPU 1's 2nd query, not GPU 0's" \
  test "$(us_of "$out" 2)" -lt 300000 -a "$(us_of "$out" 4)" -ge 300000
printf 'latency_us 20000\n' >latency.scn
out=$(FLINCH_SIM_SCENARIO=latency.scn "$S" query -T count power power power)
check "latency_us 20000: every device query takes >= 20 ms" \
  test "$(us_of "$out" 3)" -ge 20000 -a "$(us_of "$out" 4)" -ge 20000 -a "$(us_of "$out" 5)" -ge 20000

# --- return codes, clocks -------------------------------------------------
# The built-in demo at time ~0 is idle 75 W (a window before 0 reads 75 W).
expect_eq "calls after shutdown are Uninitialized; init again works" \
  "$("$S" query power shutdown power count handle:0 shutdown init power)" "handle:0 ok
power 75000
shutdown ok
power error 1 Uninitialized
count error 1 Uninitialized
handle:0 error 1 Uninitialized
shutdown error 1 Uninitialized
init ok
power 75000"
before=$("$S" now)
out=$("$S" query epoch fieldts)
after=$("$S" now)
e=$(line 1 "$out" | cut -d' ' -f2)
check "without FLINCH_SIM_EPOCH_NS scenario time 0 is nvmlInit" test "$e" -ge "$before" -a "$e" -le "$after"
d=$(line 3 "$out" | cut -d' ' -f2)
check "field timestamps are us since 1970 (off by $d us)" near "$d" 0 1000000

# --- parse errors ---------------------------------------------------------
# perr NAME SCENARIO-TEXT EXPECTED-STDERR
perr() {
  printf '%b' "$2" >bad.scn
  got=$(FLINCH_SIM_SCENARIO=bad.scn "$S" query count 2>err.txt)
  expect_eq "parse error: $1" "$got|$(cat err.txt)" "init error 999 Unknown Error|$3"
}
perr "unknown directive" '# a comment\nbogus 1\n' "flinch-sim: bad.scn:2: unknown directive 'bogus'"
perr "max_clock_MHz syntax" 'max_clock_MHz 0\n' "flinch-sim: bad.scn:1: max_clock_MHz: expected an integer 1..100000, got '0'"
perr "max_clock_MHz gpu" 'max_clock_MHz 1000 gpu\n' "flinch-sim: bad.scn:1: max_clock_MHz: expected N [gpu G]"
perr "bad gpus" 'gpus 0\n' "flinch-sim: bad.scn:1: gpus: expected an integer 1..72, got '0'"
perr "at out of order" 'at 1000 power=1\nat 500 power=2\n' \
  "flinch-sim: bad.scn:2: at: time 500 is before the previous at (1000); at lines must be in time order"
perr "unknown key" '\nat 0 pwr=3\n' \
  "flinch-sim: bad.scn:2: at: unknown key 'pwr' (power, util, mem_util, clock, temp, mem_used, reasons, pstate, pcie_tx, pcie_rx, compute, sm_active, occupancy, tensor, dram_bw, proc_child, proc_other)"
perr "bad value" 'at 0 util=101\n' "flinch-sim: bad.scn:1: at: util: expected an integer 0..100, got '101'"
perr "unknown function" 'unsupported nvmlDeviceGetPower\n' \
  "flinch-sim: bad.scn:1: unsupported: unknown function 'nvmlDeviceGetPower'"
perr "GPU beyond gpus" 'lost_after 3 gpu 2\ngpus 2\n' "flinch-sim: bad.scn:1: gpu 2: no such GPU (gpus 2)"
perr "at outside the period" 'period_ms 1000\nat 0 power=1\nat 1000 power=2\n' \
  "flinch-sim: bad.scn:3: at 1000: not inside period_ms 1000"
perr "stall syntax" 'stall_ms 50 at 40\n' "flinch-sim: bad.scn:1: stall_ms: expected M at_query N [gpu G]"
got=$(FLINCH_SIM_SCENARIO=$T/missing.scn "$S" query count 2>err.txt)
expect_eq "missing scenario file" "$got|$(cat err.txt)" \
  "init error 999 Unknown Error|flinch-sim: $T/missing.scn: No such file or directory"
got=$(FLINCH_SIM_EPOCH_NS=soon "$S" query count 2>err.txt)
expect_eq "bad FLINCH_SIM_EPOCH_NS" "$got|$(cat err.txt)" \
  "init error 999 Unknown Error|flinch-sim: FLINCH_SIM_EPOCH_NS: expected an integer, got 'soon'"

# Every shipped scenario parses.
for f in "$SCENARIOS"/*.scn; do
  got=$(FLINCH_SIM_SCENARIO=$f "$S" query count 2>&1)
  case $f in
    */no_driver.scn) want="init error 9 Driver Not Loaded" ;;
    */no_gpus.scn) want="count 0" ;;
    */multi_gpu.scn) want="count 2" ;;
    *) want="count 1" ;;
  esac
  expect_eq "scenario $(basename "$f") loads" "$got" "$want"
done

done_testing
