# record_cmd.sh — `flinch record -- CMD`, --pid, and several GPUs per tick.
. "$ROOT/tests/lib.sh"

samples() { n=$(grep -c ',SAMPLE,' "$1" 2>/dev/null); echo "${n:-0}"; }

rec() { FLINCH_SIM_SCENARIO="$SCENARIOS/${SCN:-demo}.scn" "$FLINCH" record --nvml-lib "$SIM" --no-rapl "$@"; }

# Exit status and environment of the wrapped command.
rec --out c7.csv -- sh -c 'echo "$FLINCH_MARKS" > env.txt; test -p "$FLINCH_MARKS" && echo isfifo >> env.txt; exit 7' 2>err.txt
expect_eq "wrapped command's exit status" "$?" 7
expect_match "child sees FLINCH_MARKS pointing at a private FIFO" "^/tmp/flinch\\.[A-Za-z0-9]{6}/marks$|^${TMPDIR:-/tmp}/flinch\\.[A-Za-z0-9]{6}/marks$" "$(head -n 1 env.txt)"
expect_eq "FLINCH_MARKS is a FIFO" "$(sed -n 2p env.txt)" isfifo
check "private FIFO removed afterwards" test ! -e "$(head -n 1 env.txt)"
expect_eq "wrapped: begin and end marks" "$(grep ',MARK,' c7.csv | cut -d, -f4 | tr '\n' ' ')" '"begin" "end" '

# Marks from the child through FLINCH_MARKS; recording lasts as long as it.
rec --out cm.csv --interval-ms 10 -- sh -c 'sleep 0.2; echo from_child > "$FLINCH_MARKS"; sleep 0.2' 2>err.txt
expect_eq "child exit 0" "$?" 0
expect_eq "child's mark recorded" "$(grep -c ',MARK,"from_child",' cm.csv)" 1
n=$(grep -c ',SAMPLE,' cm.csv)
check "recording lasted about as long as the child ($n samples)" test "$n" -ge 30 -a "$n" -le 80
pids=$(grep ',SAMPLE,' cm.csv | cut -d, -f21 | sort -u)
check "proc_pid column filled with the child's pid" test -n "$pids" -a "$(echo "$pids" | wc -l)" -eq 1

# --marks-fifo given: the child gets that path.
rec --out cf.csv --marks-fifo "$T/myfifo" -- sh -c 'echo "$FLINCH_MARKS"' > env2.txt 2>err.txt
expect_eq "FLINCH_MARKS is the --marks-fifo path" "$(cat env2.txt)" "$T/myfifo"

# Killed by a signal: 128 + N.
rec --out ck.csv -- sh -c 'kill -KILL $$' 2>err.txt
expect_eq "child killed by SIGKILL -> 137" "$?" 137
rec --out cn.csv -- "$T/no-such-command" 2>err.txt
expect_eq "command not found -> 127" "$?" 127
expect_match "command not found message" "^flinch record: cannot run $T/no-such-command: No such file or directory$" "$(cat err.txt)"

# SIGTERM to flinch is forwarded to the child first; flinch ends when it does.
FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" "$FLINCH" record --nvml-lib "$SIM" --no-rapl --out ct.csv -- sh -c 'trap "echo got_term > term.txt; exit 5" TERM; while :; do sleep 0.05; done' 2>err.txt &
pid=$!
i=0; while [ "$(samples ct.csv)" -lt 5 ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i+1)); done
kill -TERM $pid; wait $pid
expect_eq "SIGTERM forwarded: flinch exits with the child's status" "$?" 5
expect_eq "child got SIGTERM" "$(cat term.txt 2>/dev/null)" got_term
expect_eq "forwarded: end mark last" "$(tail -n 1 ct.csv | cut -d, -f3,4)" 'MARK,"end"'

# Issue 26, item 18: with CMD the exit status is always CMD's. A CMD
# exiting 3 is not "GPU lost"; a GPU lost (or a write error) while CMD
# exits 0 is 0, said on stderr and, for the GPU, in the trace.
rec --out s3.csv -- sh -c 'exit 3' 2>err.txt
expect_eq "CMD exits 3, no GPU fault: 3" "$?" 3
expect_eq "CMD exits 3: nothing on stderr" "$(cat err.txt)" ""
rec --out s1.csv -- sh -c 'exit 1' 2>err.txt
expect_eq "CMD exits 1, no write error: 1" "$?" 1
SCN=lost rec --out sl.csv --threads-ms 0 -- sh -c 'sleep 0.5' 2>err.txt
expect_eq "GPU lost while CMD exits 0: 0" "$?" 0
expect_eq "GPU lost with CMD: message" "$(cat err.txt)" \
  "flinch record: GPU 0 fell off the bus (GPU is lost); recording stopped, rows written are kept"
expect_eq "GPU lost with CMD: EVENT row, then the end mark" \
  "$(grep -v ',EVENT,"*flinch_' sl.csv | tail -n 2 | cut -d, -f3,4 | tr '\n' ' ')" 'EVENT,"gpu_lost gpu=0" MARK,"end" '
SCN=lost rec --out sl5.csv --threads-ms 0 -- sh -c 'sleep 0.5; exit 5' 2>err.txt
expect_eq "GPU lost while CMD exits 5: 5" "$?" 5
(ulimit -f 2; FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" exec "$FLINCH" record --out sw.csv --nvml-lib "$SIM" --no-rapl --threads-ms 0 \
  -- sh -c 'sleep 0.5') 2>err.txt
expect_eq "write error while CMD exits 0: 0" "$?" 0
expect_match "write error with CMD: message" \
  "^flinch record: sw.csv: write failed: File too large; recording stopped \\([0-9]+ rows written\\)$" "$(cat err.txt)"
# after the loss flinch waits for CMD, passing SIGTERM on as before
FLINCH_SIM_SCENARIO="$SCENARIOS/lost.scn" "$FLINCH" record --nvml-lib "$SIM" --no-rapl --threads-ms 0 \
  --out slt.csv -- sh -c 'echo $$ > cmd.pid; trap "exit 6" TERM; while :; do sleep 0.05; done' 2>err.txt &
pid=$!
wait_for 500 grep -q gpu_lost slt.csv
kill -TERM $pid; wait $pid
expect_eq "GPU lost, then SIGTERM: passed on to CMD, its status" "$?" 6
# were it not passed on, CMD would outlive the test (and hold the runner's files)
check "GPU lost, then SIGTERM: CMD is gone" sh -c '! kill -0 "$(cat cmd.pid)" 2>/dev/null'
kill -KILL "$(cat cmd.pid)" 2>/dev/null

# --pid: a busy process's CPU time grows by about the wall time, a
# sleeping one's hardly at all; its exit is an EVENT and recording goes on.
sh -c 'i=0; while :; do i=$((i + 1)); done' & busy=$!
sleep 5 & idle=$!
rec --out pb.csv --seconds 0.5 --interval-ms 10 --pid $busy 2>/dev/null
rec --out pi.csv --seconds 0.5 --interval-ms 10 --pid $idle 2>/dev/null
span() { awk -F, '$3 == "SAMPLE" && $22 != "" { if (!n++) a = $22; b = $22 } END { print int((b - a) / 1e6) }' "$1"; }
b=$(span pb.csv); s=$(span pi.csv)
# (generous: on a loaded 2-core machine a spinning shell may get a fraction of a core)
check "busy process: proc_cpu_ns grew >= 50 ms over 0.5 s (got $b ms)" test "$b" -ge 50
check "sleeping process: proc_cpu_ns grew < 10 ms (got $s ms)" test "$s" -lt 10
expect_eq "busy process state R" "$(grep ',SAMPLE,' pb.csv | cut -d, -f23 | sort | uniq -c | sort -rn | head -n 1 | awk '{print $2}')" R
expect_eq "sleeping process state S" "$(grep ',SAMPLE,' pi.csv | cut -d, -f23 | sort -u)" S
kill $busy $idle 2>/dev/null; wait $busy $idle 2>/dev/null

sleep 0.2 & short=$!
rec --out pe.csv --seconds 0.6 --interval-ms 10 --pid $short 2>/dev/null
expect_eq "--pid exit: recording goes on to the end" "$?" 0
expect_eq "--pid exit: one proc_exit EVENT" "$(grep ',EVENT,' pe.csv | grep -v ',EVENT,"*flinch_' | cut -d, -f4,21)" "\"proc_exit pid=$short\",$short"
expect_eq "--pid exit: recorded to the last tick" "$(grep ',SAMPLE,' pe.csv | tail -n 1 | cut -d, -f18)" 59
expect_eq "--pid exit: state X afterwards" "$(grep ',SAMPLE,' pe.csv | tail -n 1 | cut -d, -f23)" X
rec --out px.csv --seconds 0.1 --pid 999999999 2>err.txt
expect_eq "--pid of no process exits 2" "$?" 2

# Several GPUs: one SAMPLE row per GPU per tick.
SCN=multi_gpu rec --out mg.csv --seconds 0.2 --interval-ms 10 --gpu all 2>err.txt
expect_eq "--gpu all exits 0" "$?" 0
expect_eq "--gpu all: 2 rows (GPU 0, 1) for each tick, to tick 19" \
  "$(grep ',SAMPLE,' mg.csv | cut -d, -f18 | uniq -c | awk '{ n[$1]++; t = $2 } END { for (k in n) printf "%sx ", k; print t }')" "2x 19"
expect_eq "--gpu all: GPU 0 then 1 each tick" "$(grep ',SAMPLE,' mg.csv | cut -d, -f11,18 | head -n 4 | tr '\n' ' ')" "0,0 1,0 0,1 1,1 "
expect_eq "--gpu all: per-GPU temperature" "$(grep ',SAMPLE,' mg.csv | cut -d, -f9,11 | sort -u | tr '\n' ' ')" "40,1 45,0 "
SCN=multi_gpu rec --out mg1.csv --seconds 0.1 --interval-ms 10 --gpu 1 2>err.txt
expect_eq "--gpu 1 only" "$(grep ',SAMPLE,' mg1.csv | cut -d, -f11 | sort -u)" 1
SCN=multi_gpu rec --out mg2.csv --seconds 0.1 --interval-ms 10 --gpu 1,0 2>err.txt
expect_eq "--gpu 1,0 keeps the order given" "$(grep ',SAMPLE,' mg2.csv | cut -d, -f11 | head -n 2 | tr '\n' ' ')" "1 0 "

done_testing
