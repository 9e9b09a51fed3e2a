# record_values.sh — flinch record against the simulated GPU's demo
# scenario: every cell of rows well inside a known segment must hold the
# scenario's exact value; averaged gpu_power_W versus instant power; energy
# counter exact; NOT_SUPPORTED and an old-driver library leave cells empty.
. "$ROOT/tests/lib.sh"

# Checks every SAMPLE row of $1 whose time (ms since the scenario epoch $2)
# is at least 20 ms away from a segment edge of demo.scn. Prints
# "checked N bad M" and the first bad rows. The fast values (field values)
# and utilization must be the scenario's at the row's time; the medium ones
# (SM clock, reasons: read every 50 ms) and the slow ones (temperature,
# memory used: every 1000 ms) a value the scenario had within that age
# (gpu_sampler.h), plus 5 ms for a late tick.
check_demo_rows() {
  awk -F, -v epoch="$2" '
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["row_type"] != "SAMPLE" { next }
    function overlap(a, b, lo, hi) { lo = a > 1000 ? a : 1000; hi = b < 1724 ? b : 1724; return hi > lo ? hi - lo : 0 }
    # got is the busy or the idle value, and the scenario had it in [lo, hi]
    function had(got, busyv, idlev, lo, hi) {
      return (got == busyv && hi >= 1000 && lo < 1724) || (got == idlev && (lo < 1000 || hi >= 1724))
    }
    {
      ms = ($c["t_mono_ns"] - epoch) / 1e6
      if (ms < 20 || (ms > 980 && ms < 1020) || (ms > 1700 && ms < 1745) || ms > 4480) next
      busy = ms >= 1000 && ms < 1724
      bad = $c["gpu_power_instant_W"] != (busy ? "612.000" : "75.000") || $c["gpu_power_limit_W"] != "700.000"
      u = $c["gpu_util_pct"] "," $c["gpu_mem_util_pct"]
      if (u != (busy ? "98,71" : "0,0")) { bad = 1; why = " utilization " u }
      m = $c["gpu_sm_clock_MHz"] "," $c["gpu_clock_event_reasons"]
      if (!had(m, "1980,0x0000000000000000", "345,0x0000000000000001", ms - 55, ms)) { bad = 1; why = " medium " m }
      sl = $c["gpu_temp_C"] "," $c["gpu_mem_used_MiB"]
      if (!had(sl, "52,74000", "45,70000", ms - 1005, ms)) { bad = 1; why = " slow " sl }
      # gpu_power_W: trailing 1 s average (time before 0 counted at 75 W)
      avg = 75 + 537 * overlap(ms - 1000, ms) / 1000
      d = $c["gpu_power_W"] - avg; if (d < 0) d = -d
      if ($c["gpu_power_W"] == "" || d > 1.0) bad = 1
      if (busy && ms > 1100 && $c["gpu_power_W"] + 0 >= 612) bad = 1
      # energy counter: base + exact integral to the last 25 ms update
      if (ms % 25 < 23.5) {
        t25 = int(ms / 25) * 25
        e = 1000000 + int(75 * t25 + 537 * overlap(0, t25))
        if ($c["gpu_energy_mJ"] != e) { bad = 1; why = " energy want " e }
      }
      # the driver stamps both fields of one call alike, in us since 1970
      if ($c["gpu_energy_ts_us"] == "" || $c["gpu_energy_ts_us"] != $c["gpu_power_instant_ts_us"]) { bad = 1; why = " timestamps" }
      d = $c["gpu_energy_ts_us"] / 1000 - $c["t_wall_ns"] / 1e6; if (d < 0) d = -d
      if (d > 50) { bad = 1; why = " timestamp far from t_wall_ns" }
      n++
      if (bad) { nbad++; if (nbad <= 3) printf "bad row at %.3f ms: %s%s\n", ms, $0, why }
      why = ""
    }
    END { printf "checked %d bad %d\n", n, nbad + 0 }' "$1"
}

epoch=$("$HELPERS/simtool" now)
FLINCH_SIM_EPOCH_NS=$epoch FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" \
  "$FLINCH" record --out demo.csv --seconds 2 --interval-ms 10 --nvml-lib "$SIM" --no-rapl 2>err.txt
expect_eq "demo recording exits 0" "$?" 0
expect_eq "demo recording: no warnings" "$(cat err.txt)" ""
res=$(check_demo_rows demo.csv "$epoch")
echo "$res" | grep -v '^checked' >&2
expect_match "demo rows hold the scenario's exact values" "^checked 1[0-9][0-9] bad 0$" "$(echo "$res" | tail -n 1)"
# The 1 s average lags: mid-burst it is far below the instant 612 W.
row=$(awk -F, -v e="$epoch" '$3 == "SAMPLE" && ($1 - e) / 1e6 >= 1300 { print; exit }' demo.csv)
ms=$(echo "$row" | awk -F, -v e="$epoch" '{ printf "%.3f", ($1 - e) / 1e6 }')
avg=$(echo "$row" | cut -d, -f5); inst=$(echo "$row" | cut -d, -f13)
expect_eq "instant power mid-burst" "$inst" "612.000"
check "averaged gpu_power_W mid-burst is 75 + 537 * (t - 1000) / 1000" \
  near "$avg" "$(awk -v m="$ms" 'BEGIN { print 75 + 537 * (m - 1000) / 1000 }')" 1.0

# power_readout instant: gpu_power_W equals the instant power.
epoch=$("$HELPERS/simtool" now)
FLINCH_SIM_EPOCH_NS=$epoch FLINCH_SIM_SCENARIO="$SCENARIOS/instant.scn" \
  "$FLINCH" record --out inst.csv --seconds 0.3 --interval-ms 10 --nvml-lib "$SIM" --no-rapl 2>/dev/null
expect_eq "instant readout: gpu_power_W == instant" \
  "$(awk -F, '$3 == "SAMPLE" && $5 != $13' inst.csv | wc -l)" 0
expect_eq "instant readout: last tick 29" "$(grep ',SAMPLE,' inst.csv | tail -n 1 | cut -d, -f18)" 29

# NOT_SUPPORTED energy counter and instant-power field: those cells empty,
# byte for byte; everything else present.
epoch=$("$HELPERS/simtool" now)
FLINCH_SIM_EPOCH_NS=$epoch FLINCH_SIM_SCENARIO="$SCENARIOS/unsupported.scn" \
  "$FLINCH" record --out unsup.csv --seconds 0.2 --interval-ms 10 --nvml-lib "$SIM" --no-rapl 2>err.txt
expect_eq "unsupported scenario exits 0" "$?" 0
expect_eq "NOT_SUPPORTED is silent" "$(cat err.txt)" ""
row=$(grep ',SAMPLE,' unsup.csv | sed -n 5p)
expect_eq "NOT_SUPPORTED row, byte level (after the timestamps)" \
  "$(echo "$row" | cut -d, -f3-17 | sed 's/,[0-9.]*$/,H/')" \
  "SAMPLE,,75.000,0,0,345,45,,0,,,70000,0x0000000000000001,700.000,H"
expect_match "tick and late_ns present" "^[0-9]+,[0-9]+$" "$(echo "$row" | cut -d, -f18,19)"

# An old driver (no _v2 symbols, no energy counter, no field values, only
# the old ClocksThrottleReasons name): recording works, those cells empty.
LEGACY="$BUILD/sim-legacy/libnvidia-ml.so.1"
FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" \
  "$FLINCH" record --out legacy.csv --seconds 0.2 --interval-ms 10 --nvml-lib "$LEGACY" --no-rapl 2>err.txt
expect_eq "legacy library exits 0" "$?" 0
expect_eq "legacy library: last tick 19" "$(grep ',SAMPLE,' legacy.csv | tail -n 1 | cut -d, -f18)" 19
row=$(grep ',SAMPLE,' legacy.csv | sed -n 3p)
expect_eq "legacy: energy and instant empty, reasons via ClocksThrottleReasons" \
  "$(echo "$row" | cut -d, -f5-16)" "75.000,0,0,345,45,,0,,,70000,0x0000000000000001,700.000"

done_testing
