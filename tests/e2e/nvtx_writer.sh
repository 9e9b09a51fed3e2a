# nvtx_writer.sh — the NVTX bridge's writer thread (nvtx/nvtx_writer.c),
# through our own minimal NVTX host (tests/helpers/nvtx_host.c): what is
# queued is written at exit, a forked child writes its own marks at once, a
# full ring drops and counts, a reader that goes away never kills an
# application with SIGPIPE's default action, the application's signal
# mask holds, a descriptor number the application reuses never gets our
# lines; and FLINCH_NVTX_THREAD=0 (each mark written by its own thread).
. "$ROOT/tests/lib.sh"

LIB="$BUILD/libflinch_nvtx.so"
rec() {  # rec OUT.csv [record options] -- CMD...
  out=$1; shift
  FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" "$FLINCH" record -q --out "$out" --interval-ms 10 \
    --nvml-lib "$SIM" --no-rapl "$@"
}
count_marks() { awk -F, -v l="\"$2\"" '$3 == "MARK" && $4 == l { n++ } END { print n + 0 }' "$1"; }
events() { awk -F, '$3 == "EVENT" && $4 ~ /marks_dropped/ { print $4 }' "$1"; }
# sum of dropped=N over the raw lines of FILE for one reason
raw_dropped() { awk -F'\t' -v r="reason=$2" '$1 ~ r && $3 ~ /^dropped=/ { sub(/^dropped=/, "", $3); s += $3 } END { print s + 0 }' "$1"; }

# --- exit: what is queued when main returns is written ---
for mode in thread direct; do
  th=1; [ $mode = direct ] && th=0
  FLINCH_NVTX_THREAD=$th rec exit_$mode.csv --nvtx -- "$HELPERS/nvtx_host" flood 1000 >/dev/null 2>err.txt
  expect_eq "exit ($mode): 1000 pairs, exit 0, every start and end in the trace, nothing dropped" \
    "$?:$(count_marks exit_$mode.csv flood):$(events exit_$mode.csv | wc -l | tr -d ' '):$(cat err.txt)" "0:2000:0:"
done
expect_eq "exit: every range pairs" "$("$FLINCH" analyze --csv exit_thread.csv --range flood --format csv | awk -F, 'NR > 1' | wc -l | tr -d ' ')" 1000

# --- fork: the child writes its marks itself, at once (no writer thread to lose) ---
rec fork.csv --nvtx -- "$HELPERS/nvtx_host" fork >out.txt 2>err.txt
child=$(sed -n 's/^child \([0-9]*\) .*/\1/p' out.txt)
expect_eq "fork: exit 0, the child's range written by the child" \
  "$?:$(awk -F, '$3 == "MARK" && $4 == "\"child_range\"" { print $24 }' fork.csv | sed 's/ tid=.*//' | tr '\n' ' ')" \
  "0:start=$child.2 end=$child.2 "
expect_eq "fork: the parent's range once, not twice (the child's ring starts empty)" "$(count_marks fork.csv parent_range)" 2

# --- the application's signal mask: the writer thread blocks every signal ---
FLINCH_MARKS="$T/nobody" NVTX_INJECTION64_PATH="$LIB" "$HELPERS/nvtx_host" sigmask >out.txt 2>&1
expect_eq "SIGUSR1 blocked by the application reaches its sigwait, not the bridge's thread" \
  "$?:$(tail -n 1 out.txt)" "0:sigwait: SIGUSR1"

# --- a reader that goes away: EPIPE, never SIGPIPE (its default action kills) ---
for mode in thread direct; do
  th=1; [ $mode = direct ] && th=0
  rm -f gone.fifo; mkfifo gone.fifo
  head -c 3000 <gone.fifo >/dev/null &
  reader=$!
  exec 8>gone.fifo                      # returns once head has the FIFO open
  FLINCH_NVTX_THREAD=$th FLINCH_MARKS="$T/gone.fifo" NVTX_INJECTION64_PATH="$LIB" \
    "$HELPERS/nvtx_host" flood 30000 >out.txt 2>&1
  st=$?
  exec 8>&-                             # head ends even if it got nothing
  wait $reader
  expect_eq "reader gone mid-run ($mode, SIGPIPE default): the application runs on, exit 0" \
    "$st:$(grep -c 'pairs in' out.txt)" "0:1"
done

# --- a full ring: a reader that reads only after a second; nothing lost
# without being counted (marks written + dropped=, reason queue) ---
rm -f late.fifo; mkfifo late.fifo
(sleep 1; cat) <late.fifo >late.txt &
reader=$!
exec 8>late.fifo
FLINCH_MARKS="$T/late.fifo" NVTX_INJECTION64_PATH="$LIB" "$HELPERS/nvtx_host" flood 20000 1500 >out.txt 2>&1
st=$?
exec 8>&-
wait $reader
written=$(grep -c '^flood	' late.txt)
queue=$(raw_dropped late.txt queue)
undelivered=$(raw_dropped late.txt undelivered)
expect_eq "full ring: exit 0" "$st:$(grep -c 'pairs in' out.txt)" "0:1"
check "full ring: marks were dropped for want of room (queue=$queue)" test "$queue" -gt 0
expect_eq "full ring: written + counted = all 40000 lines (written $written, queue $queue, undelivered $undelivered)" \
  "$((written + queue + undelivered))" 40000
check "full ring: every line whole (no torn line)" sh -c "! grep -v -E '^(\$|flood	[0-9]+	(start|end)=[0-9]+\\.[0-9]+ tid=[0-9]+\$|nvtx pid=[0-9]+ reason=[a-z]+	[0-9]+	dropped=[0-9]+\$)' late.txt"

# --- a descriptor number the application closes and reuses ---
rec fds.csv --nvtx -- "$HELPERS/nvtx_host" closefds "$T/app.txt" >out.txt 2>err.txt
expect_eq "closefds: exit 0; the application's file got the bridge's old descriptor number" \
  "$?:$(tail -n 1 out.txt | sed 's/[0-9][0-9]*$/N/')" "0:file on descriptor N"
expect_eq "closefds: nothing of ours in the application's file" "$(wc -c <app.txt | tr -d ' ')" 0
expect_eq "closefds: marks before and after, through a new descriptor" \
  "$(count_marks fds.csv before):$(count_marks fds.csv after)" "1:1"

done_testing
