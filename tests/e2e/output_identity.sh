# output_identity.sh — issue 26, item 1: no output of a command is one of
# its inputs or another of its outputs, however it is spelled (the same
# string, ./x, absolute, a symlink, a dangling symlink, a hard link,
# dir/../x, x.threads): record (--metrics-file, --marks-fifo against the
# trace, its .threads file and each other), plot and export (-o against
# each trace and its .threads file). Refused at start: exit 2, one line
# naming both, nothing created, nothing touched.
. "$ROOT/tests/lib.sh"
FX="$ROOT/tests/fixtures"
mkdir sub

rec_paths() { # NAME WANT_MESSAGE ARGS...: refused with exit 2 and exactly that line
  name=$1; want=$2; shift 2
  FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" "$FLINCH" record --nvml-lib "$SIM" --no-rapl \
    --seconds 0.6 -q "$@" 2>err.txt
  expect_eq "record $name: exit 2" "$?" 2
  expect_eq "record $name: message" "$(cat err.txt)" "flinch record: $want: refusing to overwrite it"
}

# --- record, the trace not there yet: nothing may be created -------------
for m in t.csv ./t.csv "$T/t.csv" sub/../t.csv "$T/sub/../t.csv"; do
  rec_paths "--metrics-file $m vs --out t.csv" \
    "--metrics-file $m: is the same file as --out t.csv" --out t.csv --metrics-file "$m"
done
check "record: no trace created" test ! -e t.csv
ln -s t.csv dangling.prom
rec_paths "--metrics-file: a dangling symlink to the trace to be" \
  "--metrics-file dangling.prom: is the same file as --out t.csv" --out t.csv --metrics-file dangling.prom
rec_paths "--metrics-file vs the trace's .threads" \
  "--metrics-file ./t.csv.threads: is the same file as --out's threads file t.csv.threads" \
  --out t.csv --metrics-file ./t.csv.threads
rec_paths "--metrics-file vs the FIFO" \
  "--metrics-file $T/f: is the same file as --marks-fifo f" \
  --out t.csv --marks-fifo f --metrics-file "$T/f"
rec_paths "--marks-fifo vs the trace" \
  "--marks-fifo sub/../t.csv: is the same file as --out t.csv" --out t.csv --marks-fifo sub/../t.csv
rec_paths "--marks-fifo vs the trace's .threads" \
  "--marks-fifo $T/t.csv.threads: is the same file as --out's threads file t.csv.threads" \
  --out t.csv --marks-fifo "$T/t.csv.threads"
check "record: nothing created" test ! -e t.csv -a ! -e f -a ! -e t.csv.threads
echo "cpu  1 2 3 4 5 6 7 8 9 10" > stat
rec_paths "--out vs --proc-stat" "--out ./stat: is the same file as --proc-stat stat" \
  --proc-stat stat --out ./stat

# --- record, the trace there (appending): untouched ------------------------
FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" "$FLINCH" record --nvml-lib "$SIM" --no-rapl \
  --seconds 0.05 -q --out a.csv 2>err.txt
cp a.csv a.keep
ln -s a.csv link.prom
ln a.csv hard.prom
mkfifo ff
for m in a.csv ./a.csv "$T/a.csv" sub/../a.csv link.prom hard.prom; do
  rec_paths "--metrics-file $m vs an existing --out a.csv" \
    "--metrics-file $m: is the same file as --out a.csv" --out a.csv --metrics-file "$m"
done
rec_paths "--metrics-file vs an existing FIFO" \
  "--metrics-file ./ff: is the same file as --marks-fifo ff" --out a.csv --marks-fifo ff --metrics-file ./ff
check "record: the existing trace untouched" cmp -s a.csv a.keep
check "record: the FIFO left a FIFO" test -p ff

# the fault itself: within 0.5 s the trace held Prometheus text
FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" "$FLINCH" record --nvml-lib "$SIM" --no-rapl \
  --seconds 0.6 -q --out b.csv --metrics-file b.prom 2>err.txt
expect_eq "record with a distinct --metrics-file: exit 0" "$?" 0
expect_eq "record: the trace is a trace" "$(head -c 7 b.csv)" "t_mono_"
expect_match "record: the metrics file is metrics" "^# HELP flinch_build_info" "$(head -n 1 b.prom)"

# --- plot and export: -o vs the trace and vs its .threads ------------------
cp "$FX/original_10col.csv" u.csv
cp u.csv u.keep
echo 'flinch-threads 1' > u.csv.threads
cp u.csv.threads u.threads.keep
ln -s u.csv u.link
ln u.csv u.hard
reader_paths() { # NAME OUT WANT_INPUT: plot and export refuse -o OUT
  for cmd in plot export; do
    if [ $cmd = plot ]; then "$FLINCH" plot u.csv -o "$2" 2>err.txt
    else "$FLINCH" export -f perfetto u.csv -o "$2" -q 2>err.txt; fi
    expect_eq "$cmd -o $1: exit 2" "$?" 2
    expect_eq "$cmd -o $1: message" "$(cat err.txt)" \
      "flinch $cmd: $2: is the same file as $3: refusing to overwrite it"
  done
}
for o in u.csv ./u.csv "$T/u.csv" sub/../u.csv u.link u.hard; do
  reader_paths "$o (the trace)" "$o" "the input u.csv"
done
for o in u.csv.threads ./u.csv.threads "$T/sub/../u.csv.threads"; do
  reader_paths "$o (its threads file)" "$o" "the input's threads file u.csv.threads"
done
check "plot, export: the trace untouched" cmp -s u.csv u.keep
check "plot, export: the threads file untouched" cmp -s u.csv.threads u.threads.keep
rm u.csv.threads
reader_paths "a .threads file not there yet" ./u.csv.threads "the input's threads file u.csv.threads"
check "plot, export: no threads file created" test ! -e u.csv.threads
"$FLINCH" plot u.csv -o u.svg --no-windows 2>err.txt
expect_eq "plot to another file: exit 0" "$?" 0

done_testing
