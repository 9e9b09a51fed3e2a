# gpm_record.sh — GPM metrics on Hopper and newer (issue 13, section 4):
# the simulated driver's GPM (exact values, samples closer than its 100 ms
# refresh reading 0, version checks), the recorder's columns byte for byte
# (values on the row that ends their span only), its schedule (one sample
# and one metrics call per 200 ms, never closer than 100 ms), and the paths
# where GPM is not to be had: a GPU before Hopper, NO_PERMISSION at the
# query or mid-run, a driver without the symbols.
. "$ROOT/tests/lib.sh"
LEGACY="$BUILD/sim-legacy/libnvidia-ml.so.1"
S="$HELPERS/simtool"
TC="$HELPERS/tracecheck"

rec() { # rec SCENARIO OUT ARGS...: virtual time, stderr in err.txt, counts in stats.txt
  scn=$1; out=$2; shift 2
  rm -f "$out" stats.txt
  FLINCH_SIM_VIRTUAL_TIME=1 FLINCH_SIM_STATS=stats.txt FLINCH_SIM_SCENARIO="$scn" "$FLINCH" record \
    --out "$out" --nvml-lib "${LIB:-$SIM}" --no-rapl -q --no-dither "$@" 2>err.txt
}
calls() { awk -v f="$1" -v g="${2:-0}" '$1 == "gpu" && $2 == g && $3 == f { print $4; n = 1 } END { if (!n) print 0 }' stats.txt; }
# gpm FILE [GPU]: "tick sm occ tensor dram span" for each SAMPLE row of GPU with GPM values
gpm() {
  awk -F, -v g="${2:-0}" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $3 == "SAMPLE" && $c["gpu_index"] == g && $c["gpu_gpm_span_ns"] != "" {
      print $c["tick"], $c["gpu_sm_active_pct"], $c["gpu_sm_occupancy_pct"],
            $c["gpu_tensor_active_pct"], $c["gpu_dram_bw_pct"], $c["gpu_gpm_span_ns"] }' "$1"
}
# the five GPM cells of every SAMPLE row without a value: all empty
empty_between() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $3 == "SAMPLE" && $c["gpu_gpm_span_ns"] == "" {
      print $c["gpu_sm_active_pct"] "," $c["gpu_sm_occupancy_pct"] "," $c["gpu_tensor_active_pct"] "," $c["gpu_dram_bw_pct"] "," }' "$1" | sort -u
}
events() { "$TC" --events "$1" | cut -d' ' -f2- | grep '^flinch_gpm'; }

cat > g.scn <<'EOF'
at 0 power=75 util=0
at 1000 power=612 util=98 mem_util=71 sm_active=90 occupancy=40 tensor=60 dram_bw=30
at 1700 power=75 util=0 mem_util=0 sm_active=0 occupancy=0 tensor=0 dram_bw=0
EOF

# --- the simulated driver ------------------------------------------------------
out=$(FLINCH_SIM_SCENARIO=g.scn "$S" --lib "$SIM" query --at 1050 gpmsupport gpmsample:0 sleep:20 \
        gpmsample:1 gpmmetrics sleep:250 gpmsample:1 gpmmetrics gpmmetrics:2)
expect_eq "sim: Hopper supported; samples in one 100 ms refresh read 0 (garbage, no error); [1000, 1300] exact; version 2 refused" \
  "$out" "handle:0 ok
gpmsupport 1
gpmsample:0 ok
sleep:20
gpmsample:1 ok
gpmmetrics 2=0.000 3=0.000 5=0.000 10=0.000
sleep:250
gpmsample:1 ok
gpmmetrics 2=90.000 3=40.000 5=60.000 10=30.000
gpmmetrics:2 error 25 Argument version mismatch"
printf 'gpm off\nat 0 util=50\n' > off.scn
expect_eq "sim: gpm off plays a GPU before Hopper" \
  "$(FLINCH_SIM_SCENARIO=off.scn "$S" --lib "$SIM" query gpmsupport gpmsample:0 | tail -n 2)" \
  "gpmsupport 0
gpmsample:0 error 3 Not Supported"
expect_eq "sim: the legacy library has no GPM symbols" \
  "$(FLINCH_SIM_SCENARIO=off.scn "$S" --lib "$LEGACY" query gpmsupport | tail -n 1)" \
  "gpmsupport missing nvmlGpmQueryDeviceSupport"

# --- recorded: exact values on the rows that end their spans -----------------
rec g.scn g.csv --seconds 2.5 --interval-ms 10
expect_eq "record exits 0 without warnings" "$?:$(cat err.txt)" "0:"
expect_eq "every 20th tick carries the span [t - 200 ms, t]; [1600, 1800] is half busy" "$(gpm g.csv)" \
"20 0.0 0.0 0.0 0.0 200000000
40 0.0 0.0 0.0 0.0 200000000
60 0.0 0.0 0.0 0.0 200000000
80 0.0 0.0 0.0 0.0 200000000
100 0.0 0.0 0.0 0.0 200000000
120 90.0 40.0 60.0 30.0 200000000
140 90.0 40.0 60.0 30.0 200000000
160 90.0 40.0 60.0 30.0 200000000
180 45.0 20.0 30.0 15.0 200000000
200 0.0 0.0 0.0 0.0 200000000
220 0.0 0.0 0.0 0.0 200000000
240 0.0 0.0 0.0 0.0 200000000"
expect_eq "rows between GPM samples: the five cells empty, byte for byte" "$(empty_between g.csv)" ",,,,"
expect_eq "one flinch_gpm EVENT row" "$(events g.csv)" "flinch_gpm gpu=0 status=on every_ms=200"
expect_eq "one sample per 20 ticks (0..240), one metrics call per span, one support query" \
  "$(calls nvmlGpmSampleGet) $(calls nvmlGpmMetricsGet) $(calls nvmlGpmQueryDeviceSupport)" "13 12 1"
ticks=$(grep -c ',SAMPLE,' g.csv)
total=$(awk '$1 == "gpu" && $3 != "nvmlDeviceGetHandleByIndex" { n += $4 } END { print n }' stats.txt)
check "still at most 3 NVML calls per tick on average ($total for $ticks ticks)" test "$total" -le $((3 * ticks))
expect_eq "the reader accepts the columns" "$("$TC" g.csv | cut -d' ' -f1-2)" "rows=$(($(wc -l < g.csv) - 1)) samples=$ticks"

printf 'at 0 util=98 mem_util=71\n' > derived.scn
rec derived.scn derived.csv --seconds 0.45 --interval-ms 10
expect_eq "unset GPM readings derive from util and mem_util: sm = util, occupancy = half, tensor 0, DRAM = mem_util" \
  "$(gpm derived.csv)" "20 98.0 49.0 0.0 71.0 200000000
40 98.0 49.0 0.0 71.0 200000000"

rec derived.scn slow.csv --seconds 0.75 --interval-ms 60
expect_eq "60 ms ticks: every 3rd tick, 180 ms spans" "$(gpm slow.csv | cut -d' ' -f1,6)" "3 180000000
6 180000000
9 180000000
12 180000000"
expect_eq "60 ms ticks: the EVENT row says 180 ms" "$(events slow.csv)" "flinch_gpm gpu=0 status=on every_ms=180"

# A 60 ms stall in tick 2's first query (150 ms ticks; queries: 10 at open,
# the maximum SM clock among them; 9 in tick 0, 6 in tick 1): its sample comes 60 ms late, tick 3's would be
# 90 ms after it and waits for tick 4 (a 240 ms span). On virtual time.
printf 'stall_ms 60 at_query 26\nat 0 util=98 mem_util=71\n' > stall.scn
rec stall.scn stall.csv --seconds 1.2 --interval-ms 150
expect_eq "150 ms ticks, tick 2's sample 60 ms late: tick 3 takes none, no span under 100 ms" \
  "$(gpm stall.csv | cut -d' ' -f1,6 | tr '\n' ' ')" \
  "1 150000000 2 210000000 4 240000000 5 150000000 6 150000000 7 150000000 "

# --- where GPM is not to be had ------------------------------------------------
rec off.scn off.csv --seconds 0.5
expect_eq "pre-Hopper: columns empty, one EVENT row says why" \
  "$(gpm off.csv | wc -l) $(empty_between off.csv) $(events off.csv)" \
  '0 ,,,, flinch_gpm gpu=0 status=off reason=unsupported detail="isSupportedDevice=0 (GPM needs Hopper or newer)"'
expect_eq "pre-Hopper: no sample is ever asked for" "$(calls nvmlGpmSampleGet) $(calls nvmlGpmMetricsGet)" "0 0"
expect_eq "pre-Hopper: quiet (not a fault)" "$(cat err.txt)" ""

printf 'error 4 nvmlGpmQueryDeviceSupport\nat 0 util=50\n' > noperm.scn
rec noperm.scn noperm.csv --seconds 0.5
expect_eq "NO_PERMISSION at the query: columns empty, the reason" \
  "$(gpm noperm.csv | wc -l) $(events noperm.csv)" \
  '0 flinch_gpm gpu=0 status=off reason=no_permission detail="Insufficient Permissions"'

printf 'error 4 nvmlGpmSampleGet\nat 0 util=50\n' > noperm2.scn
rec noperm2.scn noperm2.csv --seconds 0.5
expect_eq "NO_PERMISSION at the first sample: one EVENT row, tried once" \
  "$(gpm noperm2.csv | wc -l) $(calls nvmlGpmSampleGet) $(events noperm2.csv)" \
  '0 1 flinch_gpm gpu=0 status=off reason=no_permission detail="Insufficient Permissions"'

printf 'error 4 nvmlGpmMetricsGet\nat 0 util=50\n' > noperm3.scn
rec noperm3.scn noperm3.csv --seconds 0.5
expect_eq "NO_PERMISSION at the first metrics call (tick 20): GPM stops there, the second EVENT row says why" \
  "$(gpm noperm3.csv | wc -l) $(calls nvmlGpmSampleGet) $(calls nvmlGpmMetricsGet) $(events noperm3.csv | tr '\n' '|')" \
  '0 2 1 flinch_gpm gpu=0 status=on every_ms=200|flinch_gpm gpu=0 status=off reason=no_permission detail="Insufficient Permissions"|'

printf 'error 999 nvmlGpmSampleGet\nat 0 util=50\n' > unknown.scn
rec unknown.scn unknown.csv --seconds 0.5
expect_eq "an unknown error on every sample: cells empty, one warning, GPM still asked every 200 ms" \
  "$(gpm unknown.csv | wc -l) $(calls nvmlGpmSampleGet) $(cat err.txt)" \
  "0 3 flinch record: warning: GPU 0: GPM sample failed: Unknown Error; leaving it empty"

printf 'unsupported_after 3 nvmlGpmSampleGet\nat 0 util=50\n' > later.scn
rec later.scn later.csv --seconds 1
expect_eq "GPM gone mid-run: two spans, then one more EVENT row saying why, once" \
  "$(gpm later.csv | cut -d' ' -f1,2 | tr '\n' ' ')$(events later.csv | tr '\n' '|')" \
  '20 50.0 40 50.0 flinch_gpm gpu=0 status=on every_ms=200|flinch_gpm gpu=0 status=off reason=unsupported detail="Not Supported"|'

printf 'at 0 util=50\n' > legacy.scn
LIB=$LEGACY rec legacy.scn legacy.csv --seconds 0.5
expect_eq "driver without GPM symbols: the missing one named" \
  "$(gpm legacy.csv | wc -l) $(events legacy.csv)" \
  '0 flinch_gpm gpu=0 status=off reason=missing_symbol detail="nvmlGpmQueryDeviceSupport"'

printf 'gpus 2\ngpm off gpu 1\nat 0 util=80\n' > two.scn
rec two.scn two.csv --seconds 0.5 --gpu all
expect_eq "two GPUs, GPU 1 before Hopper: GPU 0 has values, GPU 1 none" \
  "$(gpm two.csv 0 | cut -d' ' -f1,2 | tr '\n' ' ')/$(gpm two.csv 1 | wc -l)" "20 80.0 40 80.0 /0"
expect_eq "two GPUs: one EVENT row each" "$(events two.csv)" \
  'flinch_gpm gpu=0 status=on every_ms=200
flinch_gpm gpu=1 status=off reason=unsupported detail="isSupportedDevice=0 (GPM needs Hopper or newer)"'

done_testing
