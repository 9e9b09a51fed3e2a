# gpm_analyze.sh — GPM metrics as analyze's evidence (issue 13, section 4):
# a window holding two or more whole GPM spans reports their span-weighted
# means (text, JSON, CSV) and adds SM activity to the verdict's evidence; a
# shorter one says GPM is too coarse for it; a GPU without GPM gets the
# trace's reason once, and the CSV has no GPM columns without GPM values.
#
# Recorded on the simulator's virtual clock from scenario time 0 (GPM
# samples at 0, 200, 400 ... ms, on the counters' refresh grid: exact
# values), marks appended afterwards at scenario times.
. "$ROOT/tests/lib.sh"

VSTART=1000000000000                 # the virtual clock's start (sim_nvml.c)
vrec() {   # vrec SCENARIO OUT SECONDS
  FLINCH_SIM_VIRTUAL_TIME=1 FLINCH_SIM_EPOCH_NS=$VSTART FLINCH_SIM_SCENARIO=$1 "$FLINCH" record \
    --nvml-lib "$SIM" -o "$2" -s "$3" -i 10 --no-dither --no-rapl -q --proc-stat /dev/null 2>/dev/null
}
add_mark() {   # add_mark FILE LABEL SCENARIO_MS
  n=$(head -n 1 "$1" | awk -F, '{ print NF }')
  { printf '%s,,MARK,%s' $((VSTART + $3 * 1000000)) "$2"; i=4; while [ $i -lt "$n" ]; do printf ','; i=$((i + 1)); done; echo; } >>"$1"
}

# 1000..1700 ms: a kernel runs (util 98) but keeps 90% of the SMs busy.
cat > g.scn <<'EOF'
at 0 power=75 util=0 clock=345 reasons=0x1
at 1000 power=612 util=98 mem_util=71 clock=1980 reasons=0x0 sm_active=90 occupancy=40 tensor=60 dram_bw=30
at 1700 power=75 util=0 mem_util=0 clock=345 reasons=0x1 sm_active=0 occupancy=0 tensor=0 dram_bw=0
EOF
vrec g.scn g.csv 2.5
add_mark g.csv long_start 1000; add_mark g.csv long_end 1700
add_mark g.csv short_start 1000; add_mark g.csv short_end 1150
add_mark g.csv two_start 1100; add_mark g.csv two_end 1600
add_mark g.csv one_start 1100; add_mark g.csv one_end 1599

out=$("$FLINCH" analyze g.csv --start long_start --end long_end)
expect_match "700 ms window: three whole 200 ms spans, exact means" \
  '^    GPM: SM active 90\.0%, occupancy 40\.0%, tensor 60\.0%, DRAM bandwidth 30\.0% \(3 whole spans of ~200 ms: 600 of 700 ms\)$' "$out"
expect_match "700 ms window: SM activity in the verdict's evidence" \
  '^  verdict=compute  .*; SM active 90% \(GPM, 3 spans of 200 ms\)' "$out"
# The same trace without its GPM cells: the same time line (SM activity
# votes, but never cuts or widens the finer signals' edges).
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^gpu_(sm_|tensor_|dram_|gpm_)/) g[i] = 1 }
  NR > 1 && $3 == "SAMPLE" { for (i in g) $i = "" } { print }' g.csv > nogpm.csv
expect_eq "700 ms window: the breakdown's time line as without GPM" \
  "$(printf '%s\n' "$out" | grep '^  time:')" \
  "$("$FLINCH" analyze nogpm.csv --start long_start --end long_end | grep '^  time:')"
check "700 ms window: the same trace without GPM has no GPM line" \
  sh -c '! "$1" analyze nogpm.csv --start long_start --end long_end | grep -q "GPM\|SM active"' - "$FLINCH"
check "a GPU with GPM: no 'not recorded' line" sh -c '! printf "%s" "$1" | grep -q "^gpm gpu"' - "$out"

out=$("$FLINCH" analyze g.csv --start short_start --end short_end)
expect_match "150 ms window: too coarse" \
  '^    GPM: too coarse for this 150 ms window \(0 whole spans of ~200 ms inside, 2 needed\)$' "$out"
expect_match "150 ms window: the evidence says so" '^  verdict=.*; GPM too coarse for this window$' "$out"

# The edges: [1100, 1600] holds the spans ending at 1400 and 1600 whole
# (two: enough); 1 ms less leaves one.
expect_match "500 ms window, two whole spans: enough" \
  '^    GPM: SM active 90\.0%, .* \(2 whole spans of ~200 ms: 400 of 500 ms\)$' \
  "$("$FLINCH" analyze g.csv --start two_start --end two_end)"
expect_match "499 ms window, one whole span: too coarse" \
  '^    GPM: too coarse for this 499 ms window \(1 whole span of ~200 ms inside, 2 needed\)$' \
  "$("$FLINCH" analyze g.csv --start one_start --end one_end)"

if command -v python3 >/dev/null 2>&1; then
  "$FLINCH" analyze g.csv --start long_start --end long_end --format json > long.json
  expect_eq "JSON: the gpm member of a 700 ms window" \
    "$(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["windows"][0]["gpus"][0]["gpm"], sort_keys=True))' long.json)" \
    '{"covered_ms": 600.0, "dram_bw_pct": 30.0, "sm_active_pct": 90.0, "sm_occupancy_pct": 40.0, "span_ms": 200.0, "spans": 3, "status": "ok", "tensor_active_pct": 60.0}'
  "$FLINCH" analyze g.csv --start short_start --end short_end --format json > short.json
  expect_eq "JSON: too coarse, metrics null" \
    "$(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["windows"][0]["gpus"][0]["gpm"], sort_keys=True))' short.json)" \
    '{"covered_ms": 0.0, "dram_bw_pct": null, "sm_active_pct": null, "sm_occupancy_pct": null, "span_ms": 200.0, "spans": 0, "status": "too_coarse", "tensor_active_pct": null}'
else
  skip "JSON: the gpm member of a 700 ms window" "python3 not installed"
  skip "JSON: too coarse, metrics null" "python3 not installed"
fi

"$FLINCH" analyze g.csv --start long_start --end long_end --format csv > long.csv
expect_eq "CSV: six GPM columns per GPU, before PCIe's 6, the identity's 4, the per-process 2, the not-recorded 3, the reason and slow clock 2, the confidence 2 and the recording" \
  "$(head -n 1 long.csv | tr ',' '\n' | tail -n 26 | head -n 6 | tr '\n' ' ')" \
  "gpu0_gpm_status gpu0_gpm_spans gpu0_sm_active_pct gpu0_sm_occupancy_pct gpu0_tensor_active_pct gpu0_dram_bw_pct "
expect_eq "CSV: the 700 ms window's cells, byte for byte" \
  "$(sed -n 2p long.csv | awk -F, '{ for (i = NF - 25; i <= NF - 20; i++) printf "%s%s", $i, (i < NF - 20 ? "," : "\n") }')" \
  "ok,3,90.000,40.000,60.000,30.000"
"$FLINCH" analyze g.csv --start short_start --end short_end --format csv > short.csv
expect_eq "CSV: the 150 ms window's cells" \
  "$(sed -n 2p short.csv | awk -F, '{ for (i = NF - 25; i <= NF - 20; i++) printf "%s%s", $i, (i < NF - 20 ? "," : "\n") }')" \
  "too_coarse,0,,,,"

# A kernel that keeps the GPU "100% utilized" with 12% of its SMs busy.
cat > thin.scn <<'EOF'
at 0 power=75 util=0 clock=345 reasons=0x1
at 1000 power=300 util=100 mem_util=20 clock=1980 reasons=0x0 sm_active=12 occupancy=6 tensor=0 dram_bw=8
at 1800 power=75 util=0 mem_util=0 clock=345 reasons=0x1 sm_active=0 occupancy=0 dram_bw=0
EOF
vrec thin.scn thin.csv 2.5
add_mark thin.csv infer_start 1000; add_mark thin.csv infer_end 1800
out=$("$FLINCH" analyze thin.csv --start infer_start --end infer_end)
expect_match "utilization 100%, SM activity 12%: the evidence says how much of the GPU worked" \
  '; gpu util [0-9]+%; SM active 12% \(GPM, 4 spans of 200 ms\)$' "$out"

# Pre-Hopper: no GPM values, the reason once, no CSV columns.
printf 'gpm off\nat 0 power=75 util=0\nat 1000 power=612 util=98\nat 1700 power=75 util=0\n' > off.scn
vrec off.scn off.csv 2
add_mark off.csv long_start 1000; add_mark off.csv long_end 1700
out=$("$FLINCH" analyze off.csv --start long_start --end long_end)
expect_eq "pre-Hopper: one line says why, no per-window GPM line" \
  "$(printf '%s\n' "$out" | grep -c '^gpm gpu 0: not recorded: unsupported (isSupportedDevice=0 (GPM needs Hopper or newer))$') $(printf '%s\n' "$out" | grep -c 'GPM:')" "1 0"
check "pre-Hopper: nothing about GPM in the evidence" sh -c '! printf "%s" "$1" | grep -q "SM active\|GPM too"' - "$out"
"$FLINCH" analyze off.csv --start long_start --end long_end --format csv > off_an.csv
check "pre-Hopper: no GPM columns in the CSV" sh -c '! head -n 1 "$1" | grep -q gpm' - off_an.csv
if command -v python3 >/dev/null 2>&1; then
  "$FLINCH" analyze off.csv --start long_start --end long_end --format json > off.json
  expect_eq "pre-Hopper: JSON says absent and why" \
    "$(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["windows"][0]["gpus"][0]["gpm"], sort_keys=True))' off.json)" \
    '{"reason": "unsupported", "status": "absent"}'
fi
expect_eq "the original trace format (no GPM columns): absent, not recorded" \
  "$("$FLINCH" analyze "$ROOT/tests/fixtures/flinch_windows.csv" --start infer_start --end first_token --format json 2>/dev/null | grep -o '"gpm":{[^}]*}' | sort -u)" \
  '"gpm":{"status":"absent","reason":"not recorded"}'

done_testing
