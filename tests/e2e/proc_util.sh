# proc_util.sh — whose GPU time it was (issue 13, part 4): the simulated
# nvmlDeviceGetProcessUtilization and its lastSeen protocol, the recorder's
# gpu_proc_sm_pct / gpu_other_sm_pct / gpu_proc_util_ts_us columns with a
# traced command (a shared GPU, a job alone), the refusals (NOT_SUPPORTED,
# NO_PERMISSION, a library without the function) and what analyze makes of
# the readings.
. "$ROOT/tests/lib.sh"
LEGACY="$BUILD/sim-legacy/libnvidia-ml.so.1"
S="$HELPERS/simtool"

# --- the simulator: samples, sizes and lastSeen ---------------------------
# Samples every 1/6 s (166667 us) at scenario time k * P; each the mean over
# the period before it: (500, 666.7] ms is 100 ms at 60% and 66.7 ms at 30%
# = 48%. No descendants of simtool: only the tenant (pid 1) has samples.
printf 'at 0 util=0\nat 500 util=80 proc_child=20 proc_other=60\nat 600 proc_other=30\n' > p.scn
out=$(FLINCH_SIM_SCENARIO=p.scn "$S" query --at 1200 putilsize putil:2 putil putil sleep:200 putil putil0 putil)
expect_eq "sim: sizes, samples newer than lastSeen only, NOT_FOUND when none" "$out" \
"handle:0 ok
putilsize error 7 Insufficient Size count=4
putil:2 error 7 Insufficient Size count=4
putil n=4 periods=4 step_us=166667 pids=1:48,1:30,1:30,1:30
putil error 6 Not Found count=0
sleep:200
putil n=1 periods=1 step_us=0 pids=1:30
putil0 ok
putil n=5 periods=5 step_us=166667 pids=1:48,1:30,1:30,1:30,1:30"
printf 'proc_util_period_us 1000000\ntenant_pid 4242\nat 0 util=50 proc_other=50\n' > slow.scn
expect_eq "sim: proc_util_period_us and tenant_pid" \
  "$(FLINCH_SIM_SCENARIO=slow.scn "$S" query --at 3500 putil)" \
  "handle:0 ok
putil n=3 periods=3 step_us=1000000 pids=4242:50,4242:50,4242:50"
printf 'pid_namespace foreign\nat 0 util=50 proc_other=50\n' > foreign.scn
expect_eq "sim: pid_namespace foreign shifts the pids out of this namespace" \
  "$(FLINCH_SIM_SCENARIO=foreign.scn "$S" query --at 200 putil)" \
  "handle:0 ok
putil n=1 periods=1 step_us=0 pids=4194305:50"
expect_eq "sim: unsupported nvmlDeviceGetProcessUtilization" \
  "$(printf 'unsupported nvmlDeviceGetProcessUtilization\n' > uns.scn
     FLINCH_SIM_SCENARIO=uns.scn "$S" query putil)" "handle:0 ok
putil error 3 Not Supported count=64"
expect_eq "sim: the legacy library lacks it" "$("$S" --lib "$LEGACY" query putil)" \
  "handle:0 ok
putil missing nvmlDeviceGetProcessUtilization"

# --- the recorder ------------------------------------------------------------
# prec SCENARIO OUT LIB [ARGS] [-- CMD]: records at 10 ms ticks in the
# background (bg_status): its exit status to OUT.rc, its stderr to OUT.err, the
# simulator's call counts to OUT.stats. This test's recordings share
# nothing and mostly wait on real time (a recorder at 10 ms takes ~1 % of a
# core), so they all run at once: ~4 s, where one by one took ~16 s.
prec() {
  scn=$1; out=$2; lib=$3; shift 3
  rm -f "$out" "$out.stats"
  bg_status "$out" env FLINCH_SIM_STATS="$out.stats" FLINCH_SIM_SCENARIO="$scn" "$FLINCH" record \
    --out "$out" --nvml-lib "$lib" --no-rapl -q --interval-ms 10 "$@"
}
# calls OUT FUNCTION: how many times OUT's recording called FUNCTION for GPU 0
calls() { awk -v f="$2" '$1 == "gpu" && $2 == 0 && $3 == f { print $4; n = 1 } END { if (!n) print 0 }' "$1.stats"; }
# readings FILE: "proc other" of every row that carries a reading, sorted, unique
readings() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
  $3 == "SAMPLE" && $c["gpu_proc_sm_pct"] != "" { print $c["gpu_proc_sm_pct"], $c["gpu_other_sm_pct"] }' "$1" | sort -u; }

# The traced command marks a 700 ms request 1.2 s in (the GPU is the same
# all along), then lives on so the reading after the window lands. 700 ms
# holds two whole GPM spans of ~206 ms wherever the dithered ticks put them
# (500 ms held one in some runs: "GPM too coarse", and with no idle power
# level known the verdict was inconclusive).
cat > job.sh <<'EOF'
sleep 1.2; echo req_start > "$FLINCH_MARKS"; sleep 0.7; echo req_end > "$FLINCH_MARKS"; sleep 1.4
EOF
printf 'at 0 power=612 util=80 reasons=0 proc_child=20 proc_other=60\n' > shared.scn
printf 'at 0 power=612 util=80 reasons=0 proc_child=80\n' > alone.scn
printf 'gpus 2\nat 0 gpu 0 power=612 util=80 reasons=0 proc_child=80\nat 0 gpu 1 power=400 util=60 reasons=0 proc_other=60\n' > two.scn
# the refusals' GPUs: per-process utilization not supported, not permitted,
# and (r3, on the legacy library) not there at all
k=0
for why in "unsupported nvmlDeviceGetProcessUtilization" "error 4 nvmlDeviceGetProcessUtilization" ""; do
  k=$((k + 1))
  printf '%s\nat 0 power=612 util=80 reasons=0 proc_child=20 proc_other=60\n' "$why" > r$k.scn
done
printf 'pid_namespace foreign\nat 0 util=60 proc_child=60\n' > ns.scn
prec shared.scn shared.csv "$SIM" -- sh job.sh
prec alone.scn alone.csv "$SIM" -- sh job.sh
prec two.scn two.csv "$SIM" --gpu all -- sh job.sh
prec r1.scn r1.csv "$SIM" -- sleep 1.3
prec r2.scn r2.csv "$SIM" -- sleep 1.3
prec r3.scn r3.csv "$LEGACY" -- sleep 1.3
prec shared.scn none.csv "$SIM" --seconds 0.5
prec ns.scn ns.csv "$SIM" -- sleep 1.3
wait

expect_eq "shared GPU: exit 0, no warnings" "$(cat shared.csv.rc):$(cat shared.csv.err)" "0:"
expect_eq "shared GPU: every reading is job 20%, others 60%" "$(readings shared.csv)" "20 60"
n=$(awk -F, 'NR > 1 && $3 == "SAMPLE" && $(NF-3) != ""' shared.csv | wc -l)
check "shared GPU: a reading about every second ($n)" test "$n" -ge 2 -a "$n" -le 4
# (the last column, proc_tree_runq_ns, came after these three)
expect_match "bytes: a reading row ends ',20,60,<driver us>,<runq ns>'" '^[0-9]+,[0-9]+,SAMPLE,.*,20,60,1[0-9]{15},[0-9]*$' \
  "$(awk -F, '$3 == "SAMPLE" && $(NF-3) != ""' shared.csv | head -n 1)"
expect_eq "bytes: the other sample rows have the three cells empty" \
  "$(awk -F, '$3 == "SAMPLE" && $(NF-3) == "" { print "," $(NF-3) "," $(NF-2) "," $(NF-1) }' shared.csv | sort -u)" ",,,"
# the row's t_wall_ns is taken before the tick's reads: a sample may be
# newer by as long as those reads took (under 100 ms even on a loaded host)
ts_ok=$(awk -F, '$3 == "SAMPLE" && $(NF-1) != "" { d = $2 / 1000 - $(NF-1); if (d < -100000 || d > 1000000) bad++ } END { print bad + 0 }' shared.csv)
expect_eq "gpu_proc_util_ts_us is a driver time within the second before its row" "$ts_ok" 0
# the recorder's rule over the ticks it sampled: the first, then each one
# 100 or more scheduled ticks after the last read (a skipped tick counts)
reads=$(csv_col shared.csv tick | awk '$1 != "" && (!n || $1 - at >= 100) { n++; at = $1 } END { print n }')
expect_eq "one call per read, every 100 ticks at 10 ms" "$(calls shared.csv nvmlDeviceGetProcessUtilization)" "$reads"

out=$("$FLINCH" analyze shared.csv --start req_start --end req_end 2>&1)
expect_match "analyze: the split, and over which span it was measured" \
  '^    gpu 0 processes: SM busy 80%: the traced job 20%, other processes 60% \([0-9]+ per-process readings? over [0-9.]+ s around the window, covering 100% of it\)$' "$out"
expect_match "analyze: compute that was mostly another tenant's is not the job computing" \
  '^  verdict=mixed  the GPU computed mostly for other processes \(SM time: the traced job 20%, others 60%\), not for the job; 100% compute' "$out"
expect_match "analyze: the evidence carries the split" '; sm 80% = job 20% \+ other processes 60%' "$out"
json=$("$FLINCH" analyze shared.csv --start req_start --end req_end --format json)
expect_match "analyze json: proc_sm_pct and other_sm_pct" '"proc_sm_pct":20\.000,"other_sm_pct":60\.000,"proc_readings":[1-9]' "$json"
expect_match "analyze json: verdict mixed" '"verdict":"mixed"' "$json"
csv=$("$FLINCH" analyze shared.csv --start req_start --end req_end --format csv)
expect_eq "analyze csv: gpu0_proc_sm_pct, gpu0_other_sm_pct last (before the not-recorded 3, the reason and slow clock 2, the confidence 2 and the recording)" \
  "$(printf '%s\n' "$csv" | awk -F, 'NR == 1 { print $(NF-9), $(NF-8) } NR == 2 { print $(NF-9), $(NF-8) }')" \
  "gpu0_proc_sm_pct gpu0_other_sm_pct
20.00 60.00"

expect_eq "job alone: every reading is job 80%, others 0%" "$(readings alone.csv)" "80 0"
out=$("$FLINCH" analyze alone.csv --start req_start --end req_end 2>&1)
expect_match "job alone: verdict compute, the split in the evidence" \
  '^  verdict=compute  100% compute .*; sm 80% = job 80% \+ other processes 0%' "$out"

# --- two GPUs: the job on one, a tenant on the other ---------------------------
expect_eq "two GPUs: each GPU's own split (gpu proc other)" \
  "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
     $3 == "SAMPLE" && $c["gpu_proc_sm_pct"] != "" { print $c["gpu_index"], $c["gpu_proc_sm_pct"], $c["gpu_other_sm_pct"] }' two.csv | sort -u)" \
  "0 80 0
1 0 60"
# GPU 0 reads at tick 0, 100, ...; GPU 1 from tick 1 on, 100 ticks apart
# (later only when ticks are skipped): never on a multiple of 100
expect_eq "two GPUs: GPU 1 reads a tick after GPU 0 (GPU N first at tick N mod 100)" \
  "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
     $3 == "SAMPLE" && $c["gpu_index"] == 1 && $c["gpu_proc_util_ts_us"] != "" { n++; if ($c["tick"] % 100 == 0) bad++ }
     END { print (n > 0), bad + 0 }' two.csv)" "1 0"
out=$("$FLINCH" analyze two.csv --start req_start --end req_end 2>&1)
expect_match "two GPUs: the evidence names each GPU's split" \
  '; sm 80% = job 80% \+ other processes 0% \(gpu 0\); sm 60% = job 0% \+ other processes 60% \(gpu 1\)' "$out"

# --- refusals: the columns stay empty, one warning says why ------------------
refused() { # NAME OUT WARNING WHY
  expect_eq "$1: cells empty" "$(readings "$2")" ""
  expect_eq "$1: one warning" "$(cat "$2.err")" "flinch record: warning: $3"
  expect_eq "$1: the trace says why, once" \
    "$("$HELPERS/tracecheck" --events "$2" | cut -d' ' -f2- | grep '^flinch_proc_util')" \
    "flinch_proc_util gpu=0 why=\"$4\""
  expect_eq "$1: analyze says why" \
    "$("$FLINCH" analyze "$2" --start begin --end end 2>/dev/null | grep 'processes:')" \
    "    gpu 0 processes: not recorded ($4)"
}
refused "NOT_SUPPORTED" r1.csv \
  "GPU 0: per-process utilization (nvmlDeviceGetProcessUtilization): Not Supported; gpu_proc_sm_pct and gpu_other_sm_pct stay empty" \
  "nvmlDeviceGetProcessUtilization: Not Supported"
expect_eq "NOT_SUPPORTED: asked once, not again" "$(calls r1.csv nvmlDeviceGetProcessUtilization)" 1
refused "NO_PERMISSION" r2.csv \
  "GPU 0: per-process utilization (nvmlDeviceGetProcessUtilization): Insufficient Permissions; gpu_proc_sm_pct and gpu_other_sm_pct stay empty" \
  "nvmlDeviceGetProcessUtilization: Insufficient Permissions"
refused "missing symbol" r3.csv \
  "this NVML has no nvmlDeviceGetProcessUtilization: gpu_proc_sm_pct and gpu_other_sm_pct stay empty (which process used the GPU is unknown)" \
  "no nvmlDeviceGetProcessUtilization in this NVML"

# --- without a traced process: never asked -----------------------------------
expect_eq "no --pid/CMD: no calls, no cells, no warning" \
  "$(calls none.csv nvmlDeviceGetProcessUtilization):$(readings none.csv):$(cat none.csv.err)" "0::"

# --- a container seeing the host's PIDs ---------------------------------------
# The job's own samples carry pids this namespace lacks: they cannot be
# told from another tenant's, so they count as other processes', and the
# recorder says so once.
expect_match "a pid not in /proc here is named (a container seeing host PIDs)" \
  'GPU 0: NVML reports pid [0-9]+, which this PID namespace does not show .*wrongly if it is the traced job.s$' \
  "$(cat ns.csv.err)"
expect_eq "... and its time counts as another process's" "$(readings ns.csv)" "0 60"

done_testing
