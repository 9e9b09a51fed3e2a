#!/bin/bash
# analyze_waiting_csv.sh — issue 15's waiting_on in `analyze --format csv`:
# the fixture trace of analyze_fixtures.sh with a hand-written threads file
# (tests/fixtures/flinch_windows.threads: "main" in a futex throughout;
# "net,io;x" on a CPU, in recvfrom on a socket from the sweep at 11.7 s
# (edge 11.65 s), on a CPU again from 12.1 s (edge 12.05 s)). Windows
# [10.5, 11.0] compute, [11.5, 12.0] waiting, [12.2, 12.7] host-cpu, so
# window 2 holds lock 500 + network 350 + running 150 thread-ms. The CSV
# is checked byte for byte, and against the JSON's waiting_on.
. "$ROOT/tests/lib.sh"
FX="$ROOT/tests/fixtures"

cp "$FX/flinch_windows.csv" w.csv
cp "$FX/flinch_windows.threads" w.csv.threads
"$FLINCH" analyze --csv w.csv --start infer_start --end first_token --format csv >out.csv 2>err.txt
expect_eq "waiting_on CSV: exit 0, no warning" "$? $(cat err.txt)" "0 "
expect_eq "waiting_on CSV: byte for byte" "$(cat out.csv)" "$(cat "$FX/flinch_windows.waiting.csv.expected")"
expect_eq "waiting_on CSV: the new columns, after the breakdown's, before the cgroup's (then PCIe's 6, identity's 4, per-process 2, not-recorded 3, reason and slow clock 2, confidence 2, recording)" \
  "$(head -n 1 out.csv | tr , '\n' | tail -n 34 | head -n 12 | tr '\n' ' ')" \
  "gpu0_segments waiting_on_resolution_ms threads_network_ms threads_lock_ms threads_sleep_ms threads_disk_ms threads_pipe_ms threads_gpu_driver_ms threads_running_ms threads_other_ms waiting_on segments_waiting_on "
expect_eq "waiting_on CSV: window 2's cells" \
  "$(sed -n 3p out.csv | awk -F, '{ for (i = NF - 32; i <= NF - 22; i++) printf "%s%s", $i, (i < NF - 22 ? "|" : "\n") }')" \
  '50.0|350.0|500.0|0.0|0.0|0.0|0.0|150.0|0.0|lock:500.0:main;network:350.0:net\x2cio\x3bx;running:150.0:net\x2cio\x3bx|waiting:0.000-500.000:lock'
if command -v python3 >/dev/null 2>&1; then
  "$FLINCH" analyze --csv w.csv --start infer_start --end first_token --format json >out.json
  # the CSV says what the JSON says: per class thread-ms, threads (the
  # cell's \xHH decoded), and each segment's dominant class
  expect_eq "waiting_on CSV: the same as the JSON" "$(python3 - out.csv out.json <<'PY'
import csv, json, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
wins = json.load(open(sys.argv[2]))["windows"]
dec = lambda s: re.sub(r"\\x([0-9a-f]{2})", lambda m: chr(int(m.group(1), 16)), s)
bad = 0
for row, w in zip(rows, wins):
    cells = [c.split(":") for c in row["waiting_on"].split(";")] if row["waiting_on"] else []
    want = [[c["class"], "%.1f" % c["thread_ms"], c["threads"]] for c in w["waiting_on"]]
    got = [[c[0], c[1], [dec(n) for n in c[2].split("|")]] for c in cells]
    bad += got != want
    for c in w["waiting_on"]:
        bad += row["threads_%s_ms" % c["class"].replace("-", "_")] != "%.1f" % c["thread_ms"]
    segs = ["%s:%.3f-%.3f:%s" % (s["class"], s["start_ms"], s["end_ms"], s["dominant"] or "-")
            for s in w["segments_waiting_on"]]
    bad += ";".join(segs) != row["segments_waiting_on"]
    bad += "%.1f" % w["waiting_on_resolution_ms"] != row["waiting_on_resolution_ms"]
print(len(rows), bad)
PY
)" "3 0"
else
  skip "waiting_on CSV: the same as the JSON" "no python3"
fi

# without a threads file the cells are empty (the fixture's own expected
# output, analyze_fixtures.sh, checks the whole row)
rm w.csv.threads
"$FLINCH" analyze --csv w.csv --start infer_start --end first_token --format csv >none.csv
expect_eq "no threads file: 11 empty cells (and the cgroup's 2, PCIe's 6, identity's 4, per-process 2; then not-recorded 0.000, none, 0.000; then no reason, no slow clock (no maximum SM clock in this trace); then the confidence; then recording 1)" "$(sed -n 2p none.csv | grep -o ',*,0\.000,,0\.000,,,medium,[^,]*,1$')" ",,,,,,,,,,,,,,,,,,,,,,,,,,0.000,,0.000,,,medium,edges +-62 ms are 12% of the 500 ms window,1"
done_testing
