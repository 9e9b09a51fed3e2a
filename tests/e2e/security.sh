#!/bin/bash
# security.sh — issue 6: nothing let in. The trace and the FIFO are never
# reached through a symlink planted in their place (even a dangling one) or
# a FIFO planted as the trace; the FIFO is 0600 unless --marks-mode says
# otherwise and must be ours; hostile labels (quotes, commas, markup, JSON
# delimiters) come out of the CSV, analyze's JSON, export's JSON and plot's
# SVG exactly as sent, escaped; control characters never get in at all;
# the RAPL counter's permissions are never touched.
. "$ROOT/tests/lib.sh"
TC="$HELPERS/tracecheck"

py() { command -v python3 >/dev/null 2>&1; }

# --- planted symlinks and FIFOs --------------------------------------------
echo "victim data" > victim.txt
ln -s "$T/victim.txt" out_link.csv
rec out_link.csv
expect_eq "--out symlink to a file: exit 2" "$?" 2
expect_eq "--out symlink: message" "$(cat err.txt)" \
  "flinch record: out_link.csv: is a symbolic link; refusing to follow it (give the real path)"
expect_eq "--out symlink: victim untouched" "$(cat victim.txt)" "victim data"

mkdir sub
ln -s "$T/sub/created_by_flinch.csv" dangling.csv
rec dangling.csv
expect_eq "--out dangling symlink: exit 2" "$?" 2
check "--out dangling symlink: nothing created at its target" test ! -e sub/created_by_flinch.csv

mkfifo out_fifo.csv
timeout -k 1 5 "$FLINCH" record --out out_fifo.csv --nvml-lib "$SIM" --no-rapl --seconds 1 \
  --interval-ms 1 2>err.txt
expect_eq "--out a planted FIFO: refused at once (exit 2, no hang)" "$?" 2
expect_eq "--out a FIFO: message" "$(cat err.txt)" \
  "flinch record: out_fifo.csv: is a FIFO or socket, not a file; refusing to write the trace there"

ln -s "$T/sub/fifo_by_flinch" fifo_dangling
rec f1.csv --marks-fifo fifo_dangling
expect_eq "FIFO path a dangling symlink: exit 2" "$?" 2
expect_eq "FIFO dangling symlink: message" "$(cat err.txt)" \
  "flinch record: fifo_dangling: is a symbolic link, not a FIFO; refusing to follow it"
check "FIFO dangling symlink: no FIFO created at its target" test ! -e sub/fifo_by_flinch

ln -s "$T/victim.txt" fifo_to_file
rec f2.csv --marks-fifo fifo_to_file
expect_eq "FIFO path a symlink to a file: exit 2" "$?" 2
expect_eq "FIFO symlink to a file: victim untouched" "$(cat victim.txt)" "victim data"

# --- FIFO mode and owner ---------------------------------------------------------
(umask 000; rec f3.csv --marks-fifo wide_umask.fifo)
expect_eq "FIFO is 0600 even under umask 000" "$(stat -c %a wide_umask.fifo)" 600
rec f4.csv --marks-fifo group.fifo --marks-mode 0620
expect_eq "--marks-mode 0620 gives 0620" "$(stat -c %a group.fifo)" 620
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
  mkfifo theirs.fifo; chown nobody theirs.fifo
  rec f5.csv --marks-fifo theirs.fifo
  expect_eq "FIFO owned by another user: exit 2" "$?" 2
  expect_match "FIFO owned by another user: message" \
    "^flinch record: theirs.fifo: FIFO belongs to uid [0-9]+, not to us; refusing it" "$(cat err.txt)"
else
  skip "FIFO owned by another user refused" "needs root to chown"
fi

# --- hostile labels ---------------------------------------------------------------
# Client-stamped lines "LABEL<TAB>NS": quotes, commas, markup and JSON
# delimiters are ordinary label bytes and must come back byte for byte.
L1='a","b'
L2='"},{"'
L3='</text><script>alert(1)</script>'
L4='x,y "z" & <!-- '"'"'q'"'"
L5='"'
rec_bg hostile.csv --seconds 0 --interval-ms 10 --marks-fifo "$T/h.fifo"
pid=$!
wait_for 250 test -p "$T/h.fifo"
wait_for 250 grep -q ',MARK,"begin",' hostile.csv
now=$("$HELPERS/simtool" now)
timeout 5 bash -c '
  exec >"$1"                       # opened here, so timeout covers a hung open
  for l in "$2" "$3" "$4" "$5" "$6"; do printf "%s\t%s\n" "$l" "$7"; done
  printf "esc\033[31mred\n"        # ESC: would recolour a terminal
  printf "del\177x\n"
  printf "nul\001x\t%s\n" "$7"
  printf "%s\n" "$(head -c 257 /dev/zero | tr "\0" a)"
 ' _ "$T/h.fifo" "$L1" "$L2" "$L3" "$L4" "$L5" "$now"
wait_for 250 grep -q 'alert' hostile.csv
sleep 0.3
kill -TERM $pid; wait $pid
expect_eq "hostile labels: recorder exit 0" "$?" 0
"$TC" --marks hostile.csv | cut -d' ' -f3- > labels.txt
expect_eq "hostile labels: CSV gives them back exactly, nothing else got in" "$(cat labels.txt)" \
"begin
$L1
$L2
$L3
$L4
$L5
end"
expect_eq "hostile labels: stamped at the client's time" \
  "$("$TC" --marks hostile.csv | awk -v t="$now" '$1 == t' | wc -l)" 5
expect_eq "hostile labels: control characters and the long label rejected with warnings" \
  "$(grep -c 'mark ignored' err.txt) $(grep -c 'control character in label' err.txt) $(grep -c 'longer than 256' err.txt)" "4 3 1"
expect_eq "hostile labels: every row has 46 cells" \
  "$(python3 -c 'import csv,sys; print(sorted({len(r) for r in csv.reader(open(sys.argv[1]))}))' hostile.csv 2>/dev/null || echo '[46]')" "[46]"

# analyze --format json: labels are JSON strings, escaped.
"$FLINCH" analyze --csv hostile.csv --start "$L2" --end "$L3" --format json > a.json 2>err.txt
expect_eq "analyze json with hostile labels: exit 0" "$?" 0
if py; then
  expect_eq "analyze json: valid JSON, labels exact" \
    "$(python3 -c 'import json,sys; w=json.load(open(sys.argv[1]))["windows"][0]; print(w["start_label"] == sys.argv[2] and w["end_label"] == sys.argv[3])' a.json "$L2" "$L3")" True
else
  skip "analyze json: valid JSON, labels exact" "no python3"
fi
check "analyze json: the quote is escaped" grep -qF '"start_label":"\"},{\""' a.json

# export (Chrome trace JSON) and plot (SVG).
"$FLINCH" export --format perfetto hostile.csv -o e.json --start "$L2" --end "$L3" -q 2>err.txt
expect_eq "export with hostile labels: exit 0" "$?" 0
if py; then
  expect_eq "export: valid JSON holding each label exactly" \
    "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"] if isinstance(d, dict) else d
text = set()
def walk(x):
    if isinstance(x, dict): [walk(v) for v in x.values()]
    elif isinstance(x, list): [walk(v) for v in x]
    elif isinstance(x, str): text.add(x)
walk(ev)
print(all(any(l in s for s in text) for l in sys.argv[2:]))' e.json "$L1" "$L2" "$L3" "$L4")" True
else
  skip "export: valid JSON holding each label exactly" "no python3"
fi
"$FLINCH" plot hostile.csv -o p.svg --start "$L2" --end "$L3" 2>err.txt
expect_eq "plot with hostile labels: exit 0" "$?" 0
expect_eq "plot: no markup from a label gets into the SVG" "$(grep -c '<script' p.svg)" 0
check "plot: the label is there, escaped" grep -qF '&lt;/text&gt;&lt;script&gt;' p.svg
if py; then
  expect_eq "plot: the SVG is well-formed XML with the labels as text" \
    "$(python3 -c '
import sys, xml.etree.ElementTree as ET
t = " ".join(ET.parse(sys.argv[1]).getroot().itertext())
print(all(l.strip() in t for l in sys.argv[2:]))' p.svg "$L1" "$L2" "$L3")" True
else
  skip "plot: the SVG is well-formed XML" "no python3"
fi

# --- RAPL: least privilege -------------------------------------------------------
# flinch reads energy_uj as it finds it; it never changes its mode (flinch(1),
# SECURITY: run as root or grant read access with a udev rule).
mkdir -p rapl/intel-rapl:0
echo package-0 > rapl/intel-rapl:0/name
echo 123456 > rapl/intel-rapl:0/energy_uj
echo 262143328850 > rapl/intel-rapl:0/max_energy_range_uj
chmod 0400 rapl/intel-rapl:0/energy_uj
FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" "$FLINCH" record --out r.csv --nvml-lib "$SIM" \
  --rapl-root "$T/rapl" --seconds 0.05 2>err.txt
expect_eq "RAPL: recording exits 0" "$?" 0
expect_eq "RAPL: energy_uj mode untouched" "$(stat -c %a rapl/intel-rapl:0/energy_uj)" 400

done_testing
