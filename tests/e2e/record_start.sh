#!/bin/bash
# record_start.sh — issue 9, item 21 (recorder part): a recording shorter
# than half an interval still records its first (and last) tick; a start
# that fails (a bad FIFO, too few file descriptors, a second recorder)
# leaves no header-only trace behind, and an existing trace it was about to
# append to is left byte for byte as it was.
. "$ROOT/tests/lib.sh"
TC="$HELPERS/tracecheck"
rec() {
  out=$1; shift
  "$FLINCH" record --out "$out" --nvml-lib "$SIM" --no-rapl "$@" 2>err.txt
}

rec short.csv --seconds 0.004
expect_eq "--seconds 0.004: exit 0" "$?" 0
expect_eq "--seconds 0.004: one SAMPLE, tick 0" "$(csv_col short.csv tick | grep -v '^$')" 0
expect_eq "--seconds 0.004: begin, then the sample, then end" \
  "$(grep -v ',EVENT,' short.csv | cut -d, -f3-4 | tail -n +2 | tr '\n' ' ')" 'MARK,"begin" SAMPLE, MARK,"end" '
rec short2.csv --seconds 0.004 --gpu all --interval-ms 1000
expect_eq "--seconds 0.004 at 1 s intervals: one tick as well" "$(csv_col short2.csv tick | grep -vc '^$')" 1

# A path that is not a FIFO.
echo keep > notfifo
rec new1.csv --seconds 0.05 --marks-fifo notfifo
expect_eq "bad FIFO: exit 2" "$?" 2
check "bad FIFO: no trace created" test ! -e new1.csv

# Too few file descriptors for the FIFO.
for n in 4 5 6 7; do
  (ulimit -n $n; exec "$FLINCH" record --out "new_fd$n.csv" --nvml-lib "$SIM" --no-rapl \
     --seconds 0.05 --marks-fifo "$T/fd$n.fifo" 2>err.txt)
  rc=$?
  if [ "$rc" -ne 0 ]; then
    check "ulimit -n $n: failed start (exit $rc) left no trace" test ! -e "new_fd$n.csv"
  else
    check "ulimit -n $n: it started, and recorded" grep -q end "new_fd$n.csv"
  fi
done

# An existing trace: a failed start adds nothing to it (no header, no begin).
rec old.csv --seconds 0.05
sum=$(md5sum < old.csv)
rec old.csv --seconds 0.05 --marks-fifo notfifo
expect_eq "failed start on an existing trace: exit 2" "$?" 2
expect_eq "failed start on an existing trace: unchanged" "$(md5sum < old.csv)" "$sum"
: > empty.csv
rec empty.csv --seconds 0.05 --marks-fifo notfifo
expect_eq "failed start on an empty file: still empty" "$(stat -c %s empty.csv)" 0
done_testing
