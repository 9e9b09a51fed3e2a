# tests/e2e/record_gpu_auto.sh — `flinch record --gpu auto`: the GPUs on
# which the command's process tree opens a compute context join the
# recording as they appear (src/record/gpu/gpu_auto.c), against the simulated
# NVML's `compute=` timeline (sim/sim_compute.c): a context on GPU 2 of 4
# after 0.3 s, none at all, pids from another PID namespace, an old driver
# with only the original symbol, NO_PERMISSION and NOT_SUPPORTED, --pid,
# the driver calls made, usage errors; and analyze, plot and export of a
# trace whose GPU rows begin mid-recording.
. "$ROOT/tests/lib.sh"

TC=$HELPERS/tracecheck
LEGACY=$BUILD/sim-legacy/libnvidia-ml.so.1

# auto SCENARIO LIB ARGS...: record --gpu auto at 50 ms into a.csv.
auto() {
  scn=$1; lib=$2; shift 2; rm -f a.csv
  FLINCH_SIM_SCENARIO=$scn "$FLINCH" record --out a.csv --nvml-lib "$lib" --no-rapl -i 50 \
    --threads-ms 0 --gpu auto "$@" 2>err.txt
}
events() { "$TC" --events a.csv | cut -d' ' -f2-; }
# sample_gpus: the gpu_index of each SAMPLE row, run-length counted ("-" empty).
sample_gpus() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "gpu_index") c = i; next }
           $3 == "SAMPLE" { print ($c == "" ? "-" : $c) }' a.csv | uniq | tr '\n' ' '
}

# --- a context on GPU 2 of 4 from 0.3 s -----------------------------------
printf 'gpus 4\nat 0 power=60\nat 300 gpu 2 compute=child power=300\n' >gpu2.scn
FLINCH_SIM_STATS=$T/stats.txt auto gpu2.scn "$SIM" -- sh -c 'echo $$ >pid.txt; exec sleep 1.5'
expect_eq "GPU 2 of 4: exit status is the command's" "$?" 0
pid=$(cat pid.txt)
expect_eq "GPU 2 of 4: host-only rows, then GPU 2's only" "$(sample_gpus)" "- 2 "
expect_eq "GPU 2 of 4: its identity, then gpu_joined with the command's pid" \
  "$(events | grep -v '^flinch_host\|^flinch_fields\|^flinch_gpm' | sed 's/ name=.*//')" \
  "flinch_gpu index=2
gpu_joined gpu=2 pid=$pid"
expect_eq "GPU 2 of 4: gpu_joined names GPU and pid in their columns" \
  "$(awk -F, -v p="$pid" '$3 == "EVENT" && $4 ~ /gpu_joined/ { print $11 "," ($0 ~ ","p"," ? "pid" : "no pid") }' a.csv)" \
  "2,pid"
expect_eq "GPU 2 of 4: one line on stderr" "$(cat err.txt)" \
  "flinch record: --gpu auto: recording GPU 2 from now on (pid $pid has a compute context there)"
begin=$(awk -F, '$3 == "MARK" && $4 == "\"begin\"" { print $1; exit }' a.csv)
first=$(awk -F, '$3 == "SAMPLE" && $11 == "2" { print $1; exit }' a.csv)
ms=$(( (first - begin) / 1000000 ))
check "GPU 2 of 4: first GPU 2 row after the context opened (+300 ms) and within a poll (+$ms ms)" \
  test "$ms" -ge 300 -a "$ms" -le 1300
expect_eq "GPU 2 of 4: the found GPU is asked once or twice, then never again" \
  "$(awk '$1 == "gpu" && $2 == 2 && $3 == "nvmlDeviceGetComputeRunningProcesses" { print ($4 <= 2) }' stats.txt)" 1
n0=$(awk '$1 == "gpu" && $2 == 0 && $3 == "nvmlDeviceGetComputeRunningProcesses" { print $4 }' stats.txt)
check "GPU 2 of 4: a GPU never found is asked every 500 ms ($n0 calls in 1.5 s)" \
  test "$n0" -ge 3 -a "$n0" -le 5
"$FLINCH" plot a.csv -o a.svg --no-windows 2>plot.err
check "plot: a panel for GPU 2 and none for GPU 0" \
  sh -c 'grep -q "GPU 2 power" a.svg && ! grep -q "GPU 0" a.svg'
"$FLINCH" export --format perfetto --no-windows a.csv -o a.json 2>export.err
expect_eq "export: one GPU track, GPU 2's" \
  "$(grep -o '"name":"GPU [0-9]* ([^)]*)' a.json | sort -u)" '"name":"GPU 2 (vm)'
if command -v python3 >/dev/null 2>&1; then
  expect_eq "export: host CPU from the host-only rows too (its first counter before GPU 2's)" \
    "$(python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
cpu = min(e["ts"] for e in ev if e.get("ph") == "C" and e.get("name") == "CPU busy")
gpu = min(e["ts"] for e in ev if e.get("ph") == "C" and e.get("name") != "CPU busy" and e.get("name") != "process CPU")
print("before" if cpu < gpu else "not before")' a.json)" "before"
else
  skip "export: host CPU from the host-only rows too" "no python3"
fi
out=$("$FLINCH" analyze --csv a.csv --start begin --end end 2>&1)
expect_match "analyze: a window from before GPU 2 joined is not extrapolated (before-trace)" \
  "gpu 2: energy n/a J" "$out"
expect_match "analyze: ... and says why" \
  "verdict=inconclusive  gpu 2 joined the recording after the window started \(--gpu auto\): what it did before is unknown;" "$out"

if command -v python3 >/dev/null 2>&1; then
  expect_eq "the original analyze_trace.py reads it (as --method seed does)" \
    "$(python3 "$ROOT/tests/fixtures/analyze_trace.py" --csv a.csv --start begin --end end 2>&1)" \
    "$("$FLINCH" analyze --csv a.csv --start begin --end end --method seed)"
else
  skip "the original analyze_trace.py reads it" "no python3"
fi

# --- the breakdown's time before the join: not recorded, never waiting ------
# GPU 2 idles (60 W) from its join at 0.3 s, computes (300 W) from 1.8 s.
# Marks are put at exact offsets from GPU 2's first row (its first reading):
# w: 312 ms before it to 400 ms after; p: 500 to 100 ms before it (wholly
# before the join).
printf 'gpus 4\nat 0 power=60\nat 300 gpu 2 compute=child power=60\nat 1800 gpu 2 power=300\n' >late.scn
auto late.scn "$SIM" -- sleep 2.5
# marks_at "NAME@MS ...": MARK rows (FIFO-style: arrival_mono_ns set) at
# GPU 2's first SAMPLE row + MS, in time order, from a.csv into c.csv.
marks_at() {
  awk -v marks="$1" 'BEGIN { FS = OFS = "," }
    NR == FNR { if ($3 == "SAMPLE" && $11 == "2" && !first) first = $1; next }
    FNR == 1 { n = split(marks, m, " "); for (i = 1; i <= n; i++) { split(m[i], kv, "@")
                 lab[i] = kv[1]; at[i] = sprintf("%.0f", first + kv[2] * 1000000) }
               ncol = NF; print; next }
    { while (k < n && at[k + 1] + 0 <= $1 + 0) { k++; row = at[k] ",,MARK,\"" lab[k] "\""
        for (c = 5; c <= ncol; c++) row = row "," (c == 20 ? at[k] : ""); print row }
      print }' a.csv a.csv >c.csv
}
marks_at "p_start@-500 p_end@-100 w_start@-312 w_end@400"
# --cpu-busy-pct 101: a loaded test machine's host CPU must not turn waiting into host-cpu
out=$("$FLINCH" analyze --csv c.csv --start w_start --end w_end --cpu-busy-pct 101 2>&1)
expect_eq "breakdown: 312 ms before GPU 2 joined are not recorded; percentages of the 400 ms recorded" \
  "$(printf '%s\n' "$out" | grep -A1 '^  time:')" \
  "  time: compute 0.0 ms (0%), host-cpu 0.0 ms (0%), waiting 400.0 ms (100%), edges +-0.0 ms; 312.0 ms before gpu 2 joined: not recorded (percentages are of the 400.0 ms recorded)
  segments: not-recorded 0-312 ms, then waiting 312-712 ms"
"$FLINCH" analyze --format csv c.csv --start w_start --end w_end --cpu-busy-pct 101 >w.csv
# csv_cells FILE COL...: the named cells of each data row, space-separated
# (a CSV reader: the evidence cell holds quoted commas).
csv_cells() {
  python3 -c 'import csv, sys
r = csv.DictReader(open(sys.argv[1]))
for row in r: print(" ".join(row[c] for c in sys.argv[2:]))' "$@"
}
if command -v python3 >/dev/null 2>&1; then
  expect_eq "breakdown CSV: not-recorded apart from waiting, window and GPU 2" \
    "$(csv_cells w.csv compute_ms host_cpu_ms waiting_ms segments not_recorded_ms not_recorded_gpu \
       gpu2_waiting_ms gpu2_not_recorded_ms)" \
    "0.000 0.000 400.000 not-recorded:0.000-312.000;waiting:312.000-712.000 312.000 2 400.000 312.000"
else
  skip "breakdown CSV: not-recorded apart from waiting" "no python3"
fi
expect_eq "breakdown CSV: not_recorded_ms, not_recorded_gpu and gpuN_not_recorded_ms end the header, before the reason, the slow clock, the confidence and the recording" \
  "$(head -n 1 w.csv | tr ',' '\n' | tail -n 8 | tr '\n' ' ')" "not_recorded_ms not_recorded_gpu gpu2_not_recorded_ms reason gpu2_slow_clock_ms confidence confidence_reason recording "
expect_eq "breakdown JSON: not_recorded_ms and the GPU" \
  "$("$FLINCH" analyze --format json c.csv --start w_start --end w_end --cpu-busy-pct 101 | grep -o '"breakdown":{[^}]*}' | head -n 1)" \
  '"breakdown":{"compute_ms":0.000,"host_cpu_ms":0.000,"waiting_ms":400.000,"resolution_ms":0.000,"not_recorded_ms":312.000,"not_recorded_gpu":2}'
"$FLINCH" analyze --format csv c.csv --start p_start --end p_end >p.csv
expect_eq "CSV: a window wholly before the join has every GPU 2 cell (empty), same width as the header" \
  "$(awk -F, '{ print NF }' p.csv | uniq -c | awk '{ print $1 }')" 2
if command -v python3 >/dev/null 2>&1; then
  expect_eq "CSV: ... and no breakdown (no GPU evidence at all)" \
    "$(csv_cells p.csv waiting_ms gpu2_samples not_recorded_ms | sed 's/ /][/g; s/^/[/; s/$/]/')" "[][][]"
else
  skip "CSV: ... and no breakdown" "no python3"
fi

# A window after the join: exact energy (constant 300 W).
FLINCH_SIM_SCENARIO=gpu2.scn "$FLINCH" record --out b.csv --nvml-lib "$SIM" --no-rapl -i 50 \
  --threads-ms 0 --gpu auto -- sh -c 'sleep 1.2; echo infer_start >"$FLINCH_MARKS"; sleep 0.4;
  echo first_token >"$FLINCH_MARKS"; sleep 0.2' 2>err.txt
out=$("$FLINCH" analyze --csv b.csv --start infer_start --end first_token 2>&1)
dur=$(printf '%s\n' "$out" | sed -n 's/^duration_s=//p')
e=$(printf '%s\n' "$out" | sed -n 's/^  gpu 2: energy \([0-9.]*\) J.*/\1/p')
check "analyze: a window after the join: GPU 2's energy is 300 W x duration ($e J, $dur s)" \
  test -n "$e" -a -n "$dur"
check "analyze: ... exactly" near "${e:-0}" "$(awk -v d="${dur:-1}" 'BEGIN { print 300 * d }')" 0.01

# --metrics-file: the joined GPU's metrics carry its UUID (from its flinch_gpu row).
FLINCH_SIM_SCENARIO=gpu2.scn "$FLINCH" record --out m.csv --nvml-lib "$SIM" --no-rapl -i 50 \
  --threads-ms 0 --gpu auto --window w=a:b --metrics-file "$T/m.prom" -q -- sleep 1.2 2>/dev/null
expect_eq "metrics: GPU 2 only, with its UUID" \
  "$(grep '^flinch_gpu_power_instant_watts' m.prom | sed 's/} .*/}/')" \
  'flinch_gpu_power_instant_watts{gpu="2",uuid="GPU-5151a000-0000-4000-8000-000000000002"}'

# --- no context at all ------------------------------------------------------
printf 'gpus 4\n' >none.scn
auto none.scn "$SIM" -- sh -c 'sleep 0.7; exit 7'
expect_eq "none: exit status stays the command's" "$?" 7
expect_match "none: said plainly on stderr" \
  "^flinch record: warning: --gpu auto: no GPU recorded: the command opened no compute context on any of the 4 GPUs in [0-9.]+ s$" \
  "$(cat err.txt)"
expect_match "none: and in the trace" "^gpu_auto_none gpus=4 refused=0 foreign=0 calls=[0-9]+$" \
  "$(events | grep gpu_auto_none)"
expect_eq "none: host-only rows only" "$(sample_gpus)" "- "
"$FLINCH" analyze --csv a.csv --start begin --end end >an.txt 2>&1
expect_eq "none: analyze reads it (exit 0)" "$?" 0
"$FLINCH" plot a.csv -o none.svg --no-windows 2>/dev/null
expect_eq "none: plot draws it (exit 0)" "$?" 0
"$FLINCH" export --format perfetto --no-windows a.csv -o none.json 2>/dev/null
expect_eq "none: export writes it (exit 0)" "$?" 0

# --- pids from another PID namespace ----------------------------------------
printf 'gpus 2\npid_namespace foreign\nat 0 compute=child\n' >foreign.scn
auto foreign.scn "$SIM" -- sh -c 'echo $$ >pid.txt; exec sleep 1.3'
pid=$(cat pid.txt)
host=$((pid + 4194304))
expect_eq "foreign: said once, then the end" "$(cat err.txt)" \
  "flinch record: warning: --gpu auto: NVML reports pids from another PID namespace (GPU 0: pid $host is no process here); --gpu auto cannot tell which are yours: use --gpu cuda or a UUID
flinch record: warning: --gpu auto: no GPU recorded in $(sed -n 's/.*in \([0-9.]*\) s: NVML.*/\1/p' err.txt) s: NVML's pids are from another PID namespace; use --gpu cuda or a UUID"
expect_eq "foreign: EVENT rows" "$(events | grep '^gpu_auto' | sed 's/ calls=.*//')" \
  "gpu_auto_foreign_pids gpu=0 pid=$host
gpu_auto_none gpus=2 refused=0 foreign=1"

# --- an old driver: only nvmlDeviceGetComputeRunningProcesses (v1 layout) ---
printf 'gpus 2\nat 0 gpu 1 compute=child\n' >gpu1.scn
auto gpu1.scn "$LEGACY" -- sh -c 'echo $$ >pid.txt; exec sleep 0.8'
expect_eq "old driver (v1 layout): GPU 1 found with the right pid" \
  "$(events | grep gpu_joined)" "gpu_joined gpu=1 pid=$(cat pid.txt)"
expect_eq "old driver: the call is not listed missing" \
  "$(events | grep '^flinch_host' | grep -c ComputeRunningProcesses)" 0

# --- NO_PERMISSION and NOT_SUPPORTED -----------------------------------------
printf 'gpus 4\nat 0 gpu 1 compute=child\nat 0 gpu 3 compute=child\nerror 4 nvmlDeviceGetComputeRunningProcesses gpu 1\n' >perm.scn
auto perm.scn "$SIM" -- sh -c 'echo $$ >pid.txt; exec sleep 0.8'
expect_eq "NO_PERMISSION on GPU 1: warned once, GPU 3 still found" "$(cat err.txt)" \
  "flinch record: warning: --gpu auto: GPU 1 does not list its compute processes (Insufficient Permissions): whether the command uses it is unknown
flinch record: --gpu auto: recording GPU 3 from now on (pid $(cat pid.txt) has a compute context there)"
expect_eq "NO_PERMISSION: EVENT rows" "$(events | grep '^gpu_auto\|^gpu_joined')" \
  "gpu_auto_refused gpu=1 error=4
gpu_joined gpu=3 pid=$(cat pid.txt)"
printf 'gpus 2\nat 0 compute=child\nunsupported nvmlDeviceGetComputeRunningProcesses\n' >unsup.scn
auto unsup.scn "$SIM" -- sleep 0.5
expect_eq "NOT_SUPPORTED everywhere: no GPU, said why" "$(tail -n 1 err.txt)" \
  "flinch record: warning: --gpu auto: no GPU recorded: none of the 2 GPUs lists its compute processes to this user; use --gpu cuda or a UUID"
expect_eq "NOT_SUPPORTED: each GPU asked once" "$(events | grep -c '^gpu_auto_refused gpu=[01] error=3$')" 2

# --- --pid: another process's tree -------------------------------------------
sleep 3 &
other=$!
printf 'gpus 2\ntenant_pid %s\nat 0 gpu 1 compute=tenant\n' "$other" >tenant.scn
auto tenant.scn "$SIM" --pid "$other" --seconds 0.8
expect_eq "--pid: the watched process's GPU joins" "$(events | grep gpu_joined)" "gpu_joined gpu=1 pid=$other"
kill "$other" 2>/dev/null; wait "$other" 2>/dev/null

# --- usage -------------------------------------------------------------------
"$FLINCH" record --out u.csv --nvml-lib "$SIM" --gpu auto --seconds 0.1 2>err.txt
expect_eq "auto without CMD or --pid: refused (exit 2)" "$?|$(cat err.txt)" \
  "2|flinch record: --gpu auto records the GPUs a process tree computes on: add -- CMD ARGS... or --pid PID"
"$FLINCH" record --out u.csv --nvml-lib "$SIM" --gpu auto,0 -- true 2>err.txt
expect_eq "auto in a list: refused (exit 2)" "$?|$(cat err.txt)" \
  "2|flinch record: --gpu auto,0: auto stands alone (it cannot be listed with other GPUs)"
check "no trace left by a refused start" test ! -e u.csv

done_testing
