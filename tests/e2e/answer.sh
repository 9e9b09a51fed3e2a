# answer.sh — the breakdown in time and the process tree (issue 11): exact
# segments on the simulator's ideal sensors, the printed resolution on its
# h100 preset, memory-bound decode, a straggler among four GPUs, unrelated
# host load, a busy child of `sh -c`, and a named busy thread.
#
# GPU scenarios are recorded on the simulator's virtual clock (exact 10 ms
# grid, --no-dither: samples at scenario time 5 + 10k ms so that a step at a
# whole 10 ms lies half way between two samples) with marks appended afterwards;
# host CPU is left empty (--proc-stat /dev/null) unless a check sets it, so
# the load of the machine running the tests cannot decide a class.
. "$ROOT/tests/lib.sh"

VSTART=1000000000000                 # the virtual clock's start (sim_nvml.c)
EP=$((VSTART - 5000000))
vrec() {   # vrec SCENARIO OUT SECONDS [record args...]
  scn=$1; out=$2; secs=$3; shift 3
  FLINCH_SIM_VIRTUAL_TIME=1 FLINCH_SIM_EPOCH_NS=$EP FLINCH_SIM_SCENARIO=$scn "$FLINCH" record \
    --nvml-lib "$SIM" -o "$out" -s "$secs" -i 10 --no-dither --no-rapl -q --proc-stat /dev/null "$@" 2>/dev/null
}
add_mark() {   # add_mark FILE LABEL SCENARIO_MS: a MARK row at that scenario time
  n=$(head -n 1 "$1" | awk -F, '{ print NF }')
  { printf '%s,,MARK,%s' $((EP + $3 * 1000000)) "$2"; i=4; while [ $i -lt "$n" ]; do printf ','; i=$((i + 1)); done; echo; } >>"$1"
}
an() { "$FLINCH" analyze "$@" --start infer_start --end first_token; }

# 1. 300 ms waiting, then 424 ms compute: exact on ideal sensors. The energy
# counter's step holding the edge splits it between the idle and busy levels
# (its updates known to +-5 ms, a sample: +-10 ms with the levels' 2 ms
# ramp); GpuIdle (read every 50 ms, up to 50 ms late) and power (period not
# measurable: 100 ms assumed) only bound it more loosely, so the printed
# resolution is the counter's: +-10 ms.
cat >a.scn <<'SCN'
at 0 power=75 util=0 clock=345 reasons=0x1
at 1300 power=612 util=98 mem_util=71 clock=1980 reasons=0x0
at 1724 power=75 util=0 clock=345 reasons=0x1
SCN
vrec a.scn a.csv 3
add_mark a.csv infer_start 1000; add_mark a.csv first_token 1724
out=$(an a.csv)
expect_match "waiting then compute: time line" \
  '^  time: compute 424\.0 ms \(59%\), host-cpu 0\.0 ms \(0%\), waiting 300\.0 ms \(41%\), edges \+-10\.0 ms$' "$out"
expect_match "waiting then compute: segments" '^  segments: waiting 0-300 ms, then compute 300-724 ms$' "$out"
expect_match "waiting then compute: mixed, parts in order" \
  '^  verdict=mixed  41% waiting \(300 ms\), then 59% compute \(424 ms\), edges \+-10 ms; power 389 W' "$out"
out=$(an a.csv --class-frac 0.55)
expect_match "--class-frac 0.55: compute" '^  verdict=compute  41% waiting' "$out"
if command -v python3 >/dev/null 2>&1; then
  got=$(an a.csv --format json | python3 -c '
import json, sys
w = json.load(sys.stdin)["windows"][0]
print(w["breakdown"], w["segments"], w["gpus"][0]["breakdown"]["compute_ms"])')
  expect_eq "json: breakdown and segments" "$got" \
    "{'compute_ms': 424.0, 'host_cpu_ms': 0.0, 'waiting_ms': 300.0, 'resolution_ms': 10.0, 'not_recorded_ms': 0.0, 'not_recorded_gpu': None} [{'start_ms': 0.0, 'end_ms': 300.0, 'class': 'waiting'}, {'start_ms': 300.0, 'end_ms': 724.0, 'class': 'compute'}] 424.0"
else
  skip "json: breakdown and segments" "no python3"
fi
expect_eq "csv: breakdown columns after evidence" \
  "$(an a.csv --format csv | python3 -c '
import csv, sys
r = list(csv.DictReader(sys.stdin))[0]
print(r["compute_ms"], r["host_cpu_ms"], r["waiting_ms"], r["resolution_ms"], r["segments"], r["gpu0_segments"])' 2>/dev/null)" \
  "424.000 0.000 300.000 10.000 waiting:0.000-300.000;compute:300.000-724.000 waiting:0.000-300.000;compute:300.000-724.000"

# A GpuIdle bit that never clears (a scenario without `reasons`: 0x1 all
# along) says nothing: power and utilization still find the compute.
sed 's/ reasons=0x[01]//' a.scn >stuck.scn
vrec stuck.scn stuck.csv 3
add_mark stuck.csv infer_start 1000; add_mark stuck.csv first_token 1724
expect_match "stuck GpuIdle ignored" '^  segments: waiting 0-300 ms, then compute 300-724 ms$' "$(an stuck.csv)"

# 2. The same pause on the h100 preset (power refreshed every 100 ms over
# 25 ms, utilization over 1/6 s): the edge within the printed resolution.
for seed in 11 12 13; do
  { echo "preset h100"; echo "sensor_seed $seed"; cat a.scn; } >h.scn
  rm -f h.csv; vrec h.scn h.csv 3
  add_mark h.csv infer_start 1000; add_mark h.csv first_token 1724
  got=$(an h.csv --format csv | python3 -c '
import csv, sys
r = list(csv.DictReader(sys.stdin))[0]
segs = r["segments"].split(";")
edge = float(segs[0].split(":")[1].split("-")[1])
print(len(segs), segs[0].split(":")[0], abs(edge - 300) <= float(r["resolution_ms"]), r["verdict"])' 2>/dev/null)
  expect_eq "h100 seed $seed: waiting then compute, edge within the printed resolution" "$got" "2 waiting True mixed"
done

# 3. Memory-bound decode: kernels all the time (utilization 100 %) at 30 %
# of the busy range (75 + 0.3 x 537 = 236 W): compute, not mixed. A full-
# power burst earlier gives the trace its busy level.
cat >m.scn <<'SCN'
at 0 power=75 util=0 clock=345 reasons=0x1
at 200 power=612 util=100 clock=1980 reasons=0x0
at 700 power=75 util=0 clock=345 reasons=0x1
at 1000 power=236 util=100 mem_util=95 clock=1980 reasons=0x0
at 2500 power=75 util=0 clock=345 reasons=0x1
SCN
vrec m.scn m.csv 3
add_mark m.csv infer_start 1200; add_mark m.csv first_token 1924
out=$(an m.csv)
expect_match "memory-bound decode: all compute" '^  segments: compute 0-724 ms$' "$out"
expect_match "memory-bound decode: verdict compute at 30% of the range" \
  '^  verdict=compute  100% compute \(724 ms\), edges \+-8 ms; power 236 W = idle 75 W \+ 30% of the busy range' "$out"

# 4. A straggler among four GPUs: all compute 0-400 ms of the window, GPU 2
# until 700 ms, then everything idles.
cat >s.scn <<'SCN'
gpus 4
at 0 power=75 util=0 clock=345 reasons=0x1
at 1000 power=612 util=98 clock=1980 reasons=0x0
at 1400 gpu 0 power=75 util=0 clock=345 reasons=0x1
at 1400 gpu 1 power=75 util=0 clock=345 reasons=0x1
at 1400 gpu 3 power=75 util=0 clock=345 reasons=0x1
at 1700 gpu 2 power=75 util=0 clock=345 reasons=0x1
SCN
vrec s.scn s.csv 3 --gpu all
add_mark s.csv infer_start 1000; add_mark s.csv first_token 1724
out=$(an s.csv)
expect_match "straggler: window computes while any GPU does" '^  segments: compute 0-700 ms, then waiting 700-724 ms$' "$out"
expect_eq "straggler: per-GPU segments" "$(echo "$out" | grep '^    segments:' | tr -s ' ' | tr '\n' '|')" \
  " segments: compute 0-400 ms, then waiting 400-724 ms| segments: compute 0-400 ms, then waiting 400-724 ms| segments: compute 0-700 ms, then waiting 700-724 ms| segments: compute 0-400 ms, then waiting 400-724 ms|"
expect_match "straggler: named in the evidence" \
  '; gpus: gpu 2 computes 700 ms, the others 400 ms at most and wait \(a straggler\)' "$out"
expect_match "straggler: summary pattern (JSON; the text gives one window no second verdict)" \
  '"verdict":"compute","evidence":"of 1 window: 1 mostly compute; waiting adds a median 24 ms .*; gpus: 1 a straggler' \
  "$(an s.csv --format json | grep -o '"summary":.*')"

# 5. GPU idle, the traced server asleep, unrelated load on half the host's
# CPUs (host_cpu_busy_pct 50 on every row): waiting, not host-cpu. Then
# the host saturated (95 %): still waiting, the job's own CPU decides
# (cpu_side.h). Without the traced tree's columns (marks from a FIFO, no
# --pid) the job's CPU is unknown and the saturated host is host-cpu.
sleep 30 & sleeper=$!
printf 'at 0 power=75 util=0 clock=345 reasons=0x1\n' >i.scn
vrec i.scn i.csv 3 --pid $sleeper
kill $sleeper 2>/dev/null; wait $sleeper 2>/dev/null
add_mark i.csv infer_start 1000; add_mark i.csv first_token 1724
col=$(head -n 1 i.csv | tr ',' '\n' | grep -n '^host_cpu_busy_pct$' | cut -d: -f1)
awk -F, -v OFS=, -v c="$col" -v p=50.0 '$3 == "SAMPLE" { $c = p } 1' i.csv >i50.csv
awk -F, -v OFS=, -v c="$col" -v p=95.0 '$3 == "SAMPLE" { $c = p } 1' i.csv >i95.csv
out=$(an i50.csv)
expect_match "unrelated load on half the CPUs: waiting" '^  verdict=waiting  100% waiting \(724 ms\).*; cpu 50%; process 0\.00 cores' "$out"
expect_match "saturated host, the traced job asleep: waiting" \
  "^  verdict=waiting  100% waiting \(724 ms\).*; cpu 95%; process 0\.00 cores; host saturated by other work, not the job's CPU" "$(an i95.csv)"
notree() { awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^proc_/) c[i] = 1 } NR > 1 { for (i in c) $i = "" } 1' "$1"; }
notree i95.csv >n95.csv; notree i50.csv >n50.csv
expect_match "saturated host, no traced tree: host-cpu" \
  "^  verdict=host-cpu  100% host-cpu .*; the job's CPU is unknown \(no traced process: --pid or -- CMD\): host-cpu is the whole host >= 90% busy" "$(an n95.csv)"
expect_match "no traced tree, --cpu-busy-pct 40: half the CPUs count" '^  verdict=host-cpu' "$(an n50.csv --cpu-busy-pct 40)"
expect_match "traced tree, --cpu-busy-pct 40: the host still does not" '^  verdict=waiting' "$(an i50.csv --cpu-busy-pct 40)"

# 6. `record -- sh -c '...'`: the work happens in a child of sh. Real time
# (CPU rates need it); the GPU idles. The child's CPU counts in
# proc_tree_cpu_ns, not in proc_cpu_ns (sh's own), and decides host-cpu.
# The machine running the tests may be loaded (a child that wants a core
# may get a sixth of one), so the tree is asked for only 0.05 cores, and the
# host's own CPU is left out (--cpu-busy-pct 101) so that only the tree can
# make the window host-cpu.
FLINCH_SIM_SCENARIO="$SCENARIOS/waiting.scn" "$FLINCH" record --nvml-lib "$SIM" -o c.csv -i 20 \
  --no-rapl -q -- sh -c '"$0" mark infer_start; timeout 1 sh -c "while :; do :; done"; "$0" mark first_token' "$FLINCH"
expect_eq "sh -c child: record exits 0" "$?" 0
tree=$(csv_col c.csv proc_tree_cpu_ns | grep -v '^$' | tail -n 1)
own=$(csv_col c.csv proc_cpu_ns | grep -v '^$' | tail -n 1)
check "sh -c child: the tree's CPU ($tree ns) holds the child's, sh's own ($own ns) does not" \
  awk -v t="$tree" -v o="$own" 'BEGIN { exit !(t > 50000000 && o < t / 5) }'
out=$(an c.csv --cpu-busy-pct 101 --proc-busy-cores 0.05)
expect_match "sh -c child: host-cpu, the tree's cores in the evidence" \
  '^  verdict=host-cpu  .*; process (0\.(0[5-9]|[1-9][0-9])|[1-9]\.[0-9]+) cores' "$out"
expect_match "sh -c child: procs in the tree" '^[1-9]' "$(csv_col c.csv proc_tree_procs | grep -v '^$' | sort -n | tail -n 1)"

# 7. One thread pegged among idle ones: the busiest thread is named.
FLINCH_SIM_SCENARIO="$SCENARIOS/waiting.scn" "$FLINCH" record --nvml-lib "$SIM" -o th.csv -i 20 \
  --no-rapl -q -- sh -c '"$0" mark infer_start; "$1" 1.5; "$0" mark first_token' "$FLINCH" "$HELPERS/spin_threads"
expect_eq "busy thread: record exits 0" "$?" 0
expect_eq "busy thread: named spin-main" \
  "$(csv_col th.csv proc_top_thread | grep -v '^$' | sed 's/^[0-9]* //' | sort | uniq -c | sort -rn | head -n 1 | awk '{ print $2 }')" "spin-main"
out=$(an th.csv --cpu-busy-pct 101 --proc-busy-cores 0.05)
expect_match "busy thread: in the evidence" "thread '[0-9]+ spin-main' [0-9.]+ of a core while no GPU computed" "$out"
done_testing
