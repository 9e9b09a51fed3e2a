# threads_fds.sh — thread states of a process with many threads under a
# low descriptor limit (issue 26 item 9: the sampler kept four descriptors
# per thread until open() failed with EMFILE; with 300 threads under
# `ulimit -n 1024` 253 appeared, no note, and the recorder's own /proc
# reads failed with it: proc_state turned X and proc_tree_procs 0 while the
# process lived, the threads turned gone). Here: 300 threads under
# `ulimit -n 64`. Every thread is in the threads file or counted in a
# threads_skipped EVENT row, none is reported gone, and every SAMPLE row
# has the process alive (R, S or D, never X; one process in the tree).
. "$ROOT/tests/lib.sh"

export FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn"
"$HELPERS/many_threads" 300 10 tids.txt &
app=$!
wait_for 250 test -s tids.txt
expect_eq "the app started 300 threads" "$(wc -l <tids.txt)" 301

(ulimit -n 64 && exec "$FLINCH" record --out t.csv --nvml-lib "$SIM" --no-rapl -q --pid "$app" \
  --threads-ms 20 --interval-ms 10 --seconds 1.5) 2>err.txt
rc=$?
alive=$(kill -0 "$app" 2>/dev/null && echo yes)
kill "$app" 2>/dev/null
wait "$app" 2>/dev/null
expect_eq "recorder exits 0 under ulimit -n 64" "$rc" 0
expect_eq "the app lived through the recording" "$alive" yes
expect_eq "nothing on stderr" "$(cat err.txt)" ""

# state R, S or D (the app's main thread wakes every 50 ms), never X or
# empty; exactly one process in the tree
bad=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "proc_state") s = i; if ($i == "proc_tree_procs") p = i }; next }
               $3 == "SAMPLE" && ($s !~ /^[RSD]$/ || $p != 1) { print $s "/" $p }' t.csv | sort | uniq -c)
expect_eq "every sample: the process alive (R, S or D), one process in the tree" "$bad" ""
check "at least 100 samples" test "$(grep -c ',SAMPLE,' t.csv)" -ge 100

seen=$(awk '$1 == "N" { print $2 }' t.csv.threads | sort -u)
missing=$(sort -u tids.txt | comm -23 - <(printf '%s\n' "$seen") | wc -l)
skipped=$("$HELPERS/tracecheck" --events t.csv | sed -n 's/.* threads_skipped n=\([0-9]*\) .*/\1/p' | sort -n | tail -n 1)
echo "# threads missing from the threads file: $missing; most counted skipped in a sweep: ${skipped:-none}"
check "every thread is in the threads file or counted in threads_skipped ($missing missing, ${skipped:-0} counted)" \
  test "$missing" -le "${skipped:-0}"
expect_eq "no thread reported gone" "$(grep -c '^X ' t.csv.threads)" 0
expect_eq "sweeps found all 301 threads" "$(grep -c '^N ' t.csv.threads)" 301
done_testing
