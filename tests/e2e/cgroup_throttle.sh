#!/bin/bash
# cgroup_throttle.sh — issue 11's cgroup v2 cpu.stat: the recorder reads
# the traced command's cgroup (here a fake cgroup2 tree, --cgroup-root, in
# which the command's /proc/PID/cgroup path is looked up) and writes its
# throttling counters as EVENT rows (start, each change); analyze
# reports per window the throttled time and periods (text, JSON, CSV), and
# names it in a waiting window. The command itself changes cpu.stat between
# its marks, so the expected figures are exact: window a-b before the
# change (0 ms), window s-e around it (240 ms, 3 periods).
. "$ROOT/tests/lib.sh"

cg=$(awk -F: '$1 == "0" { print $3 }' /proc/self/cgroup)
if [ -z "$cg" ]; then
  skip "cgroup throttling" "no cgroup v2 line in /proc/self/cgroup"
  done_testing
fi
mkdir -p "root$cg"
stat0='usage_usec 5000\nuser_usec 4000\nsystem_usec 1000\nnr_periods 10\nnr_throttled 2\nthrottled_usec 1000000\nnr_bursts 0\nburst_usec 0\n'
printf "$stat0" > "root$cg/cpu.stat"
echo "20000 100000" > "root$cg/cpu.max"
# a host CPU that never moves, so no window is host-cpu by saturation
printf 'cpu  100 0 100 1000 0 0 0 0 0 0\n' > stat.txt
export STAT1="root$cg/cpu.stat"
FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" "$FLINCH" record --nvml-lib "$SIM" --no-rapl -q \
  --proc-stat "$T/stat.txt" --cgroup-root "$T/root" --interval-ms 10 --out t.csv -- sh -c '
  echo a > "$FLINCH_MARKS"; sleep 0.1; echo b > "$FLINCH_MARKS"
  echo s > "$FLINCH_MARKS"; sleep 0.1
  printf "usage_usec 9000\nnr_periods 14\nnr_throttled 5\nthrottled_usec 1240000\n" > "$STAT1"
  sleep 0.1; echo e > "$FLINCH_MARKS"; sleep 0.05' 2>err.txt
expect_eq "record: exit 0, nothing said" "$? $(cat err.txt)" "0 "
expect_eq "record: EVENT rows at the start and at the change" \
  "$(awk -F, '$3 == "EVENT" && $4 ~ /flinch_cgroup_cpu/ { print $4 }' t.csv)" \
  "\"flinch_cgroup_cpu path=$cg cpu_max=20000/100000 usage_usec=5000 nr_periods=10 nr_throttled=2 throttled_usec=1000000\"
\"flinch_cgroup_cpu usage_usec=9000 nr_periods=14 nr_throttled=5 throttled_usec=1240000\""
expect_eq "record: the change lies between s and e" \
  "$(awk -F, '$3 == "MARK" || ($3 == "EVENT" && $4 ~ /cgroup/) { printf "%s ", ($3 == "MARK" ? $4 : "cg") }' t.csv)" \
  '"begin" cg "a" "b" "s" cg "e" "end" '

# The command's own CPU (forking sleep and printf, and on a loaded host
# the time they wait for a CPU) never names host-cpu here
# (--proc-busy-cores 1000): the window is waiting, the throttling its cause
"$FLINCH" analyze t.csv --start s --end e --proc-busy-cores 1000 >a.txt 2>err.txt
expect_eq "analyze: exit 0" "$? $(cat err.txt)" "0 "
expect_eq "analyze: the window's breakdown is waiting" "$(grep -c '^  time: compute 0.0 ms (0%), host-cpu 0.0 ms (0%), waiting ' a.txt)" 1
expect_eq "analyze: throttling named in the waiting window" "$(grep '^  cgroup ' a.txt)" \
  "  cgroup $cg: cpu.max 20000/100000, CPU throttled 240.0 ms in 3 periods (edges +-100 ms); waiting: CPU throttled by cgroup"
"$FLINCH" analyze t.csv --start a --end b >a.txt
expect_eq "analyze: a window before the throttling" "$(grep '^  cgroup ' a.txt)" \
  "  cgroup $cg: cpu.max 20000/100000, CPU throttled 0.0 ms in 0 periods (edges +-100 ms)"
if command -v python3 >/dev/null 2>&1; then
  expect_eq "analyze --format json: the window's cgroup" \
    "$("$FLINCH" analyze t.csv --start s --end e --format json | python3 -c 'import json, sys
print(json.dumps(json.load(sys.stdin)["windows"][0]["cgroup"], sort_keys=True))')" \
    "{\"cpu_max\": \"20000/100000\", \"path\": \"$cg\", \"resolution_ms\": 100.0, \"throttled_ms\": 240.0, \"throttled_periods\": 3}"
else
  skip "analyze --format json: the window's cgroup" "no python3"
fi
"$FLINCH" analyze t.csv --start s --end e --format csv >a.csv
# counted from the end (the evidence cell may hold commas): GPM's, PCIe's
# and the identity's columns come after them
expect_eq "analyze --format csv: the two cgroup columns" \
  "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "cgroup_throttled_ms") k = NF - i }
              NR <= 2 { printf "%s%s %s", NR == 2 ? " / " : "", $(NF - k), $(NF - k + 1) } END { print "" }' a.csv)" \
  "cgroup_throttled_ms cgroup_throttled_periods / 240.000 3"

# no cpu controller (no throttling counters): nothing recorded, no line
printf 'usage_usec 5000\nuser_usec 4000\nsystem_usec 1000\n' > "root$cg/cpu.stat"
FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" "$FLINCH" record --nvml-lib "$SIM" --no-rapl -q \
  --proc-stat "$T/stat.txt" --cgroup-root "$T/root" --interval-ms 10 --out n.csv -- sh -c '
  echo s > "$FLINCH_MARKS"; sleep 0.05; echo e > "$FLINCH_MARKS"' 2>err.txt
expect_eq "no cpu controller: exit 0, nothing said" "$? $(cat err.txt)" "0 "
expect_eq "no cpu controller: no EVENT row" "$(grep -c flinch_cgroup_cpu n.csv)" 0
"$FLINCH" analyze n.csv --start s --end e >a.txt
expect_eq "no cpu controller: no cgroup line" "$(grep -c '^  cgroup ' a.txt)" 0
if command -v python3 >/dev/null 2>&1; then
  expect_eq "no cpu controller: JSON cgroup null" \
    "$("$FLINCH" analyze n.csv --start s --end e --format json | python3 -c 'import json, sys
print(json.load(sys.stdin)["windows"][0]["cgroup"])')" None
fi

# a second recording appended without a cgroup: its windows know nothing
# of the first one's readings (stopped once both marks are in: a timed
# one could end before a slow host sent them)
FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" "$FLINCH" record --nvml-lib "$SIM" --no-rapl -q \
  --interval-ms 10 --out t.csv --marks-fifo "$T/f2" 2>/dev/null &
rpid=$!
wait_for 250 grep -q 'appending\|SAMPLE' t.csv
sleep 0.05
"$FLINCH" mark s2 --fifo "$T/f2"; sleep 0.02; "$FLINCH" mark e2 --fifo "$T/f2"
wait_for 250 grep -q ',MARK,"e2",' t.csv
sleep 0.05
kill -INT $rpid
wait $rpid
"$FLINCH" analyze t.csv --start s2 --end e2 >a.txt 2>err.txt
expect_eq "second recording: analyzed" "$?" 0
expect_eq "second recording: no cgroup line" "$(grep -c '^  cgroup ' a.txt)" 0
done_testing
