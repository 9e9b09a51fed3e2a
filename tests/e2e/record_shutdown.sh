#!/bin/bash
# record_shutdown.sh — issue 9, item 1: marks acknowledged to a writer are
# never lost at shutdown. Four writers hold the FIFO open and flood it
# while the recorder is stopped by SIGTERM, by SIGINT and by --seconds
# running out, several times each: every mark whose write() returned
# before the recorder's `end` (the moment its read end was found empty and
# closed) is in the trace exactly once, and every writer then gets EPIPE
# instead of writes that succeed into a pipe nobody reads.
. "$ROOT/tests/lib.sh"
MF="$HELPERS/markhold"
runs=${SHUTDOWN_RUNS:-6}
[ -n "${SANITIZED:-}" ] && runs=2


one_run() { # MODE RUN
  mode=$1; k=$2
  out="$T/s_${mode}_$k.csv"; fifo="$T/s_${mode}_$k.fifo"
  secs=0; [ "$mode" = seconds ] && secs=0.4
  "$FLINCH" record --out "$out" --nvml-lib "$SIM" --no-rapl --interval-ms 10 \
    --seconds "$secs" --marks-fifo "$fifo" 2>"$out.err" &
  rec=$!
  wait_for 250 grep -q begin "$out" || { notok "$mode run $k: recorder did not start"; return; }
  "$MF" write "$fifo" 4 "$out.rep" 2>"$out.werr" &
  wr=$!
  case $mode in
    TERM|INT) sleep 0.25; kill -"$mode" $rec ;;
  esac
  wait $rec; rrc=$?
  wait $wr; wrc=$?
  expect_eq "$mode run $k: recorder exit 0" "$rrc" 0
  expect_eq "$mode run $k: every writer ended on EPIPE" "$wrc:$(cat "$out.werr")" "0:"
  res=$("$MF" check "$out" "$out.rep" 4); crc=$?
  if [ "$crc" -eq 0 ]; then ok "$mode run $k: nothing written before the stop is missing"; else
    notok "$mode run $k: nothing written before the stop is missing"; echo "$res" | sed 's/^/    /' >&2
  fi
  echo "$res" | awk -v m="$mode" -v k="$k" '/raced/ { a += $(NF-10); l += $(NF-3) }
    END { printf "# %s run %s: %d writes raced the close, %d of them lost\n", m, k, a, l }'
  rm -f "$out" "$out".rep.*
}

for k in $(seq 1 "$runs"); do
  for mode in TERM INT seconds; do one_run "$mode" "$k"; done
done
done_testing
