# gpu_identity.sh — the trace says what it recorded (issue 13, part 2): the
# flinch_host / flinch_gpu / flinch_fields EVENT rows right after `begin`,
# byte for byte on the simulated GPUs (sim/sim_identity.c), and their use:
# analyze's gpu line and persistence warning, host names in multi-trace
# analyze instead of file names (HOST=PATH still wins).
. "$ROOT/tests/lib.sh"
LEGACY="$BUILD/sim-legacy/libnvidia-ml.so.1"
TC="$HELPERS/tracecheck"
host=$(hostname | cut -c1-64 | tr -c 'A-Za-z0-9.\n_-' '_')

rec() { # rec SCENARIO OUT ARGS...
  scn=$1; out=$2; shift 2
  rm -f "$out"
  FLINCH_SIM_SCENARIO="$scn" "$FLINCH" record --out "$out" --nvml-lib "$SIM" --no-rapl -q "$@" 2>err.txt
}

printf 'gpus 2\nat 0 power=75\nat 100 power=600 util=99\nat 300 power=75 util=0\n' > two.scn
rec two.scn two.csv --seconds 0.5 --interval-ms 10 --gpu all
expect_eq "record exits 0, silent" "$?:$(cat err.txt)" "0:"
expect_eq "rows 2-4: begin, flinch_host, flinch_gpu x2 (labels, gpu_index)" \
  "$(sed -n 2,5p two.csv | python3 -c 'import csv,sys
for r in csv.reader(sys.stdin): print(r[2], r[3], r[10])')" \
  "MARK begin 
EVENT flinch_host name=$host flinch=0.1.0 driver=580.65.06 nvml=13.580.65.06 interval_ms=10 gpu=all missing=none 
EVENT flinch_gpu index=0 name=\"Simulated H200\" uuid=GPU-5151a000-0000-4000-8000-000000000000 pci=00000000:18:00.0 power_limit_W=700.000 persistence=on compute_mode=default mig=off max_sm_clock_MHz=1980 0
EVENT flinch_gpu index=1 name=\"Simulated H200\" uuid=GPU-5151a000-0000-4000-8000-000000000001 pci=00000000:2A:00.0 power_limit_W=700.000 persistence=on compute_mode=default mig=off max_sm_clock_MHz=1980 1"
expect_eq "flinch_fields after the first tick, per GPU" \
  "$("$TC" --events two.csv | cut -d' ' -f2- | grep '^flinch_fields')" \
  "flinch_fields gpu=0 supported=83;186;185;74;251;252;253;197;198 unsupported=none energy=field power_W=field pcie_bits=64
flinch_fields gpu=1 supported=83;186;185;74;251;252;253;197;198 unsupported=none energy=field power_W=field pcie_bits=64"
expect_eq "no comma in an identity label (naive CSV tools still count cells)" \
  "$(awk -F, '{ print NF }' two.csv | sort -u)" "$(head -n 1 two.csv | awk -F, '{ print NF }')"

# Unsupported fields and an old driver say so (the reasons come through the
# old ClocksThrottleReasons name there, so they are not missing).
rec "$SCENARIOS/instant.scn" inst.csv --seconds 0.1
expect_eq "field 185 missing: flinch_fields says where gpu_power_W came from" \
  "$("$TC" --events inst.csv | cut -d' ' -f2- | grep '^flinch_fields')" \
  "flinch_fields gpu=0 supported=83;186;74;251;252;253;197;198 unsupported=185 energy=field power_W=function pcie_bits=64"
rm -f legacy.csv
FLINCH_SIM_SCENARIO=two.scn "$FLINCH" record --out legacy.csv --nvml-lib "$LEGACY" --no-rapl -q --seconds 0.1 2>/dev/null
expect_eq "legacy library: the missing entry points listed" \
  "$("$TC" --events legacy.csv | cut -d' ' -f2- | grep '^flinch_host' | sed 's/.*missing=//')" \
  "nvmlDeviceGetTotalEnergyConsumption;nvmlDeviceGetFieldValues;nvmlDeviceGetTemperatureV;nvmlDeviceGetProcessUtilization;nvmlDeviceGetMigMode;nvmlGpm*"
expect_eq "legacy library: MIG mode unknown, fields by function" \
  "$("$TC" --events legacy.csv | cut -d' ' -f2- | grep -o 'mig=[a-z]*\|unsupported=[0-9;]* energy=[a-z]* power_W=[a-z]*')" \
  "mig=unknown
unsupported=83;186;185;74;251;252;253;197;198 energy=function power_W=function"

# The maximum SM clock: once per GPU at start (never per tick), per GPU as the
# driver says; NOT_SUPPORTED leaves the key out.
printf 'gpus 2\nmax_clock_MHz 1410 gpu 1\nat 0 power=75\n' > mc.scn
rm -f mc.csv stats.txt
FLINCH_SIM_STATS=stats.txt FLINCH_SIM_SCENARIO=mc.scn "$FLINCH" record --out mc.csv --nvml-lib "$SIM" --no-rapl -q \
  --seconds 0.3 --interval-ms 10 --gpu all 2>err.txt
expect_eq "max SM clock per GPU in its flinch_gpu row" \
  "$("$TC" --events mc.csv | cut -d' ' -f2- | grep '^flinch_gpu' | grep -o 'index=[0-9]\|max_sm_clock_MHz=[0-9]*' | tr '\n' ' ')" \
  "index=0 max_sm_clock_MHz=1980 index=1 max_sm_clock_MHz=1410 "
expect_eq "nvmlDeviceGetMaxClockInfo once per GPU in 30 ticks" \
  "$(grep MaxClockInfo stats.txt)" "gpu 0 nvmlDeviceGetMaxClockInfo 1
gpu 1 nvmlDeviceGetMaxClockInfo 1"
printf 'unsupported nvmlDeviceGetMaxClockInfo\nat 0 power=75\n' > mcu.scn
rec mcu.scn mcu.csv --seconds 0.1
expect_eq "max SM clock NOT_SUPPORTED: exit 0, silent, no key" \
  "$?:$(cat err.txt):$("$TC" --events mcu.csv | grep -c max_sm_clock)" "0::0"

# --- analyze uses them -------------------------------------------------------
out=$("$FLINCH" analyze --csv two.csv --start begin --end end 2>err.txt)
expect_eq "analyze: one gpu line per GPU" "$(echo "$out" | grep '^gpu [0-9]:')" \
  "gpu 0: Simulated H200, GPU-5151a000-0000-4000-8000-000000000000, pci 00000000:18:00.0
gpu 1: Simulated H200, GPU-5151a000-0000-4000-8000-000000000001, pci 00000000:2A:00.0"
expect_eq "analyze: no warning with persistence on" "$(cat err.txt)" ""
printf 'persistence off\nat 0 power=75\nat 100 power=600 util=99\nat 300 power=75 util=0\n' > pm.scn
rec pm.scn pm.csv --seconds 0.5
out=$("$FLINCH" analyze --csv pm.csv --start begin --end end 2>err.txt)
expect_eq "analyze: persistence mode off warned" "$(cat err.txt)" \
  "flinch analyze: warning: pm.csv: gpu 0 (Simulated H200): persistence mode off: NVML calls can be slow (the driver may reinitialise the GPU between clients), so samples may be late; enable it with nvidia-smi -pm 1"
expect_match "analyze: ... and on the gpu line" "^gpu 0: Simulated H200, .*, persistence mode off: NVML calls can be slow$" "$out"

# --- export: GPU tracks named after the GPUs, the host after the recorder's
sed "s/flinch_host name=$host /flinch_host name=nodeA /" two.csv > a.csv
"$FLINCH" export -f perfetto a.csv -o a.json -q --no-windows
expect_eq "export: GPU tracks carry name and UUID, host the recorded name" \
  "$(grep -o '"GPU [0-9] [^"]*"' a.json | sort -u)" \
  "\"GPU 0 (nodeA): Simulated H200, GPU-5151a000-0000-4000-8000-000000000000\"
\"GPU 1 (nodeA): Simulated H200, GPU-5151a000-0000-4000-8000-000000000001\""

# --- host names from the traces ---------------------------------------------
sed "s/flinch_host name=$host /flinch_host name=nodeA /" two.csv > a.csv
sed "s/flinch_host name=$host /flinch_host name=nodeB /" pm.csv > b.csv
out=$("$FLINCH" analyze a.csv b.csv --start nodeA:begin --end nodeA:end 2>/dev/null)
expect_eq "two traces: named after their recorded hosts" \
  "$(echo "$out" | grep '^host ' | cut -d: -f1 | tr '\n' ' ')" "host nodeA host nodeB "
out=$("$FLINCH" analyze mine=a.csv b.csv --start mine:begin --end mine:end 2>/dev/null)
expect_eq "HOST=PATH wins over the recorded name" \
  "$(echo "$out" | grep '^host ' | cut -d: -f1 | tr '\n' ' ')" "host mine host nodeB "
out=$("$FLINCH" analyze two.csv pm.csv --start two:begin --end two:end 2>/dev/null)
expect_eq "two traces from one host keep their file names" \
  "$(echo "$out" | grep '^host ' | cut -d: -f1 | tr '\n' ' ')" "host two host pm "

done_testing
