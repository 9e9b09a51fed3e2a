# metrics_formats.sh — what `flinch record --metrics` speaks: the text
# format or OpenMetrics as the scrape's Accept header asks (content types,
# `# EOF`, counter families without _total, UNIT lines, the same samples in
# both), IPv6 listen addresses ([::1]:PORT, [::]:PORT; SKIP without an IPv6
# loopback), and a real Prometheus scraping flinch over ::1, which asks for
# OpenMetrics: its metadata then carries the units only OpenMetrics sends,
# and its values equal `flinch analyze`.
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/prom_server.sh"

export FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn"
if ! command -v python3 >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1; then
  skip "metrics formats" "python3 and curl needed"; done_testing
fi
wait_for() { # FILE PATTERN: up to 5 s
  i=0; while ! grep -q -- "$2" "$1" 2>/dev/null && [ $i -lt 500 ]; do sleep 0.01; i=$((i+1)); done
}
# Prometheus 2.x's Accept header, as it sends it on every scrape.
PROM_ACCEPT='application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'

# --- negotiation, on 127.0.0.1 ---------------------------------------------
port=$(free_port)
"$FLINCH" record --out n.csv --seconds 3 --interval-ms 10 --nvml-lib "$SIM" --no-rapl \
  --window w=a:b --metrics "$port" -q 2>err.txt &
rec=$!
wait_for err.txt 'serving metrics'
sleep 0.5
ctype() { # ACCEPT: the Content-Type answered (body in body.txt)
  curl -s -m 5 -D hdr.txt -o body.txt ${1:+-H "Accept: $1"} "http://127.0.0.1:$port/metrics"
  sed -n 's/^Content-Type: \(.*\)\r$/\1/p' hdr.txt
}
text='text/plain; version=0.0.4; charset=utf-8'
om='application/openmetrics-text; version=1.0.0; charset=utf-8'
expect_eq "no Accept: text format" "$(ctype '')" "$text"
cp body.txt text.txt
expect_eq "Prometheus's Accept: OpenMetrics" "$(ctype "$PROM_ACCEPT")" "$om"
cp body.txt om.txt
expect_eq "text/plain preferred by q: text format" \
  "$(ctype 'text/plain;version=0.0.4;q=0.9, application/openmetrics-text;q=0.5')" "$text"
expect_eq "OpenMetrics with q=0: text format" "$(ctype 'application/openmetrics-text;q=0')" "$text"
expect_eq "*/* alone: text format" "$(ctype '*/*')" "$text"
expect_eq "openmetrics over a lower wildcard: OpenMetrics" \
  "$(ctype 'application/openmetrics-text; version=1.0.0; q=0.8, */*;q=0.2')" "$om"
wait $rec
expect_eq "recorder exits 0" "$?" 0
expect_eq "OpenMetrics ends with # EOF" "$(tail -n 1 om.txt)" "# EOF"
expect_eq "the text format has no # EOF" "$(grep -c '^# EOF' text.txt)" 0
check "OpenMetrics: counter family without _total" grep -qx '# TYPE flinch_samples counter' om.txt
check "OpenMetrics: its sample with _total" grep -q '^flinch_samples_total [0-9]' om.txt
check "OpenMetrics: UNIT of a counter" grep -qx '# UNIT flinch_gpu_energy_joules joules' om.txt
check "OpenMetrics: UNIT of a gauge" grep -qx '# UNIT flinch_gpu_power_watts watts' om.txt
check "OpenMetrics: UNIT of the histogram" grep -qx '# UNIT flinch_window_duration_seconds seconds' om.txt
check "OpenMetrics: build info as an info family" grep -qx '# TYPE flinch_build info' om.txt
# values with at most 10 significant digits (%.10g), not a double's 17
long_values() { grep -v '^#' "$1" | awk '{ v = $NF; sub(/[eE].*/, "", v); gsub(/[-+.]/, "", v);
  sub(/^0+/, "", v); if (length(v) > 10) print }'; }
expect_eq "text format: at most 10 significant digits" "$(long_values text.txt)" ""
expect_eq "OpenMetrics: at most 10 significant digits" "$(long_values om.txt)" ""
names() { grep -v '^#' "$1" | sed 's/[ {].*//' | sort -u; }
expect_eq "the same sample names in both formats" "$(names om.txt)" "$(names text.txt)"
if command -v promtool >/dev/null 2>&1; then
  check "promtool accepts the text format" promtool check metrics <text.txt
else
  skip "promtool accepts the text format" "promtool not installed (tests/setup-deps.sh)"
fi

# --- IPv6 --------------------------------------------------------------------
expect_status "[::1]9400 is refused" 2 "$FLINCH" record --out x.csv --nvml-lib "$SIM" --metrics '[::1]9400'
expect_status "[::1 is refused" 2 "$FLINCH" record --out x.csv --nvml-lib "$SIM" --metrics '[::1'
expect_status "::1:9400 without brackets is refused" 2 "$FLINCH" record --out x.csv --nvml-lib "$SIM" \
  --metrics '::1:9400'
expect_status "an IPv4 address in brackets is refused" 2 "$FLINCH" record --out x.csv \
  --nvml-lib "$SIM" --metrics '[127.0.0.1]:9400'
if ! python3 -c 'import socket; socket.socket(socket.AF_INET6).bind(("::1", 0))' 2>/dev/null; then
  skip "IPv6 listen addresses" "no IPv6 loopback on this machine"
  done_testing
fi
port6=$(free_port ::1)
"$FLINCH" record --out v6.csv --seconds 2 --interval-ms 10 --nvml-lib "$SIM" --no-rapl \
  --metrics "[::1]:$port6" -q 2>err6.txt &
rec=$!
wait_for err6.txt 'serving metrics'
expect_match "[::1]:PORT listens on IPv6 loopback" "serving metrics on http://\[::1\]:$port6/metrics" \
  "$(cat err6.txt)"
check "GET over ::1" curl -s -m 5 -g -o /dev/null -f "http://[::1]:$port6/metrics"
expect_eq "not on 127.0.0.1" "$(curl -s -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port6/metrics")" 000
wait $rec
portany=$(free_port ::)
"$FLINCH" record --out any.csv --seconds 2 --interval-ms 10 --nvml-lib "$SIM" --no-rapl \
  --metrics "[::]:$portany" -q 2>errany.txt &
rec=$!
wait_for errany.txt 'serving metrics'
expect_match "[::]:PORT listens on all addresses" "serving metrics on http://\[::\]:$portany/metrics" \
  "$(cat errany.txt)"
check "[::]: reached over ::1" curl -s -m 5 -g -o /dev/null -f "http://[::1]:$portany/metrics"
check "[::]: reached over 127.0.0.1 too" curl -s -m 5 -o /dev/null -f "http://127.0.0.1:$portany/metrics"
wait $rec

# --- Prometheus over ::1, in OpenMetrics -------------------------------------
if ! command -v prometheus >/dev/null 2>&1; then
  skip "prometheus over IPv6" "prometheus not installed (tests/setup-deps.sh installs it)"
  done_testing
fi
port6=$(free_port ::1)
prom_start "[::1]:$port6"
# Prometheus 2.x starts scraping a new target about 5 s after it starts.
"$FLINCH" record --out p.csv --seconds 8 --interval-ms 10 --nvml-lib "$SIM" --no-rapl \
  --marks-fifo "$T/fifo" --window req=rs:re --idle-w 75 --busy-w 612 \
  --metrics "[::1]:$port6" -q 2>errp.txt &
rec=$!
wait_for errp.txt 'serving metrics'
now=$("$HELPERS/simtool" now)
ms() { echo $((now + $1 * 1000000)); }
printf 'rs\t%s\nre\t%s\nrs\t%s\nre\t%s\n' "$(ms 300)" "$(ms 1024)" "$(ms 1500)" "$(ms 1800)" > fifo
wait $rec
expect_eq "recorder exits 0" "$?" 0
expect_eq "Prometheus scraped flinch over ::1 (up seen)" \
  "$(prom_q 'max_over_time(up{job="flinch",instance="[::1]:'"$port6"'"}[5m])')" 1
meta() { # METRIC FIELD: from Prometheus's metadata API
  curl -s -m 5 -G "http://127.0.0.1:$pport/api/v1/metadata" --data-urlencode "metric=$1" |
    python3 -c 'import json, sys
d = json.load(sys.stdin)["data"].get(sys.argv[1], [])
print(d[0][sys.argv[2]] if d else "")' "$1" "$2"
}
expect_eq "Prometheus read OpenMetrics: the unit of flinch_gpu_power_watts" \
  "$(meta flinch_gpu_power_watts unit)" watts
expect_eq "Prometheus read OpenMetrics: counter family flinch_samples" "$(meta flinch_samples type)" counter
"$FLINCH" analyze p.csv --start rs --end re --idle-w 75 --busy-w 612 --format csv >a.csv
expect_eq "window count in Prometheus = analyze's" \
  "$(prom_q 'last_over_time(flinch_window_duration_seconds_count{window="req"}[5m])')" \
  "$(($(wc -l <a.csv) - 1))"
got=$(prom_q 'last_over_time(flinch_window_duration_seconds_sum{window="req"}[5m])')
want=$(csv_col a.csv duration_s | awk '{s += $1} END {printf "%.6f", s}')
expect_eq "duration sum in Prometheus = analyze's" "$(printf '%.6f' "$got")" "$want"
got=$(prom_q 'last_over_time(flinch_window_energy_joules_total{window="req"}[5m])')
want=$(csv_col a.csv energy_J | awk '{s += $1} END {printf "%.3f", s}')
check "energy in Prometheus = analyze's ($got vs $want J)" near "$got" "$want" 0.0015
expect_eq "build info ingested from the info family" \
  "$(prom_q 'count(last_over_time(flinch_build_info[5m]))')" 1
done_testing
