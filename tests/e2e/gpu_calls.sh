# gpu_calls.sh — how flinch record asks the driver (issue 13): one
# field-values call per GPU per tick, the medium and slow groups at their
# periods (counted by the simulated library, FLINCH_SIM_STATS), per-entry
# errors inside a successful field-values call, the fallbacks (field 185 ->
# nvmlDeviceGetPowerUsage, nvmlDeviceGetTemperature DEPRECATED ->
# nvmlDeviceGetTemperatureV), NO_PERMISSION GPUs under --gpu all, and the new
# columns (driver timestamps, P-state, throttle-time counters).
. "$ROOT/tests/lib.sh"
LEGACY="$BUILD/sim-legacy/libnvidia-ml.so.1"
S="$HELPERS/simtool"

rec() { # rec SCENARIO OUT ARGS...: stderr in err.txt, counts in stats.txt
  scn=$1; out=$2; shift 2
  rm -f "$out" stats.txt
  FLINCH_SIM_STATS=stats.txt FLINCH_SIM_SCENARIO="$scn" "$FLINCH" record --out "$out" \
    --nvml-lib "$SIM" --no-rapl "$@" 2>err.txt
}
calls() { awk -v f="$1" -v g="${2:-0}" '$1 == "gpu" && $2 == g && $3 == f { print $4; n = 1 } END { if (!n) print 0 }' stats.txt; }
col() { csv_col "$1" "$2" | sed -n "$3p"; }

# --- the schedule: 1 s at 10 ms = ticks 0..99 -------------------------------
printf 'at 0 power=300 util=50 clock=1500 temp=50 reasons=0x4 pstate=2\n' > base.scn
rec base.scn base.csv --seconds 1 --interval-ms 10
expect_eq "1 s at 10 ms: exit 0, no warnings" "$?:$(cat err.txt)" "0:"
ticks=$(grep -c ',SAMPLE,' base.csv)
last=$(csv_col base.csv tick | grep -v '^$' | tail -n 1)
expect_eq "one field-values call per sampled tick" "$(calls nvmlDeviceGetFieldValues)" "$ticks"
expect_eq "utilization every sampled tick" "$(calls nvmlDeviceGetUtilizationRates)" "$ticks"
# medium every 5 ticks (50 ms): ticks 0, 5, ..., 95 = 20 (skipped ticks can only lower it)
check "SM clock: once every 5 ticks ($(calls nvmlDeviceGetClockInfo) for last tick $last)" \
  test "$(calls nvmlDeviceGetClockInfo)" -le 20 -a "$(calls nvmlDeviceGetClockInfo)" -ge 18
expect_eq "reasons with the SM clock" "$(calls nvmlDeviceGetCurrentClocksEventReasons)" "$(calls nvmlDeviceGetClockInfo)"
# (the power limit once more at start, for the flinch_gpu EVENT row)
expect_eq "slow group once in 1 s (temperature, memory, limit, P-state)" \
  "$(calls nvmlDeviceGetTemperature) $(calls nvmlDeviceGetMemoryInfo) $(calls nvmlDeviceGetEnforcedPowerLimit) $(calls nvmlDeviceGetPerformanceState)" "1 1 2 1"
expect_eq "no power-usage or energy-function calls where the fields answer" \
  "$(calls nvmlDeviceGetPowerUsage) $(calls nvmlDeviceGetTotalEnergyConsumption)" "0 0"
total=$(awk '$1 == "gpu" && $3 != "nvmlDeviceGetHandleByIndex" { n += $4 } END { print n }' stats.txt)
check "at most 3 NVML calls per tick on average ($total for $ticks ticks)" test "$total" -le $((3 * ticks))
# Slow and medium values repeat their reading on every row.
expect_eq "temperature, P-state, limit on every row" \
  "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $3 == "SAMPLE" { print $c["gpu_temp_C"], $c["gpu_pstate"], $c["gpu_power_limit_W"], $c["gpu_util_pct"] }' base.csv | sort -u)" \
  "50 2 700.000 50"
# The driver's timestamps: energy and instant power from one call share one.
expect_eq "field timestamps set and equal on every row" \
  "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $3 == "SAMPLE" { print ($c["gpu_energy_ts_us"] != "" && $c["gpu_energy_ts_us"] == $c["gpu_power_instant_ts_us"]) }' base.csv | sort -u)" 1
# Throttle time: reasons 0x4 (power cap) all along, so field 74 grows with
# time and the other three stay 0.
res=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $3 == "SAMPLE" {
        p = $c["gpu_throttle_power_cap_ns"]; if (n++ && p <= prev) bad++; prev = p
        o = o $c["gpu_throttle_sw_thermal_ns"] $c["gpu_throttle_hw_thermal_ns"] $c["gpu_throttle_hw_brake_ns"] }
      END { print bad + 0, (o ~ /^0+$/) }' base.csv)
expect_eq "power-cap throttle time grows, the others stay 0" "$res" "0 1"
# against the samples' own span (990 ms unless a loaded machine woke the
# first or the last tick late; they always run)
span=$(awk -F, '$3 == "SAMPLE" { if (!n++) f = $1; l = $1 } END { print l - f }' base.csv)
first=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $3 == "SAMPLE" { print $c["gpu_throttle_power_cap_ns"]; exit }' base.csv)
lastv=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $3 == "SAMPLE" { v = $c["gpu_throttle_power_cap_ns"]; t = $1 } END { print v }' base.csv)
check "power-cap throttle time over the recording is its length ($((lastv - first)) ns, samples $span ns apart)" \
  near "$((lastv - first))" "$span" 30000000

# --- PCIe byte counters (fields 197/198) in the same call ---------------------
printf 'at 0 power=300 pcie_tx=1000 pcie_rx=250\n' > pcie.scn
rec pcie.scn pcie.csv --seconds 0.5 --interval-ms 10
res=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $3 == "SAMPLE" {
        if (!n++) { t0 = $1; x0 = $c["gpu_pcie_tx_bytes"]; r0 = $c["gpu_pcie_rx_bytes"] }
        t1 = $1; x1 = $c["gpu_pcie_tx_bytes"]; r1 = $c["gpu_pcie_rx_bytes"] }
      END { dt = (t1 - t0) / 1e9; printf "%.2f %.2f", (x1 - x0) / 1e9 / dt, (r1 - r0) / 1e9 / dt }' pcie.csv)
tx=${res% *}; rx=${res#* }
check "PCIe TX counter grows at the scenario's 1000 MB/s ($tx GB/s over the stamps)" near "$tx" 1.00 0.05
check "PCIe RX counter grows at 250 MB/s ($rx GB/s)" near "$rx" 0.25 0.02
expect_eq "PCIe counters cost no call of their own" "$(calls nvmlDeviceGetFieldValues)" "$(grep -c ',SAMPLE,' pcie.csv)"

# --- at 1 ms: the same in ticks --------------------------------------------
rec base.scn fast.csv --seconds 0.5 --interval-ms 1
ticks=$(grep -c ',SAMPLE,' fast.csv)
u=$(calls nvmlDeviceGetClockInfo)
check "1 ms: SM clock once every 50 ticks ($u calls, $ticks ticks)" test "$u" -ge 1 -a "$u" -le 10
expect_eq "1 ms: one field-values call per sampled tick" "$(calls nvmlDeviceGetFieldValues)" "$ticks"

# --- field 185 missing (pre-Ampere / GA100): gpu_power_W from PowerUsage -----
rec "$SCENARIOS/instant.scn" inst.csv --seconds 0.2 --interval-ms 10
ticks=$(grep -c ',SAMPLE,' inst.csv)
expect_eq "field 185 unsupported: PowerUsage every tick" "$(calls nvmlDeviceGetPowerUsage)" "$ticks"
expect_eq "field 185 unsupported: silent" "$(cat err.txt)" ""
expect_eq "field 185 unsupported: gpu_power_W filled on every row" \
  "$(awk -F, '$3 == "SAMPLE" && $5 == "" { n++ } END { print n + 0 }' inst.csv)" 0

# --- a per-entry error inside a successful field-values call ----------------
printf 'error 4 field:186\nat 0 power=300\n' > entry.scn
rec entry.scn entry.csv --seconds 0.2 --interval-ms 10
expect_eq "per-entry NO_PERMISSION: exit 0" "$?" 0
expect_eq "per-entry NO_PERMISSION: one warning" "$(cat err.txt)" \
  "flinch record: warning: GPU 0: reading instant power failed: Insufficient Permissions; leaving it empty"
expect_eq "per-entry NO_PERMISSION: instant power and its timestamp empty, energy there" \
  "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $3 == "SAMPLE" { print $c["gpu_power_instant_W"] "|" $c["gpu_power_instant_ts_us"] "|" ($c["gpu_energy_mJ"] != "") "|" ($c["gpu_energy_ts_us"] != "") }' entry.csv | sort -u)" \
  "||1|1"
expect_eq "per-entry NO_PERMISSION: still asked each tick (not dropped like NOT_SUPPORTED)" \
  "$(calls nvmlDeviceGetFieldValues)" "$(grep -c ',SAMPLE,' entry.csv)"

# --- nvmlDeviceGetTemperature deprecated: nvmlDeviceGetTemperatureV ---------
printf 'error 26 nvmlDeviceGetTemperature\nat 0 temp=61\n' > dep.scn
rec dep.scn dep.csv --seconds 2.2 --interval-ms 10
expect_eq "DEPRECATED temperature: exit 0, silent" "$?:$(cat err.txt)" "0:"
expect_eq "DEPRECATED temperature: asked once, then TemperatureV every second" \
  "$(calls nvmlDeviceGetTemperature) $(calls nvmlDeviceGetTemperatureV)" "1 3"
expect_eq "DEPRECATED temperature: the column holds TemperatureV's reading" \
  "$(csv_col dep.csv gpu_temp_C | grep -v '^$' | sort -u)" 61
expect_eq "TemperatureV checks the struct version (nvml.h's nvmlTemperature_v1)" \
  "$(FLINCH_SIM_SCENARIO=dep.scn "$S" query tempv tempv:12 | tail -n 2)" \
  "tempv 61
tempv:12 error 25 Argument version mismatch"

# --- NO_PERMISSION on a GPU's handle ----------------------------------------
printf 'gpus 3\nerror 4 nvmlDeviceGetHandleByIndex gpu 1\nat 0 power=75\n' > perm.scn
rec perm.scn perm.csv --seconds 0.1 --interval-ms 10 --gpu all
expect_eq "--gpu all: a NO_PERMISSION GPU is skipped (exit 0)" "$?" 0
expect_eq "--gpu all: the warning names it" "$(cat err.txt)" \
  "flinch record: warning: GPU 1: Insufficient Permissions; skipping it"
expect_eq "--gpu all: rows of GPUs 0 and 2 only" \
  "$(csv_col perm.csv gpu_index | grep -v '^$' | sort -u | tr '\n' ' ')" "0 2 "
rec perm.scn perm1.csv --seconds 0.1 --interval-ms 10 --gpu 1
expect_eq "--gpu 1: NO_PERMISSION is an error (exit 2)" "$?" 2
expect_eq "--gpu 1: message" "$(cat err.txt)" "flinch record: GPU 1: Insufficient Permissions"
printf 'gpus 1\nerror 4 nvmlDeviceGetHandleByIndex\n' > perm0.scn
rec perm0.scn perm0.csv --seconds 0.1 --gpu all
expect_eq "--gpu all, no GPU permitted: exit 2 and why" "$?:$(tail -n 1 err.txt)" \
  "2:flinch record: --gpu all: no GPU this user may query"

# --- an old driver: no field values, so energy/power by function ----------
rm -f stats.txt
FLINCH_SIM_STATS=stats.txt FLINCH_SIM_SCENARIO=base.scn "$FLINCH" record --out legacy.csv \
  --nvml-lib "$LEGACY" --no-rapl --seconds 0.2 --interval-ms 10 2>err.txt
ticks=$(grep -c ',SAMPLE,' legacy.csv)
expect_eq "legacy: PowerUsage every tick, no field values" \
  "$(calls nvmlDeviceGetPowerUsage) $(calls nvmlDeviceGetFieldValues)" "$ticks 0"
expect_eq "legacy: throttle and timestamp cells empty, P-state there" \
  "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $3 == "SAMPLE" { print $c["gpu_energy_ts_us"] $c["gpu_throttle_power_cap_ns"] "|" $c["gpu_pstate"] }' legacy.csv | sort -u)" "|2"

done_testing
