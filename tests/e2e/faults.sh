#!/bin/bash
# faults.sh — issue 6: the recorder under faults from the simulated GPU and
# the OS. After each fault: every row reported written is in the file and
# whole (the trace reader, through build/tests/tracecheck, parses it all),
# the exit status and the message say what happened.
#
# Query arithmetic used below (sim/SCENARIO.md): getting GPU 0's handle is
# device query 1, then each tick makes 9 queries (power, utilization, SM
# clock, temperature, energy, field values, memory, clock-event reasons,
# power limit). So `lost_after N` leaves exactly (N - 1) / 9 whole samples,
# and N - 1 not a multiple of 9 loses the GPU in the middle of a tick.
. "$ROOT/tests/lib.sh"
TC="$HELPERS/tracecheck"

# rec SCENARIO_TEXT_FILE OUT ARGS...: records with stderr in err.txt.
rec() {
  scn=$1; out=$2; shift 2
  FLINCH_SIM_SCENARIO="$scn" "$FLINCH" record --out "$out" --nvml-lib "$SIM" --no-rapl "$@" 2>err.txt
}
# rec_bg SCENARIO OUT ARGS...: the same in the background; $! is flinch
# itself (exec), so signals sent to $! reach the recorder.
rec_bg() {
  scn=$1; out=$2; shift 2
  FLINCH_SIM_SCENARIO="$scn" exec "$FLINCH" record --out "$out" --nvml-lib "$SIM" --no-rapl "$@" 2>err.txt &
}
# field FILE KEY: one key=value of tracecheck's summary.
field() { "$TC" "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p"; }
samples() { n=$(grep -c ',SAMPLE,' "$1" 2>/dev/null); echo "${n:-0}"; }
has_samples() { [ "$(samples "$1")" -ge "$2" ]; }   # has_samples FILE N
has_begin() { grep -q ',MARK,"begin",' "$1" 2>/dev/null; }
wait_for() { # wait_for TRIES CMD...: polls every 20 ms
  n=$1; shift
  while [ "$n" -gt 0 ]; do "$@" && return 0; sleep 0.02; n=$((n - 1)); done
  return 1
}
# A GPU whose power / instant power / limit cells are all set, per SAMPLE row.
whole_gpu_rows() {
  awk -F, '$3 == "SAMPLE" && ($5 == "" || $13 == "" || $16 == "") { bad++ } END { print bad + 0 }' "$1"
}

# queries_kept CSV INTERVAL_MS: the device queries the GPU answered for the
# ticks in CSV, the handle being query 1 and the identity read once at start
# (name, UUID, PCI info, power limit, persistence, compute and MIG mode,
# maximum SM clock: gpu_identity.c) the next 8. A tick makes a field-values and a utilization
# query; the first tick and every round(50 / interval)th add 2 (SM clock,
# clock-event reasons), the first and every round(1000 /
# interval)th add 4 (temperature, memory, power limit, P-state):
# gpu_sampler.h's schedule, counted in scheduled ticks (a skipped tick
# counts, so the file's tick numbers are replayed).
queries_kept() {
  awk -F, -v iv="$2" 'BEGIN { q = 9; me = int((50 + iv / 2) / iv); se = int((1000 + iv / 2) / iv); lm = ls = -1 }
    $3 == "SAMPLE" { k = $18; q += 2
      if (lm < 0 || k - lm >= me) { q += 2; lm = k }
      if (ls < 0 || k - ls >= se) { q += 4; ls = k } }
    END { print q }' "$1"
}

# --- GPU lost at several queries, including mid-tick ---------------------
for n in 1 10 14 23 46; do
  printf 'lost_after %d\nat 0 power=75\n' "$n" > lost$n.scn
  rec lost$n.scn lost$n.csv --seconds 2 --interval-ms 5
  expect_eq "lost_after $n: exit 3" "$?" 3
  expect_eq "lost_after $n: message" "$(cat err.txt)" \
    "flinch record: GPU 0 fell off the bus (GPU is lost); recording stopped, rows written are kept"
  # every kept tick answered in full, and the next tick (at most 8 queries) failed
  # (the handle and identity queries are made whatever they answer)
  kept=$(queries_kept lost$n.csv 5)
  check "lost_after $n: the ticks kept are those whose queries came before the Nth ($kept)" \
    test "$kept" -le "$(( n > 9 ? n : 9 ))" -a "$((kept + 8))" -gt "$n"
  expect_eq "lost_after $n: file parses, no truncated line" "$(field lost$n.csv truncated)" 0
  expect_eq "lost_after $n: EVENT then end mark" \
    "$(tail -n 2 lost$n.csv | cut -d, -f3,4 | tr '\n' ' ')" 'EVENT,"gpu_lost gpu=0" MARK,"end" '
  expect_eq "lost_after $n: no half-read sample" "$(whole_gpu_rows lost$n.csv)" 0
done

# Lost before the first query: refused at start, no trace written.
printf 'lost_after 0\nat 0 power=75\n' > lost0.scn
rec lost0.scn lost0.csv --seconds 1
expect_eq "lost_after 0: exit 2" "$?" 2
expect_eq "lost_after 0: message" "$(cat err.txt)" "flinch record: GPU 0: GPU is lost"
check "lost_after 0: no trace file" test ! -e lost0.csv

# Two GPUs, GPU 1 lost in its third tick: GPU 0's row of that tick is kept
# (the handle, the GPM support query and 8 identity queries, 9 in tick 0
# with the first GPM sample, 2 in tick 1: query 22 is tick 2's).
printf 'gpus 2\nlost_after 21 gpu 1\nat 0 power=75\n' > lost2.scn
rec lost2.scn lost2.csv --seconds 2 --interval-ms 5 --gpu all
expect_eq "GPU 1 lost: exit 3" "$?" 3
expect_eq "GPU 1 lost: message names GPU 1" "$(cat err.txt)" \
  "flinch record: GPU 1 fell off the bus (GPU is lost); recording stopped, rows written are kept"
expect_eq "GPU 1 lost: rows per GPU (0: 3, 1: 2)" \
  "$(awk -F, '$3 == "SAMPLE" { c[$11]++ } END { printf "%d %d", c[0], c[1] }' lost2.csv)" "3 2"
expect_eq "GPU 1 lost: EVENT names GPU 1" "$("$TC" --events lost2.csv | cut -d' ' -f2- | grep -v '^flinch_')" "gpu_lost gpu=1"

# --- NOT_SUPPORTED appearing mid-run --------------------------------------
# (gpu_power_W comes from field 185; nvmlDeviceGetPowerUsage, its fallback,
# is unsupported too.)
printf 'unsupported_after 5 field:185\nunsupported nvmlDeviceGetPowerUsage\nunsupported_after 8 field:186\nat 0 power=75\n' > unsup.scn
rec unsup.scn unsup.csv --seconds 0.3 --interval-ms 10
expect_eq "unsupported mid-run: exit 0" "$?" 0
expect_eq "unsupported mid-run: silent (NOT_SUPPORTED is not an error)" "$(cat err.txt)" ""
expect_eq "unsupported mid-run: power cells set then empty" \
  "$(awk -F, '$3 == "SAMPLE" { printf "%s", ($5 == "" ? "-" : "P") }' unsup.csv | cut -c1-12)" "PPPPP-------"
expect_eq "unsupported mid-run: instant power set 8 times" \
  "$(awk -F, '$3 == "SAMPLE" && $13 != "" { n++ } END { print n }' unsup.csv)" 8
expect_eq "unsupported mid-run: other cells still there" \
  "$(awk -F, '$3 == "SAMPLE" && ($6 == "" || $12 == "" || $16 == "") { bad++ } END { print bad + 0 }' unsup.csv)" 0
s=$(field unsup.csv samples); k=$(field unsup.csv skipped_ticks)
expect_eq "unsupported mid-run: recording went on (samples + skipped = 30)" "$((s + k))" 30
expect_eq "unsupported mid-run: end mark" "$(tail -n 1 unsup.csv | cut -d, -f3,4)" 'MARK,"end"'

# --- a stalled NVML call ---------------------------------------------------
# stall.scn: the 40th query (tick 10's field values) takes 50 ms more. The
# recorder records the overrun (a tick gap) and keeps its schedule after it.
rec "$SCENARIOS/stall.scn" stall.csv --seconds 0.5 --interval-ms 10 --no-dither
expect_eq "stall: exit 0" "$?" 0
s=$(field stall.csv samples); k=$(field stall.csv skipped_ticks)
ticks=$(field stall.csv ticks)
expect_eq "stall: samples + skipped ticks = 50, last tick 49" "$((s + k)) ${ticks#*..}" "50 49"
check "stall: ticks skipped after the 50 ms call ($k)" test "$k" -ge 3
# The longest gap between two samples is the stall: >= 50 ms, and the
# tick number jumps there (ticks skipped, not made up in a burst).
read -r gap_ns jump <<<"$(awk -F, '$3 == "SAMPLE" { if (n++ && $1 - t > g) { g = $1 - t; j = $18 - p }
                                   t = $1; p = $18 } END { print g + 0, j + 0 }' stall.csv)"
check "stall: the stalled tick took >= 50 ms ($gap_ns ns)" test "$gap_ns" -ge 50000000
check "stall: tick numbers jump there ($jump)" test "$jump" -ge 4
# Back on schedule, no drift: tick k starts at begin + k * 10 ms plus a
# little; the median offset of the ticks after the stall is under 5 ms
# (generous for a loaded machine), none is early.
begin=$(awk -F, '$3 == "MARK" && $4 == "\"begin\"" { print $1; exit }' stall.csv)
awk -F, -v b="$begin" '$3 == "SAMPLE" && $18 > 28 { print $1 - (b + $18 * 10000000) }' stall.csv |
  sort -n > offsets.txt
early=$(awk '$1 < 0' offsets.txt | wc -l)
median=$(awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] + 0 }' offsets.txt)
expect_eq "stall: no tick early against begin + k * interval" "$early" 0
check "stall: on schedule after it (median offset $median ns)" test "$median" -lt 5000000

# Marks arriving while the sampler is stuck in NVML are stamped on arrival:
# the marks thread does not wait for the sampler. A 700 ms stall at tick 2
# (query 22: its field-values call, after the tick's stamp; see lost2.scn).
printf 'stall_ms 700 at_query 22\nat 0 power=75\n' > longstall.scn
# (Writes to a FIFO go through `timeout`: if the recorder were gone, the
# open would block forever.)
rec_bg longstall.scn mstall.csv --seconds 0 --interval-ms 10 --marks-fifo "$T/stall.fifo"
pid=$!
wait_for 250 has_samples mstall.csv 2
sleep 0.15
t_sent=$("$HELPERS/simtool" now)
timeout 5 bash -c 'echo during_stall > "$1"' _ "$T/stall.fifo"
wait_for 100 has_samples mstall.csv 4
kill -TERM $pid; wait $pid
expect_eq "stall + marks: exit 0" "$?" 0
arrival=$("$TC" --marks mstall.csv | awk '$3 == "during_stall" { print $2 }')
t_after=$(awk -F, '$3 == "SAMPLE" && $18 >= 3 { print $1; exit }' mstall.csv)
check "stall + marks: mark arrived within 100 ms of being sent ($arrival vs $t_sent)" \
  test -n "$arrival" -a "$((arrival - t_sent))" -lt 100000000
check "stall + marks: stamped before the sampler came back ($arrival < $t_after)" \
  test -n "$arrival" -a -n "$t_after" -a "$arrival" -lt "$t_after"
expect_eq "stall + marks: file parses" "$(field mstall.csv marks)" 3

# --- disk full ---------------------------------------------------------------
# RLIMIT_FSIZE 4 KiB: the write that crosses it fails; the partial row is
# taken back out; the message names the path and errno; exit 1; the count
# of rows it reports written is exactly what the file holds.
(ulimit -f 4; FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" exec "$FLINCH" record --out "$T/full.csv" \
   --seconds 2 --interval-ms 5 --nvml-lib "$SIM" --no-rapl --marks-fifo "$T/full.fifo") 2>err.txt
expect_eq "disk full: exit 1" "$?" 1
msg=$(cat err.txt)
expect_match "disk full: message with path and errno" \
  "^flinch record: $T/full.csv: write failed: File too large; recording stopped \\([0-9]+ rows written\\)$" "$msg"
reported=$(printf '%s' "$msg" | sed -n 's/.*(\([0-9]*\) rows written).*/\1/p')
expect_eq "disk full: rows reported written are all in the file, whole" \
  "$(field full.csv rows) $(field full.csv truncated)" "$reported 0"
check "disk full: under the limit" test "$(wc -c < full.csv)" -le 4096
expect_eq "disk full: no end mark after the failure" "$(grep -c ',MARK,"end",' full.csv)" 0

# A device that is always full: the header cannot be written.
rec "$SCENARIOS/demo.scn" /dev/full --seconds 1
expect_eq "/dev/full: exit 2" "$?" 2
expect_eq "/dev/full: message" "$(cat err.txt)" \
  "flinch record: /dev/full: cannot write header: No space left on device"

# --- the FIFO deleted, then replaced by a regular file ------------------------
rec_bg "$SCENARIOS/demo.scn" fifo.csv --seconds 0 --interval-ms 10 --marks-fifo "$T/m.fifo"
pid=$!
wait_for 250 test -p "$T/m.fifo"
wait_for 250 has_samples fifo.csv 1
rm "$T/m.fifo"
check "FIFO deleted: created again" wait_for 150 test -p "$T/m.fifo"
expect_eq "FIFO deleted: new one is 0600" "$(stat -c %a "$T/m.fifo")" 600
wait_for 100 grep -q 'created it again' err.txt
timeout 5 bash -c 'echo after_recreate > "$1"' _ "$T/m.fifo"
wait_for 100 grep -q after_recreate fifo.csv
echo user data > "$T/regular.tmp"
mv -f "$T/regular.tmp" "$T/m.fifo"
check "FIFO replaced: warned" wait_for 150 grep -q 'no longer the marks FIFO' err.txt
n1=$(samples fifo.csv); sleep 0.3; n2=$(samples fifo.csv)
check "FIFO replaced: still sampling ($n1 -> $n2)" test "$n2" -gt "$n1"
kill -TERM $pid; wait $pid
expect_eq "FIFO faults: exit 0 after SIGTERM" "$?" 0
expect_eq "FIFO faults: messages" "$(cat err.txt)" \
"flinch record: warning: $T/m.fifo: marks FIFO was removed; created it again
flinch record: warning: $T/m.fifo: no longer the marks FIFO (replaced); marks written there are lost"
expect_eq "FIFO faults: marks" "$("$TC" --marks fifo.csv | cut -d' ' -f3-)" "begin
after_recreate
end"
expect_eq "FIFO faults: replacement untouched" "$(cat "$T/m.fifo")" "user data"
check "FIFO faults: replacement still a regular file" test -f "$T/m.fifo" -a ! -p "$T/m.fifo"

# --- signals at random moments -------------------------------------------------
# After the begin mark is down, any of SIGTERM/SIGINT/SIGHUP at any moment
# ends the recording with the end mark and exit 0. Delays are random (seed
# printed so a failure can be replayed with FAULTS_SEED).
seed=${FAULTS_SEED:-$$}; RANDOM=$seed; echo "# signal delays seeded with $seed"
i=0
for sig in TERM INT HUP TERM INT HUP; do
  i=$((i + 1)); f=sig$i.csv
  d=$(printf '0.%03d' $((RANDOM % 300)))
  rec_bg "$SCENARIOS/demo.scn" $f --seconds 0 --interval-ms 2 --marks-fifo "$T/sig.fifo"
  pid=$!
  wait_for 250 has_begin $f
  sleep "$d"
  kill -$sig $pid; wait $pid
  rc=$?
  expect_eq "SIG$sig after ${d}s: exit 0, end mark last, parses" \
    "$rc $(tail -n 1 $f | cut -d, -f3,4) $(field $f truncated)" '0 MARK,"end" 0'
done
# ...also while the sampler is stuck in a 700 ms NVML call.
rec_bg longstall.scn sigstall.csv --seconds 0 --interval-ms 10
pid=$!
wait_for 250 has_samples sigstall.csv 2
sleep 0.1; kill -TERM $pid; wait $pid
rc=$?
expect_eq "SIGTERM during a stalled NVML call: exit 0, end mark, parses" \
  "$rc $(tail -n 1 sigstall.csv | cut -d, -f3,4) $(field sigstall.csv truncated)" '0 MARK,"end" 0'

# --- kill -9 ---------------------------------------------------------------------
# Marks flood in while samples are written at 1 ms; SIGKILL at a random
# moment. Every line but possibly the last is whole; the reader (and so
# `flinch analyze`) reads the file.
for k in 1 2 3; do
  f=kill$k.csv
  rec_bg "$SCENARIOS/demo.scn" $f --seconds 0 --interval-ms 1 --marks-fifo "$T/k.fifo"
  pid=$!
  wait_for 250 test -p "$T/k.fifo"
  wait_for 250 has_begin $f
  # (timeout: once the recorder is dead, opening its FIFO would block)
  timeout 3 bash -c 'for j in $(seq 1 200); do echo "flood $j"; done > "$1"' _ "$T/k.fifo" 2>/dev/null &
  sleep "0.$((RANDOM % 200 + 20))"
  kill -KILL $pid; wait $pid 2>/dev/null
  wait
  "$TC" $f >tc.txt 2>tc_err.txt
  expect_eq "kill -9 #$k: the trace reader reads it" "$?" 0
  expect_eq "kill -9 #$k: rows whole" "$(head -n -1 $f | awk -F, '{ print NF }' | sort -u)" 46
done
# A line cut short as by a kill in mid-write: skipped with a warning by
# the reader and by `flinch analyze`, which still reports the window.
"$HELPERS/gen_trace" --rows 100 --windows 1 --out gen.csv
size=$(wc -c < gen.csv)
head -c $((size - 30)) gen.csv > cut.csv
out=$("$TC" cut.csv 2>&1)
expect_match "cut line: reader warns, reads the rest" \
  "cut.csv:[0-9]+: truncated last line ignored .*truncated=1" "$(echo $out)"
"$FLINCH" analyze --csv cut.csv --start infer_start --end first_token >out.txt 2>err.txt
expect_eq "cut line: flinch analyze exits 0" "$?" 0
expect_match "cut line: flinch analyze warns about the truncated last line" \
  "^flinch analyze: warning: cut.csv:[0-9]+: truncated last line ignored" "$(cat err.txt)"
expect_eq "cut line: same report as the whole file" \
  "$(cat out.txt)" "$("$FLINCH" analyze --csv gen.csv --start infer_start --end first_token 2>&1)"

done_testing
