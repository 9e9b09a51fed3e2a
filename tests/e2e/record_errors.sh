# record_errors.sh — flinch record's error paths: no driver, no GPU, bad
# --gpu, no library, GPU lost mid-run, write error, signals, bad FIFO paths.
. "$ROOT/tests/lib.sh"

samples() { n=$(grep -c ',SAMPLE,' "$1" 2>/dev/null); echo "${n:-0}"; }

run_scn() { # SCENARIO OUT ARGS... ; stderr to err.txt
  scn=$1; out=$2; shift 2
  FLINCH_SIM_SCENARIO="$SCENARIOS/$scn.scn" "$FLINCH" record --out "$out" --nvml-lib "$SIM" --no-rapl "$@" 2>err.txt
}

run_scn no_driver nd.csv --seconds 0.1
expect_eq "no driver exits 2" "$?" 2
expect_eq "no driver message" "$(cat err.txt)" "flinch record: cannot initialise NVML: Driver Not Loaded"
check "no driver: no trace written" test ! -e nd.csv

run_scn no_gpus ng.csv --seconds 0.1
expect_eq "no GPU exits 2" "$?" 2
expect_eq "no GPU message" "$(cat err.txt)" "flinch record: no NVIDIA GPU found (NVML reports 0 devices)"

run_scn demo bad.csv --seconds 0.1 --gpu 3
expect_eq "--gpu 3 on a 1-GPU host exits 2" "$?" 2
expect_eq "--gpu 3 message" "$(cat err.txt)" "flinch record: --gpu 3: no such GPU (1 found: indices start at 0)"
run_scn demo bad.csv --seconds 0.1 --gpu x
expect_eq "--gpu x exits 2" "$?" 2
run_scn multi_gpu bad.csv --seconds 0.1 --gpu 1,1
expect_eq "--gpu 1,1 exits 2" "$?" 2

"$FLINCH" record --out nolib.csv --seconds 0.1 --nvml-lib "$T/nonexistent.so" 2>err.txt
expect_eq "missing NVML library exits 2" "$?" 2
expect_match "missing library message" "^flinch record: cannot load NVML \\($T/nonexistent.so\\): .*is the NVIDIA driver installed\\?$" "$(cat err.txt)"

# GPU lost after 30 queries: message, EVENT row, end mark, exit 3, rows kept.
run_scn lost lost.csv --seconds 2
expect_eq "GPU lost exits 3" "$?" 3
expect_eq "GPU lost message" "$(cat err.txt)" \
  "flinch record: GPU 0 fell off the bus (GPU is lost); recording stopped, rows written are kept"
expect_eq "GPU lost EVENT row" "$(grep ',EVENT,' lost.csv | grep -v ',EVENT,"*flinch_' | cut -d, -f3,4,11)" 'EVENT,"gpu_lost gpu=0",0'
expect_eq "GPU lost: end mark last" "$(tail -n 1 lost.csv | cut -d, -f3,4)" 'MARK,"end"'
n=$(grep -c ',SAMPLE,' lost.csv)
# (handle and identity 9 queries, the maximum SM clock among them, 8 on the
# first tick, then 2 a tick and 2 more every 50 ms: 6 ticks in 30 queries)
check "GPU lost: samples before the loss kept ($n)" test "$n" -ge 5 -a "$n" -le 7
expect_eq "GPU lost: kept samples are whole" "$(grep ',SAMPLE,' lost.csv | cut -d, -f13 | sort -u)" "75.000"

# Write error: a 2 KiB file-size limit; message with the path, exit 1,
# rows before it intact and whole.
(ulimit -f 2; exec "$FLINCH" record --out full.csv --seconds 1 --nvml-lib "$SIM" --no-rapl) 2>err.txt
expect_eq "write error exits 1" "$?" 1
expect_match "write error message has path and errno text" \
  "^flinch record: full.csv: write failed: File too large; recording stopped \\([0-9]+ rows written\\)$" "$(cat err.txt)"
check "write error: file ends with a whole row" test "$(tail -c 1 full.csv | od -An -c | tr -d ' ')" = '\n'
expect_eq "write error: every row has 46 cells" "$(awk -F, '{print NF}' full.csv | sort -u)" 46
check "write error: at most 2048 bytes" test "$(wc -c < full.csv)" -le 2048

# SIGTERM / SIGINT / SIGHUP mid-run: end mark, exit 0.
for sig in TERM INT HUP; do
  FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" "$FLINCH" record --out sig$sig.csv --seconds 0 \
    --nvml-lib "$SIM" --no-rapl 2>err.txt &
  pid=$!
  i=0; while [ "$(samples sig$sig.csv)" -lt 5 ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i+1)); done
  kill -$sig $pid
  wait $pid
  expect_eq "SIG$sig exits 0" "$?" 0
  expect_eq "SIG$sig: end mark last" "$(tail -n 1 sig$sig.csv | cut -d, -f3,4)" 'MARK,"end"'
  expect_eq "SIG$sig: rows whole" "$(awk -F, '{print NF}' sig$sig.csv | sort -u)" 46
done

# Marks FIFO path checks.
echo data > regular
run_scn demo f.csv --seconds 0.1 --marks-fifo regular
expect_eq "FIFO path that is a regular file exits 2" "$?" 2
expect_eq "regular file message" "$(cat err.txt)" \
  "flinch record: regular: exists but is not a FIFO; refusing to use it as the marks FIFO"
expect_eq "regular file untouched" "$(cat regular)" data
mkfifo "$T/realfifo"; ln -s "$T/realfifo" fifolink
run_scn demo f.csv --seconds 0.1 --marks-fifo fifolink
expect_eq "FIFO path that is a symlink exits 2" "$?" 2
expect_eq "symlink message" "$(cat err.txt)" \
  "flinch record: fifolink: is a symbolic link, not a FIFO; refusing to follow it"
run_scn demo f.csv --seconds 0.1 --marks-fifo "$T/nodir/fifo"
expect_eq "FIFO in a missing directory exits 2" "$?" 2

# Issue 26, item 3: output errors are reported. A --metrics-file whose
# directory is missing (or not a directory) is refused at the start.
run_scn demo mf.csv --seconds 0.1 --metrics-file "$T/nodir/x.prom"
expect_eq "--metrics-file in a missing directory: exit 2" "$?" 2
expect_eq "--metrics-file in a missing directory: message" "$(cat err.txt)" \
  "flinch record: --metrics-file $T/nodir/x.prom: cannot write in its directory $T/nodir: No such file or directory"
check "--metrics-file in a missing directory: no trace" test ! -e mf.csv
run_scn demo mf.csv --seconds 0.1 --metrics-file regular/x.prom
expect_eq "--metrics-file under a file: exit 2" "$?" 2
expect_eq "--metrics-file under a file: message" "$(cat err.txt)" \
  "flinch record: --metrics-file regular/x.prom: cannot write in its directory regular: Not a directory"
# its directory removed while recording: the last write fails, said once, exit 1
mkdir md
run_scn demo md.csv --seconds 1.5 --metrics-file md/m.prom -q &
pid=$!
wait_for 500 test -e md/m.prom
rm -rf md
wait $pid
expect_eq "--metrics-file's last write failed: exit 1" "$?" 1
expect_eq "--metrics-file's last write failed: one line" "$(cat err.txt)" \
  "flinch record: warning: --metrics-file md/m.prom: cannot replace it: No such file or directory (will retry)"
expect_eq "--metrics-file's last write failed: the trace complete" "$(tail -n 1 md.csv | cut -d, -f3,4)" 'MARK,"end"'
# --live lines to a full disk: lost, said once, exit 1 (CMD's status with CMD)
run_scn demo lf.csv --seconds 0.2 --start begin --end end --live >/dev/full
expect_eq "--live to /dev/full: exit 1" "$?" 1
expect_eq "--live to /dev/full: message" "$(cat err.txt)" \
  "flinch record: --live: standard output: write failed; live lines were lost"
run_scn demo lf2.csv --start begin --end end --live --threads-ms 0 -- sh -c 'sleep 0.2' >/dev/full
expect_eq "--live to /dev/full with CMD exiting 0: 0" "$?" 0
expect_eq "--live to /dev/full with CMD: message" "$(cat err.txt)" \
  "flinch record: --live: standard output: write failed; live lines were lost"

# Issue 26, item 11: a start that fails for lack of descriptors exits 2 and
# leaves nothing it created (trace, FIFO, metrics file). The limit at which
# each step fails depends on what the runner leaves open: every limit from
# 4 up to one that starts is tried.
starts=""; started=0
for n in $(seq 4 40); do
  rm -rf fd && mkdir fd
  bash -c "ulimit -n $n; FLINCH_SIM_SCENARIO='$SCENARIOS/demo.scn' exec '$FLINCH' record --out fd/t.csv \
    --nvml-lib '$SIM' --no-rapl --seconds 0.05 --marks-fifo fd/fifo --start begin --end end --live \
    --metrics-file fd/m.prom -- true" >/dev/null 2>err.txt
  rc=$?
  if [ $rc -eq 0 ]; then started=$n; break; fi
  # (too few for the dynamic loader: flinch never ran)
  grep -q '^flinch record: ' err.txt || continue
  starts="$starts $n:$rc:$(ls fd | tr '\n' ,)"
  cp err.txt lastfail.txt
done
check "descriptor limits: one of 4..40 starts (from $started)" test "$started" -gt 4
check "descriptor limits: flinch itself failed at several ($starts)" test "$(echo $starts | wc -w)" -ge 3
expect_eq "descriptor limits below it: exit 2, nothing left behind" \
  "$(echo $starts | tr ' ' '\n' | grep -v ':2:$' | head -n 3)" ""
expect_match "descriptor limits: the last failed start says why" "Too many open files" "$(cat lastfail.txt)"

umask 022
run_scn demo f.csv --seconds 0.05 --marks-fifo newfifo
expect_eq "new FIFO recording exits 0" "$?" 0
check "FIFO created" test -p newfifo
expect_eq "FIFO created with mode 0600" "$(stat -c %a newfifo)" 600
run_scn demo f.csv --seconds 0.05 --marks-fifo widefifo --marks-mode 0660
expect_eq "--marks-mode 0660 FIFO mode (umask ignored)" "$(stat -c %a widefifo)" 660
run_scn demo f.csv --seconds 0.05 --marks-mode 9
expect_eq "--marks-mode 9 exits 2" "$?" 2

done_testing
