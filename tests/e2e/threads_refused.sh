#!/bin/bash
# threads_refused.sh — issue 15's fallback when the kernel refuses a
# thread's system call: `flinch record --pid` of a process flinch may not
# ptrace. The refusal is made real by running the recorder without
# CAP_SYS_PTRACE (setpriv) against a process that keeps it: the kernel
# then refuses /proc/PID/task/TID/syscall (EPERM) and hides the wait
# channel ("0"), as for another user's process. Said once on stderr and in
# the threads file; the thread is still sampled (state) and analyze classes
# it from what is left. The same recording with the capability is the
# control: the system call is read and decides the class.
# (tests/unit/test_thread_probe.c covers the syscall-only refusal of Yama's
# ptrace_scope=1 and a kernel without the file, on a fake /proc.)
. "$ROOT/tests/lib.sh"

if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
  skip "syscall refused" "needs root, setpriv and python3 (to drop CAP_SYS_PTRACE from the recorder alone)"
  done_testing
fi
NOPTRACE="setpriv --bounding-set=-sys_ptrace --inh-caps=-sys_ptrace"

sleep 30 &
target=$!
if $NOPTRACE cat /proc/$target/task/$target/syscall >/dev/null 2>&1; then
  kill $target
  skip "syscall refused" "the kernel reads the syscall file without CAP_SYS_PTRACE here"
  done_testing
fi

# record_pid OUT [PREFIX...]: --pid $target at 20 ms with a window
# win_start..win_end of about 300 ms, stopped by SIGINT; stderr in OUT.err.
record_pid() {
  out=$1; shift
  FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" exec "$@" "$FLINCH" record --nvml-lib "$SIM" --no-rapl -q \
    --pid "$target" --threads-ms 20 --marks-fifo "$T/$out.fifo" --out "$out" 2>"$out.err" &
  rpid=$!
  wait_for 250 grep -q ',SAMPLE,' "$out"
  "$FLINCH" mark win_start --fifo "$T/$out.fifo"
  sleep 0.3
  "$FLINCH" mark win_end --fifo "$T/$out.fifo"
  sleep 0.1
  kill -INT "$rpid"
  wait "$rpid"
}

# waiting_on of the window as "CLASS THREAD IN" lines
classes() {
  "$FLINCH" analyze "$1" --start win_start --end win_end --format json | python3 -c '
import json, sys
for c in json.load(sys.stdin)["windows"][0]["waiting_on"]:
    for d in c["detail"]:
        print(c["class"], d["thread"], d["in"])'
}

record_pid refused.csv $NOPTRACE
expect_eq "refused: recorder exit 0" "$?" 0
expect_eq "refused: said once on stderr" "$(cat refused.csv.err)" \
  "flinch record: warning: thread states: pid $target: system calls unreadable (ptrace permission; Yama ptrace_scope or another user): state and wait channel only"
expect_eq "refused: said once in the threads file" "$(grep '^!' refused.csv.threads)" \
  "! pid $target: system calls unreadable (ptrace permission; Yama ptrace_scope or another user): state and wait channel only"
expect_eq "refused: the thread still sampled: state S, no wait channel, call unknown" \
  "$(awk -v t="$target" '$1 == "T" && $2 == t { print $3, $4, $5, $6 }' refused.csv.threads | sort -u)" "S - ? -"
expect_eq "refused: analyze classes it from the state alone" "$(classes refused.csv)" "other sleep state S"
"$FLINCH" analyze refused.csv --start win_start --end win_end >a.txt 2>err.txt
expect_eq "refused: analyze exit 0, no warning" "$? $(cat err.txt)" "0 "
expect_match "refused: the text line" "^  threads \\(every 20 ms, edges \\+-10 ms\\): other [0-9]+ ms: sleep in state S 100%" \
  "$(grep '^  threads ' a.txt)"

# control: the same with CAP_SYS_PTRACE reads the call
record_pid allowed.csv
expect_eq "allowed: recorder exit 0, nothing said" "$? $(cat allowed.csv.err)" "0 "
check "allowed: no refusal in the threads file" sh -c '! grep -q "^!" allowed.csv.threads'
expect_eq "allowed: analyze classes it by its call" "$(classes allowed.csv)" "sleep sleep clock_nanosleep"
kill $target 2>/dev/null
wait $target 2>/dev/null
done_testing
