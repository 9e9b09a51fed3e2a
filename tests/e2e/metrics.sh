# metrics.sh — `flinch record --metrics/--metrics-file/--live`: the
# exposition text (exact lines, promtool when installed), the textfile and
# the live lines against `flinch analyze` on the same trace, the server's
# limits (404/405/431, slow and piling clients) while sampling goes on, and
# the option errors. All traffic on 127.0.0.1.
. "$ROOT/tests/lib.sh"

export FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_for() { # FILE PATTERN: up to 5 s
  i=0; while ! grep -q -- "$2" "$1" 2>/dev/null && [ $i -lt 500 ]; do sleep 0.01; i=$((i+1)); done
}
if ! command -v python3 >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1; then
  skip "metrics" "python3 and curl needed"; done_testing
fi
port=$(free_port)

# Two 3 s recordings, whose live lines are compared with analyze further
# down, run beside the 5 s one below (~1 % of a core each; their marks
# carry their own stamps); one recording after another took 6 s more.
# With --idle-w/--busy-w the live verdicts are analyze's too.
"$FLINCH" record --out v.csv --seconds 3 --interval-ms 10 --nvml-lib "$SIM" --no-rapl \
  --marks-fifo "$T/fifo2" --start a --end b --idle-w 75 --busy-w 612 --live -q >live2.txt 2>err2.txt &
rec_v=$!
# --range NAME: ranges paired by id, overlapping across "threads", equal
# to analyze --range on the same trace.
"$FLINCH" record --out r.csv --seconds 3 --interval-ms 10 --nvml-lib "$SIM" --no-rapl \
  --marks-fifo "$T/fifo3" --range prefill --live -q >live3.txt 2>err4.txt &
rec_r=$!
wait_for v.csv 'MARK,"\{0,1\}begin'
now=$("$HELPERS/simtool" now)
ms() { echo $((now + $1 * 1000000)); }
printf 'a\t%s\nb\t%s\na\t%s\nb\t%s\n' "$(ms 900)" "$(ms 1300)" "$(ms 1800)" "$(ms 2200)" > fifo2
wait_for r.csv 'MARK,"\{0,1\}begin'
now=$("$HELPERS/simtool" now)
printf 'prefill\t%s\tstart=1.1\nprefill\t%s\tstart=1.2\nprefill\t%s\tend=1.1\nprefill\t%s\tend=1.2\n' \
  "$(ms 900)" "$(ms 1100)" "$(ms 1500)" "$(ms 1600)" > fifo3

# A 5 s recording with two named windows and client-stamped marks: three
# "req" windows (one stamped before its samples arrive) and two "tok".
"$FLINCH" record --out m.csv --seconds 5 --interval-ms 10 --nvml-lib "$SIM" --no-rapl \
  --marks-fifo "$T/fifo" --window req=rs:re --window tok=ts:te --start rs --end te \
  --live --metrics "$port" --metrics-file "$T/m.prom" -q >live.txt 2>err.txt &
rec=$!
wait_for m.csv 'MARK,"\{0,1\}begin'
wait_for err.txt 'serving metrics'
now=$("$HELPERS/simtool" now)
printf 'rs\t%s\nts\t%s\nte\t%s\nre\t%s\n' "$(ms 100)" "$(ms 150)" "$(ms 400)" "$(ms 824)" > fifo
printf 'rs\t%s\nre\t%s\n' "$(ms 1000)" "$(ms 1724)" > fifo
sleep 1.9
printf 'rs\t%s\nts\t%s\nre\t%s\nte\t%s\n' "$(ms 1900)" "$(ms 1950)" "$(ms 2100)" "$(ms 2150)" > fifo
printf 'bell\007\n' > fifo                       # rejected
sleep 1.5          # analyze's energy estimator waits for up to 16 counter updates
curl -s -m 5 "http://127.0.0.1:$port/metrics" >scrape.txt
expect_eq "GET /metrics during the recording" "$?" 0
curl -s -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/healthz" >code.txt
expect_eq "GET /healthz: 200" "$(cat code.txt)" 200
expect_eq "another path: 404" "$(curl -s -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/")" 404
expect_eq "POST /metrics: 405" "$(curl -s -m 5 -o /dev/null -w '%{http_code}' -d x "http://127.0.0.1:$port/metrics")" 405
big=$(head -c 6000 /dev/zero | tr '\0' a)
expect_eq "a request over 4 KiB: 431" \
  "$(curl -s -m 5 -o /dev/null -w '%{http_code}' -H "X-Big: $big" "http://127.0.0.1:$port/metrics")" 431
wait $rec
expect_eq "recorder exits 0" "$?" 0
expect_match "bare PORT listens on loopback only" "serving metrics on http://127.0.0.1:$port/metrics" "$(cat err.txt)"

uuid='gpu="0",uuid="GPU-5151a000-0000-4000-8000-000000000000"'
s=$(cat scrape.txt)
expect_match "build info" '^flinch_build_info\{version="[0-9.]+",host="[^"]+"\} 1$' "$s"
expect_match "power gauge with gpu and uuid labels" "^flinch_gpu_power_watts\{$uuid\} [0-9.]+$" "$s"
expect_match "SM clock in Hz" "^flinch_gpu_sm_clock_hertz\{$uuid\} (345000000|1980000000|1755000000)$" "$s"
expect_match "utilization as a ratio" "^flinch_gpu_utilization_ratio\{$uuid\} (0|0\\.6|0\\.98[0-9]*)$" "$s"
expect_match "energy counter in J" "^flinch_gpu_energy_joules_total\{$uuid\} [0-9.]+$" "$s"
expect_match "marks received" '^flinch_marks_received_total 10$' "$s"
expect_match "marks rejected" '^flinch_marks_rejected_total 1$' "$s"
expect_match "histogram +Inf" '^flinch_window_duration_seconds_bucket\{window="req",le="\+Inf"\} 3$' "$s"
expect_match "window counter by verdict" '^flinch_windows_total\{window="tok",verdict="compute"\} [0-9]+$' "$s"
expect_match "--start/--end window named START:END" '^flinch_window_energy_joules_total\{window="rs:te"\} ' "$s"
expect_eq "no label from a free-form mark" "$(grep -c bell scrape.txt)" 0
if command -v promtool >/dev/null 2>&1; then
  promtool check metrics <scrape.txt >promtool.txt 2>&1
  expect_eq "promtool check metrics: clean" "$?:$(cat promtool.txt)" "0:"
else
  skip "promtool check metrics" "promtool not installed (tests/setup-deps.sh installs prometheus)"
fi

# The textfile at exit: every window, equal to analyze on the trace.
check "metrics file written" test -f m.prom
expect_eq "metrics file mode 0644" "$(stat -c %a m.prom)" 644
expect_eq "no temporary file left" "$(ls -a | grep -c '\.m\.prom\.tmp')" 0
for def in req:rs:re tok:ts:te rs:te:rs:te; do
  wn=${def%:*:*}; lbl=${def#"$wn":}; st=${lbl%%:*}; en=${lbl#*:}
  "$FLINCH" analyze m.csv --start "$st" --end "$en" --format csv >a.csv 2>/dev/null
  n=$(($(wc -l <a.csv) - 1))
  count=$(awk -v w="$wn" -F'[{}]' '$1=="flinch_window_duration_seconds_count" && $2=="window=\""w"\"" {print $3+0}' m.prom)
  expect_eq "$wn: window count equals analyze's" "$count" "$n"
  got=$(awk -v w="$wn" -F'[{}]' '$1=="flinch_window_energy_joules_total" && $2=="window=\""w"\"" {printf "%.3f", $3}' m.prom)
  want=$(csv_col a.csv energy_J | awk '{s += $1} END {printf "%.3f", s}')
  check "$wn: energy total equals analyze's ($got J vs $want J, to the printed mJ per window)" \
    near "$got" "$want" $(awk -v n="$n" 'BEGIN { print 0.0005 * (n + 1) + 1e-9 }')
  got=$(awk -v w="$wn" -F'[{}]' '$1=="flinch_window_duration_seconds_sum" && $2=="window=\""w"\"" {printf "%.6f", $3}' m.prom)
  want=$(csv_col a.csv duration_s | awk '{s += $1} END {printf "%.6f", s}')
  expect_eq "$wn: duration sum equals analyze's" "$got" "$want"
done
expect_eq "req windows: 3" "$(grep -c '^live req #' live.txt)" 3

# --live: each line's duration and energy as analyze prints them.
"$FLINCH" analyze m.csv --start rs --end re --format csv >a.csv
awk -F, 'NR > 1 { print $6, $8, $9 }' a.csv | sort >want.txt
sed -n 's/^live req #[0-9]*: t_start_ns=\([0-9]*\) duration_s=\([0-9.]*\) energy_J=\([0-9.]*\) .*/\1 \2 \3/p' \
  live.txt | sort >got.txt
expect_eq "live lines: duration and energy equal analyze's, window by window" "$(cat got.txt)" "$(cat want.txt)"
expect_match "live line says the levels are still learned" '^live req #1: .* verdict=[a-z-]+ \(.*levels: .*, so far\)$' "$(cat live.txt)"

# the two recordings started first: --idle-w/--busy-w, then --range
wait $rec_v
"$FLINCH" analyze v.csv --start a --end b --idle-w 75 --busy-w 612 --format csv >a2.csv
python3 -c 'import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(r["t_start_ns"], r["duration_s"], r["energy_J"], r["compute_ms"], r["host_cpu_ms"], r["waiting_ms"], r["verdict"])' a2.csv | sort >want2.txt
sed -n 's/^live a:b #[0-9]*: t_start_ns=\([0-9]*\) duration_s=\([0-9.]*\) energy_J=\([0-9.]*\) [^c]*compute_ms=\([0-9.]*\) host_cpu_ms=\([0-9.]*\) waiting_ms=\([0-9.]*\) verdict=\([a-z-]*\) .*/\1 \2 \3 \4 \5 \6 \7/p' \
  live2.txt | sort >got2.txt
expect_eq "live with --idle-w/--busy-w: breakdown and verdict equal analyze's too" "$(cat got2.txt)" "$(cat want2.txt)"
check "two windows" test "$(wc -l <got2.txt)" -eq 2

wait $rec_r
"$FLINCH" analyze r.csv --range prefill --format csv >a3.csv
awk -F, 'NR > 1 { print $6, $8, $9 }' a3.csv | sort >want3.txt
sed -n 's/^live prefill #[0-9]*: t_start_ns=\([0-9]*\) duration_s=\([0-9.]*\) energy_J=\([0-9.]*\) .*/\1 \2 \3/p' \
  live3.txt | sort >got3.txt
expect_eq "live --range: windows paired by id, equal to analyze --range" "$(cat got3.txt)" "$(cat want3.txt)"
expect_eq "live --range: 0.6 s and 0.5 s" "$(cut -d' ' -f2 got3.txt | sort | tr '\n' ' ')" "0.500000 0.600000 "

# Hostile clients: 20 slow-loris connections, requests that never end, a
# flood of connects; sampling goes on undisturbed and a scrape after the
# slow ones time out is served.
port=$(free_port)
"$FLINCH" record --out h.csv --seconds 6 --interval-ms 10 --nvml-lib "$SIM" --no-rapl \
  --metrics "127.0.0.1:$port" -q 2>err3.txt &
rec=$!
# the control: the same recording at the same time, without a server, so
# the comparison is fair on a loaded machine
"$FLINCH" record --out ctl.csv --seconds 6 --interval-ms 10 --nvml-lib "$SIM" --no-rapl -q 2>/dev/null &
ctl=$!
wait_for err3.txt 'serving metrics'
python3 - "$port" <<'PY' >hostile.txt 2>&1
import socket, sys, time
port = int(sys.argv[1])
slow = []
for i in range(20):
    s = socket.create_connection(("127.0.0.1", port), timeout=2)
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
    slow.append(s)
t0 = time.time()
flood = 0
while time.time() - t0 < 1.0 and flood < 200:   # a connect flood, bounded
    time.sleep(0.002)
    try:
        c = socket.create_connection(("127.0.0.1", port), timeout=1)
        c.close(); flood += 1
    except OSError:
        pass
for s in slow:                         # trickle one byte each, slower than the limit
    try: s.sendall(b"X")
    except OSError: pass
time.sleep(1.6)
dropped = 0
for s in slow:
    s.settimeout(0.5)
    try:
        if s.recv(1) == b"": dropped += 1
    except OSError:
        dropped += 1
print("flood", flood, "dropped", dropped)
PY
expect_match "slow clients dropped after the request time limit" 'dropped 20$' "$(cat hostile.txt)"
curl -s -m 5 "http://127.0.0.1:$port/metrics" >scrape3.txt
expect_match "served again once the slow clients are gone" '^flinch_samples_total [0-9]+$' "$(cat scrape3.txt)"
wait $rec
expect_eq "recorder exits 0 after the hostile clients" "$?" 0
wait $ctl
gaps() { csv_col "$1" tick | awk '$1 == "" { next } n++ && $1 != p + 1 { s += $1 - p - 1 } { p = $1 } END { print s + 0 }'; }
skipped=$(gaps h.csv); control=$(gaps ctl.csv)
check "no ticks skipped beyond normal while attacked ($skipped of 600; $control without a server)" \
  test "$skipped" -le $((control + 8))
expect_eq "6 s at 10 ms: samples + skipped ticks = 600" "$(( $(grep -c ',SAMPLE,' h.csv) + skipped ))" 600

# Option and path errors: exit 2 before anything is written.
port=$(free_port)
"$FLINCH" record --out hold.csv --seconds 3 --nvml-lib "$SIM" --no-rapl --metrics "$port" -q 2>hold.txt &
holder=$!
wait_for hold.txt 'serving metrics'
expect_status "port in use" 2 "$FLINCH" record --out e1.csv --seconds 1 --nvml-lib "$SIM" --metrics "$port" 2>e.txt
expect_match "port in use message" "metrics $port: cannot listen: Address already in use" "$(cat e.txt)"
kill $holder 2>/dev/null; wait $holder 2>/dev/null
ln -s /etc/passwd link.prom
expect_status "a symlink as --metrics-file is refused" 2 "$FLINCH" record --out e2.csv --seconds 1 --nvml-lib "$SIM" --metrics-file link.prom 2>e.txt
expect_match "symlink message" 'metrics-file link.prom: exists and is not a regular file \(a symlink\)' "$(cat e.txt)"
check "nothing recorded" test ! -e e2.csv
expect_status "bad address" 2 "$FLINCH" record --out e3.csv --seconds 1 --nvml-lib "$SIM" --metrics localhost:9 2>e.txt
expect_match "bad address message" "'localhost' is not an IPv4 address" "$(cat e.txt)"
expect_status "--live without a window" 2 "$FLINCH" record --out e4.csv --seconds 1 --nvml-lib "$SIM" --live 2>e.txt
expect_status "--window without NAME=" 2 "$FLINCH" record --out e5.csv --seconds 1 --nvml-lib "$SIM" --live --window ab 2>e.txt
expect_match "--window message" 'window ab: expected NAME=START:END' "$(cat e.txt)"
expect_status "--start without --end" 2 "$FLINCH" record --out e6.csv --seconds 1 --nvml-lib "$SIM" --live --start a 2>e.txt
expect_status "metrics file = trace" 2 "$FLINCH" record --out same --seconds 1 --nvml-lib "$SIM" --metrics-file same 2>e.txt

done_testing
