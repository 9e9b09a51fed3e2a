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
# (handle and identity 8 queries, 8 on the first tick, then 2 a tick and 2
# more every 50 ms: 7 ticks in 30 queries)
check "GPU lost: samples before the loss kept ($n)" test "$n" -ge 6 -a "$n" -le 8
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
