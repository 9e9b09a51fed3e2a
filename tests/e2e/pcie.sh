# pcie.sh — host<->GPU traffic from the PCIe byte counters (issue 13): a
# copy-bound pause across a 32-bit counter wrap with exact byte counts, a
# pause that copies before compute, a quiet pause, a counter reset (lower
# bound), --copy-gbps, the JSON and CSV members, and the GPU's identity in
# analyze's JSON and CSV.
#
# Recorded on the simulator's virtual clock: samples exactly every 10 ms at
# scenario time 10k ms, the scenario's steps on samples, marks appended at
# 1000 and 1720 ms, so every byte count below is the scenario's integral.
. "$ROOT/tests/lib.sh"

FX="$ROOT/tests/fixtures"
VSTART=1000000000000                 # the virtual clock's start (sim_nvml.c)
add_mark() {   # add_mark FILE LABEL SCENARIO_MS: a MARK row at that scenario time
  n=$(head -n 1 "$1" | awk -F, '{ print NF }')
  { printf '%s,,MARK,%s' $((VSTART + $3 * 1000000)) "$2"; i=4; while [ $i -lt "$n" ]; do printf ','; i=$((i + 1)); done; echo; } >>"$1"
}
vrec() {   # vrec SCENARIO OUT: 3 s recorded, marks at 1000 and 1720 ms
  FLINCH_SIM_VIRTUAL_TIME=1 FLINCH_SIM_EPOCH_NS=$VSTART FLINCH_SIM_SCENARIO=$1 "$FLINCH" record \
    --nvml-lib "$SIM" -o "$2" -s 3 -i 10 --no-dither --no-rapl -q --proc-stat /dev/null 2>/dev/null
  add_mark "$2" infer_start 1000; add_mark "$2" first_token 1720
}
an() { "$FLINCH" analyze "$@" --start infer_start --end first_token; }
py() { python3 -c "import json, sys; $1"; }

# 0. The simulator's directives: a width other than 32 or 64 is refused.
printf 'pcie_counter_bits 48\n' >bad.scn
expect_eq "sim: pcie_counter_bits 48 refused" \
  "$(FLINCH_SIM_SCENARIO=bad.scn "$HELPERS/simtool" --lib "$SIM" query count 2>&1 >/dev/null)" \
  "flinch-sim: bad.scn:1: pcie_counter_bits: expected 32 or 64"

# 1. The GPU idles for the whole window while 8000 MB/s flow from the host
# (1 MB/s each way otherwise). The counters are 32 bits wide and start 967296
# bytes below 2^32, so they wrap before the window and every 537 ms inside:
# 8000 MB/s x 0.72 s = 5760000000 bytes from the host, 1 MB/s x 0.72 s =
# 720000 to it, exactly.
cat >copy.scn <<'SCN'
pcie_counter_bits 32
pcie_base_bytes 4294000000
at 0 power=75 util=0 clock=345 reasons=0x1 pcie_tx=1 pcie_rx=1
at 1000 pcie_rx=8000
at 1720 pcie_rx=1
SCN
vrec copy.scn copy.csv
expect_eq "the recorder says the counters are 32 bits wide" \
  "$(grep -o 'flinch_fields.*pcie_bits=[a-z0-9]*' copy.csv | sed 's/.* //')" "pcie_bits=32"
expect_eq "the raw counter wrapped inside the window (it went down)" \
  "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $3 == "SAMPLE" { v = $c["gpu_pcie_rx_bytes"]; if (p != "" && v < p) d++; p = v } END { print (d >= 2) }' copy.csv)" 1
out=$(an copy.csv)
expect_match "copy: bytes each way and the mean rate" \
  '^  pcie: to host 0\.001 GB, from host 5\.760 GB, mean 8\.001 GB/s \(counters read every 10 ms\)$' "$out"
expect_match "copy: all the waiting was copying" \
  '^  waiting on host<->GPU copies: 720\.0 of 720\.0 ms waiting \(5\.761 GB moved while waiting\)$' "$out"
expect_match "copy: the verdict says what it waited on first" \
  '^  verdict=waiting  waiting on host<->GPU copies: 720 ms of 720 ms waiting moved 5\.761 GB over PCIe at 8\.0 GB/s \(counters read every 10 ms\); 100% waiting \(720 ms\)' "$out"
if command -v python3 >/dev/null 2>&1; then
  expect_eq "copy json: exact bytes, copy time, no notes" \
    "$(an copy.csv --format json | py 'w = json.load(sys.stdin)["windows"][0]; print(w["pcie"]); print(w["gpus"][0]["pcie"]["rx_bytes"], w["verdict"])')" \
    "{'tx_bytes': 720000, 'rx_bytes': 5760000000, 'rate_GBps': 8.001, 'copy_ms': 720.0, 'copy_bytes': 5760720000, 'waiting_bytes': 5760720000, 'tick_ms': 10.0, 'notes': ''}
5760000000 waiting"
  expect_eq "copy csv: the PCIe columns" \
    "$(an copy.csv --format csv | python3 -c '
import csv, sys
r = list(csv.DictReader(sys.stdin))[0]
print(r["pcie_tx_bytes"], r["pcie_rx_bytes"], r["pcie_GBps"], r["copy_ms"], r["copy_bytes"], "[" + r["pcie_notes"] + "]")')" \
    "720000 5760000000 8.001000 720.000 5760720000 []"
else
  skip "copy json: exact bytes, copy time, no notes" "no python3"
  skip "copy csv: the PCIe columns" "no python3"
fi
if command -v python3 >/dev/null 2>&1; then
  "$FLINCH" export -f perfetto copy.csv -o copy.json -q --no-windows
  expect_eq "export: a PCIe counter track, the rate across the wraps" \
    "$(py 'e = json.load(open("copy.json"))["traceEvents"]; v = [x["args"]["GB/s"] for x in e if x.get("name") == "PCIe to+from host"]; print(sorted(set(round(x, 6) for x in v)), len(v))')" \
    "[0.002, 8.001] 3"
fi
out=$(an copy.csv --copy-gbps 10)
expect_match "--copy-gbps 10: 8 GB/s is not copying; plain waiting" '^  verdict=waiting  100% waiting' "$out"
expect_match "--copy-gbps 10: the copy line says 0 ms" '^  waiting on host<->GPU copies: 0\.0 of 720\.0 ms waiting' "$out"
err=$(an copy.csv --copy-gbps 0 2>&1 >/dev/null); rc=$?
expect_eq "--copy-gbps 0: usage error" "$rc $err" \
  "2 flinch analyze: --copy-gbps: must be above 0 and at most 1000, got '0'"

# 2. Copy for 300 ms, then compute for 420 ms: mixed, and the copying is
# appended. The breakdown puts the edge where every signal allows it: after
# the energy counter's last idle step (its update at 1300 ms placed to +-5
# ms: idle known to 1295) and before the first sample that read busy power
# (1300 ms): 297.5 +-2.5 ms, so 8000 MB/s x 0.2975 s = 2.38 GB in its
# waiting part, all of it copying.
cat >mixed.scn <<'SCN'
at 0 power=75 util=0 clock=345 reasons=0x1 pcie_tx=1 pcie_rx=1
at 1000 pcie_rx=8000
at 1300 power=612 util=98 clock=1980 reasons=0x0 pcie_rx=1
at 1720 power=75 util=0 clock=345 reasons=0x1
SCN
vrec mixed.scn mixed.csv
out=$(an mixed.csv)
expect_match "copy then compute: 2.4 GB from the host" '^  pcie: to host 0\.001 GB, from host 2\.400 GB, mean 3\.335 GB/s' "$out"
expect_match "copy then compute: mixed, the copying appended" \
  '^  verdict=mixed  41% waiting \(298 ms\), then 59% compute \(422 ms\).*; host<->GPU copies: 298 ms of 298 ms waiting moved 2\.380 GB over PCIe at 8\.0 GB/s \(counters read every 10 ms\)$' "$out"

# 3. A quiet pause (50 MB/s from the host): plain waiting, no copy time.
printf 'at 0 power=75 util=0 clock=345 reasons=0x1 pcie_tx=1 pcie_rx=50\n' >quiet.scn
vrec quiet.scn quiet.csv
out=$(an quiet.csv)
expect_match "quiet: 36 MB from the host" '^  pcie: to host 0\.001 GB, from host 0\.036 GB, mean 0\.051 GB/s' "$out"
expect_match "quiet: no copying" '^  waiting on host<->GPU copies: 0\.0 of 720\.0 ms waiting \(0\.037 GB moved while waiting\)$' "$out"
expect_match "quiet: plain waiting" '^  verdict=waiting  100% waiting \(720 ms\)' "$out"

# 4. A driver reload at 1360 ms resets 64-bit counters to 0: the interval
# [1350, 1360] (80 MB) is lost, the rest counted: 5.68 GB, a lower bound.
sed 's/^pcie_counter_bits 32/pcie_reset_ms 1360/' copy.scn >reset.scn
vrec reset.scn reset.csv
out=$(an reset.csv)
expect_match "reset: counted bytes, said to be at least" \
  '^  pcie: to host 0\.001 GB, from host 5\.680 GB, mean 7\.890 GB/s \(counters read every 10 ms\); a counter reset inside: at least this much$' "$out"
expect_eq "reset csv: the note" "$(an reset.csv --format csv | awk -F, 'NR == 2 { print $(NF - 14) }')" "reset"

# 5. A trace without the counters: no pcie line, null, empty cells.
out=$("$FLINCH" analyze --csv "$FX/flinch_windows.csv" --start infer_start --end first_token)
expect_eq "no counters: a report, but no pcie line" \
  "$(echo "$out" | grep -c '^  verdict=') $(echo "$out" | grep -c '^  pcie:')" "1 0"
if command -v python3 >/dev/null 2>&1; then
  expect_eq "no counters: json null" \
    "$("$FLINCH" analyze --csv "$FX/flinch_windows.csv" --start infer_start --end first_token --format json | py 'w = json.load(sys.stdin)["windows"][0]; print(w["pcie"], w["gpus"][0]["pcie"])')" "None None"

  # 6. Identity: the recorded host, driver and GPU in JSON and CSV.
  host=$(hostname 2>/dev/null || uname -n)
  expect_eq "json: the recorded host, driver and NVML versions" \
    "$(an copy.csv --format json | py 'h = json.load(sys.stdin)["hosts"][0]; print(h["hostname"], h["driver"], h["nvml"])')" \
    "$host 580.65.06 13.580.65.06"
  expect_eq "json: each GPU's name, UUID, bus id, limit, modes, no warnings" \
    "$(an copy.csv --format json | py 'g = json.load(sys.stdin)["gpus"][0]; print(g["name"], g["uuid"], g["pci"], g["power_limit_W"], g["compute_mode"], g["mig"], g["warnings"])')" \
    "Simulated H200 GPU-5151a000-0000-4000-8000-000000000000 00000000:18:00.0 700.000 default off []"
  printf 'persistence off\n' | cat - quiet.scn >pm.scn
  vrec pm.scn pm.csv
  expect_eq "json: persistence off warns" \
    "$(an pm.csv --format json 2>/dev/null | py 'print(json.load(sys.stdin)["gpus"][0]["warnings"])')" \
    "['persistence mode off: NVML calls can be slow']"
  expect_eq "csv: hostname and the GPU's name, UUID, warnings" \
    "$(an pm.csv --format csv 2>/dev/null | python3 -c '
import csv, sys
r = list(csv.DictReader(sys.stdin))[0]
print(r["hostname"] == sys.argv[1], r["gpu0_name"], r["gpu0_uuid"], r["gpu0_warnings"])' "$host")" \
    "True Simulated H200 GPU-5151a000-0000-4000-8000-000000000000 persistence mode off: NVML calls can be slow"
  printf 'mig on\n' | cat - quiet.scn >mig.scn
  vrec mig.scn mig.csv
  expect_eq "json: MIG on warns that the numbers are the whole GPU's" \
    "$(an mig.csv --format json | py 'g = json.load(sys.stdin)["gpus"][0]; print(g["mig"], g["warnings"])')" \
    "on [\"MIG mode on: power and utilization are the whole GPU's, every instance's work together\"]"
  expect_match "text: the warning on the gpu line" \
    "^gpu 0: Simulated H200, GPU-[0-9a-f-]*, pci 00000000:18:00\\.0, MIG mode on: power and utilization are the whole GPU's, every instance's work together\$" \
    "$(an mig.csv)"
  expect_eq "json: a trace without identity rows says null" \
    "$("$FLINCH" analyze --csv "$FX/flinch_windows.csv" --start infer_start --end first_token --format json | py 'a = json.load(sys.stdin); print(a["hosts"][0]["hostname"], a["gpus"][0]["name"], a["gpus"][0]["warnings"])')" \
    "None None []"
else
  skip "no counters: json null" "no python3"
fi
done_testing
