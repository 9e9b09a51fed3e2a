# metrics_counts.sh — the counters about the trace itself stay the
# trace's once the live feed overflows (issue 26 item 13: with 300 k range
# lines in 3.6 s, flinch_samples_total said 2,112 of 2,500 samples,
# flinch_ticks_skipped_total 388 of none, flinch_marks_received_total
# 32,289 of 300,000: they were counted from the rows the live side read).
# 100,000 range marks (more where the live side kept up) are written to
# the FIFO as fast as Python can; the feed drops rows (flinch_live_rows_dropped_total > 0), and the textfile's
# samples, skipped ticks and marks equal what tracecheck counts in the
# trace. The drop counter has HELP and TYPE lines in both formats. The
# recording runs until the flood is sent and /metrics scraped.
. "$ROOT/tests/lib.sh"

export FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn"
if ! command -v python3 >/dev/null 2>&1; then
  skip "metrics counts" "python3 needed"; done_testing
fi
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_for_file() { i=0; while ! grep -q -- "$2" "$1" 2>/dev/null && [ $i -lt 500 ]; do sleep 0.01; i=$((i+1)); done; }

port=$(free_port)
"$FLINCH" record --out f.csv --interval-ms 10 --nvml-lib "$SIM" --no-rapl \
  --marks-fifo "$T/fifo" --range r --metrics-file "$T/m.prom" --metrics "$port" -q 2>err.txt &
rec=$!
wait_for_file f.csv 'MARK,"\{0,1\}begin'
wait_for_file err.txt 'serving metrics'
# 100,000 range starts (r start=N) whose ends never come: the live side
# tracks up to 1024 open ranges and abandons the oldest, slow enough to
# fall behind (ranges that end would do too, but analyze's energy
# estimator then takes tens of seconds over them). Client-stamped, in
# writes of under 4 KiB (PIPE_BUF: each reaches the FIFO whole). Where the
# live side kept up with one flood (a fast moment: it reads with the
# analyzer's own reader), another follows, up to four: the case under test
# is a feed that overflowed, whatever the machine's speed.
flood() {
  python3 - "$T/fifo" 100000 "$1" <<'PY'
import os, sys, time
fd = os.open(sys.argv[1], os.O_WRONLY)
n, first, sent, buf = int(sys.argv[2]), int(sys.argv[3]), 0, []
size = 0
for i in range(first, first + n):
    line = "r\t%d\tstart=%d\n" % (time.monotonic_ns(), i)
    if size + len(line) > 4000:
        os.write(fd, "".join(buf).encode()); sent += len(buf); buf, size = [], 0
    buf.append(line); size += len(line)
os.write(fd, "".join(buf).encode()); sent += len(buf)
print("sent", sent)
PY
}
curl_om() {
  python3 - "$port" <<'PY'
import http.client, sys
h = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=5)
h.request("GET", "/metrics", headers={"Accept": "application/openmetrics-text"})
print(h.getresponse().read().decode(), end="")
PY
}
om_value() { curl_om | sed -n "s/^$1 //p"; }
sent=0 floods=0
while [ $floods -lt 4 ]; do
  expect_eq "flood $((floods + 1)): 100000 marks sent" "$(flood $sent)" "sent 100000"
  sent=$((sent + 100000)) floods=$((floods + 1))
  # every mark written to the trace (and so offered to the feed) before the
  # drops are read
  i=0; while [ "$(om_value flinch_marks_received_total)" != "$sent" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
  [ "$(om_value flinch_live_rows_dropped_total)" != 0 ] && break
done
echo "# floods of 100,000 marks: $floods"
curl_om >om.txt
# stopped once scraped: a fixed --seconds could end before a loaded host
# had sent the flood and scraped (the scrape was then refused)
kill -INT $rec
wait $rec
expect_eq "recorder exits 0" "$?" 0
expect_eq "nothing on stderr but the serving line" "$(grep -vc 'serving metrics' err.txt)" 0

metric() { sed -n "s/^$1 //p" m.prom; }
tc=$("$HELPERS/tracecheck" f.csv)
echo "# tracecheck: $tc"
want_samples=$(printf '%s\n' "$tc" | sed -n 's/.* samples=\([0-9]*\) .*/\1/p')
want_skipped=$(printf '%s\n' "$tc" | sed -n 's/.* skipped_ticks=\([0-9]*\) .*/\1/p')
want_marks=$("$HELPERS/tracecheck" --marks f.csv | awk '$2 != "-"' | wc -l)
dropped=$(metric flinch_live_rows_dropped_total)
echo "# live rows dropped: $dropped"
check "the live feed overflowed (dropped ${dropped:-?} rows; the case under test)" test "${dropped:-0}" -gt 0
expect_eq "flinch_samples_total = the trace's SAMPLE rows" "$(metric flinch_samples_total)" "$want_samples"
expect_eq "flinch_ticks_skipped_total = the trace's skipped ticks" "$(metric flinch_ticks_skipped_total)" "$want_skipped"
expect_eq "flinch_marks_received_total = the trace's marks from the FIFO" "$(metric flinch_marks_received_total)" "$want_marks"
expect_eq "every mark sent is in the trace" "$want_marks" "$sent"
expect_eq "text format: HELP and TYPE of the drop counter" "$(grep '^# [A-Z]* flinch_live_rows_dropped' m.prom)" \
"# HELP flinch_live_rows_dropped_total Trace rows the live analysis could not keep up with (window metrics may miss them).
# TYPE flinch_live_rows_dropped_total counter"
expect_eq "OpenMetrics: HELP and TYPE of the drop counter" "$(grep '^# [A-Z]* flinch_live_rows_dropped' om.txt)" \
"# HELP flinch_live_rows_dropped Trace rows the live analysis could not keep up with (window metrics may miss them).
# TYPE flinch_live_rows_dropped counter"
check "OpenMetrics: the drop counter's sample" grep -q '^flinch_live_rows_dropped_total [0-9][0-9]*$' om.txt
done_testing
