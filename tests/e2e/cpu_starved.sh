#!/bin/bash
# cpu_starved.sh — host-cpu is the traced job's own CPU (cpu_side.h): on a
# host the test saturates itself (one busy loop per core, started and
# killed by PID here, each bounded by timeout), with an idle GPU (waiting.scn)
# on the ideal and h100 presets and default analyze flags:
#  - a job sleeping between its marks is waiting, not host-cpu;
#  - a job burning a core is host-cpu;
#  - a job whose threads are runnable but starved (more niced spinners than
#    cores) is host-cpu with the CPU-starved reason.
# Then proc_tree_runq_ns against a known workload: a spinner pinned to a core
# shared with another spinner accumulates run-queue delay; a sleeper hardly.
# Real time (CPU rates need it); run through the test lock, alone.
. "$ROOT/tests/lib.sh"

ncpu=$(nproc)
spin='while :; do :; done'
loops=()
start_load() { for _ in $(seq "$ncpu"); do timeout 60 sh -c "$spin" & loops+=($!); done; }
stop_load() { for p in "${loops[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; loops=(); }
trap stop_load EXIT

# rec_job OUT PRESET JOB: records JOB (sh -c text; $0 is flinch, for marks)
rec_job() {
  FLINCH_SIM_PRESET=$2 FLINCH_SIM_SCENARIO="$SCENARIOS/waiting.scn" "$FLINCH" record --nvml-lib "$SIM" \
    -o "$1" -i 20 --no-rapl -q -- sh -c "$3" "$FLINCH" 2>err.txt
}
# Each job waits 0.2 s before its start mark: a mark stamped before the
# recorder's second host reading (host_cpu_busy_pct needs two) gives a
# window without the host's figure, and no word on whose load it was.
verdict_line() { "$FLINCH" analyze "$1" --start job_start --end job_end | grep '^  verdict='; }

start_load
sleep 0.3
for preset in ideal h100; do
  # the sleeper's marks through the shell's own printf: a `flinch mark`
  # process is the job's CPU too (under ASan, ~20 ms of it before its end mark)
  rec_job s-$preset.csv $preset 'sleep 0.2; printf "job_start\n" > "$FLINCH_MARKS"; sleep 1; printf "job_end\n" > "$FLINCH_MARKS"'
  out=$(verdict_line s-$preset.csv)
  # at least 95 % waiting. The shell forks `sleep 1` just after the start
  # mark (and `printf` runs before the end), and on a saturated host those
  # wait for a CPU: a CI run under ASan read 10 ms of run-queue wait there,
  # a real 2% host-cpu (19 ms) phase before the wait, CPU-starved, whose
  # text names the other processes instead.
  expect_match "$preset: a sleeping job on a saturated host is waiting" \
    '^  verdict=waiting  ([0-5]% host-cpu \([0-9]+ ms\), (then )?)?(100|9[5-9])% waiting' "$out"
  expect_match "$preset: ... and the evidence says whose the load was" \
    "; (host saturated by other work, not the job's CPU \(its threads waited [0-9]+ ms for one\)|CPU-starved [0-9]+ ms: the job's threads waited [0-9]+ ms for a CPU while other processes held them)" "$out"

  rec_job b-$preset.csv $preset "sleep 0.2; \"\$0\" mark job_start; timeout 1 sh -c '$spin'; \"\$0\" mark job_end"
  out=$(verdict_line b-$preset.csv)
  expect_match "$preset: a job burning a core is host-cpu" '^  verdict=host-cpu  ' "$out"

  rec_job t-$preset.csv $preset "sleep 0.2; \"\$0\" mark job_start; for i in \$(seq $((ncpu + 1))); do nice -n 19 timeout 1 sh -c '$spin' & done; wait; \"\$0\" mark job_end"
  out=$(verdict_line t-$preset.csv)
  expect_match "$preset: a starved job is host-cpu" '^  verdict=host-cpu  ' "$out"
  expect_match "$preset: ... CPU-starved, with its threads' wait" \
    "; CPU-starved [0-9]+ ms: the job's threads waited [0-9]+ ms for a CPU while other processes held them" "$out"
  # ncpu + 1 spinners on ncpu saturated cores, niced: each waits nearly
  # all the time, so the wait is about ncpu + 1 cores (the kernel's late
  # reports alone gave under 1); the wait is never more than the tree's
  # threads could (spinners, their timeouts starting, sh: ncpu + 3)
  dur=$("$FLINCH" analyze t-$preset.csv --start job_start --end job_end | sed -n 's/^duration_s=//p')
  waited=$(printf '%s\n' "$out" | sed -n "s/.*the job's threads waited \([0-9]*\) ms for a CPU.*/\1/p")
  echo "# $preset starved: $(printf '%s\n' "$out" | grep -Eo '[0-9]+% host-cpu \([0-9]+ ms\)' || echo '0% host-cpu'), waited ${waited:-?} ms in ${dur:-?} s: $(awk -v w="${waited:-0}" -v d="${dur:-1}" 'BEGIN { printf "%.2f", w / 1e3 / d }') cores"
  check "$preset: ... its threads waited >= $(((ncpu + 1) / 2)) cores and <= $((ncpu + 3))" \
    awk -v w="${waited:-0}" -v d="${dur:-0}" -v lo=$(((ncpu + 1) / 2)) -v hi=$((ncpu + 3)) \
    'BEGIN { c = d > 0 ? w / 1e3 / d : -1; exit !(c >= lo && c <= hi) }'
done
stop_load

# The same sleeping job's trace without the tree's columns (marks from a
# FIFO, no --pid): the job's CPU is unknown, the saturated host decides.
cols=$(head -n 1 s-ideal.csv | tr ',' '\n' | grep -n '^proc_' | cut -d: -f1 | paste -sd, -)
awk -F, -v OFS=, -v cols="$cols" 'BEGIN { n = split(cols, c, ",") } NR > 1 { for (i = 1; i <= n; i++) $c[i] = "" } 1' \
  s-ideal.csv >nt.csv
out=$(verdict_line nt.csv)
expect_match "no traced tree: the saturated host is host-cpu" '^  verdict=host-cpu  ' "$out"
expect_match "no traced tree: ... and says the job's CPU is unknown" \
  "; the job's CPU is unknown \(no traced process: --pid or -- CMD\): host-cpu is the whole host >= 90% busy" "$out"

# proc_tree_runq_ns: a spinner pinned to core 0 next to another spinner
# there waits about half the time; a sleeper pinned there hardly at all.
runq_total() { csv_col "$1" proc_tree_runq_ns | grep -v '^$' | tail -n 1; }
taskset -c 0 timeout 30 sh -c "$spin" & other=$!; loops+=($other)
FLINCH_SIM_SCENARIO="$SCENARIOS/waiting.scn" "$FLINCH" record --nvml-lib "$SIM" -o q1.csv -i 20 --no-rapl -q \
  -- taskset -c 0 timeout 1 sh -c "$spin" 2>err.txt
FLINCH_SIM_SCENARIO="$SCENARIOS/waiting.scn" "$FLINCH" record --nvml-lib "$SIM" -o q2.csv -i 20 --no-rapl -q \
  -- taskset -c 0 sleep 1 2>err.txt
stop_load
spun=$(runq_total q1.csv); slept=$(runq_total q2.csv)
echo "# run-queue delay over 1 s: pinned spinner sharing its core $((spun / 1000000)) ms, pinned sleeper $((slept / 1000000)) ms"
check "a spinner sharing its core waits >= 250 ms of 1 s ($spun ns)" test "${spun:-0}" -ge 250000000
check "a sleeper waits < 50 ms, its wake-ups' latency on a loaded host ($slept ns)" test "${slept:-999999999}" -lt 50000000
check "proc_tree_runq_ns never decreases" awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "proc_tree_runq_ns") c = i; next }
  $c != "" { if ($c + 0 < last) exit 1; last = $c + 0 }' q1.csv
done_testing
