# prometheus.sh — flinch's metrics through a real Prometheus server (Debian's
# prometheus package, installed by tests/setup-deps.sh; SKIP without it):
# a server on 127.0.0.1 scrapes `flinch record --metrics` every second while
# a scripted simulated workload sends marks; the values queried back from
# Prometheus's HTTP API equal `flinch analyze` on the same trace. Also checks
# docs/grafana-panel.json: valid JSON naming only metrics flinch exposes.
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/prom_server.sh"

export FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn"
if ! command -v python3 >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1; then
  skip "prometheus" "python3 and curl needed"; done_testing
fi

# --- the Grafana panel --------------------------------------------------
"$FLINCH" record --out g.csv --seconds 1 --interval-ms 10 --nvml-lib "$SIM" --no-rapl \
  --window ttft=a:b --metrics-file "$T/g.prom" -q 2>/dev/null
panel="$ROOT/docs/grafana-panel.json"
check "grafana panel is valid JSON with targets" python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
assert p["type"] == "timeseries" and len(p["targets"]) == 2
assert all(t["expr"] and t["refId"] for t in p["targets"])' "$panel"
missing=""
for m in $(grep -o 'flinch_[a-z_]*' "$panel" | sort -u); do
  base=${m%_count}; base=${base%_sum}; base=${base%_bucket}
  grep -q "^# TYPE $base " g.prom || grep -q "^# TYPE $m " g.prom || missing="$missing $m"
done
expect_eq "grafana panel names only metrics flinch exposes" "$missing" ""

if ! command -v prometheus >/dev/null 2>&1; then
  skip "prometheus server round trip" "prometheus not installed (tests/setup-deps.sh installs it)"
  done_testing
fi

fport=$(free_port)
prom_start "127.0.0.1:$fport"

# 7 s of recording; marks stamped by the "client" in the first 4 s, so the
# last windows are scraped a few times before the recording stops.
"$FLINCH" record --out p.csv --seconds 7 --interval-ms 10 --nvml-lib "$SIM" --no-rapl \
  --marks-fifo "$T/fifo" --window req=rs:re --window tok=ts:te --idle-w 75 --busy-w 612 \
  --metrics "$fport" -q 2>err.txt &
rec=$!
i=0; while ! grep -q 'serving metrics' err.txt 2>/dev/null && [ $i -lt 500 ]; do sleep 0.01; i=$((i+1)); done
now=$("$HELPERS/simtool" now)
ms() { echo $((now + $1 * 1000000)); }
printf 'rs\t%s\nts\t%s\nte\t%s\nre\t%s\n' "$(ms 200)" "$(ms 300)" "$(ms 500)" "$(ms 900)" > fifo
printf 'rs\t%s\nre\t%s\n' "$(ms 1000)" "$(ms 1724)" > fifo
sleep 2.5
printf 'rs\t%s\nts\t%s\nre\t%s\nte\t%s\n' "$(ms 2900)" "$(ms 3000)" "$(ms 3724)" "$(ms 3800)" > fifo
printf 'rs\t%s\nre\t%s\n' "$(ms 4500)" "$(ms 4800)" > fifo
wait $rec
expect_eq "recorder exits 0" "$?" 0

q() { prom_q "$1"; }
expect_eq "prometheus scraped flinch (up seen)" "$(q 'max_over_time(up{job="flinch"}[5m])')" 1
for wn in req:rs:re tok:ts:te; do
  w=${wn%%:*}; lbl=${wn#*:}; st=${lbl%%:*}; en=${lbl#*:}
  "$FLINCH" analyze p.csv --start "$st" --end "$en" --idle-w 75 --busy-w 612 --format csv >a.csv
  n=$(($(wc -l <a.csv) - 1))
  expect_eq "$w: window count in Prometheus = analyze's ($n)" \
    "$(q "last_over_time(flinch_window_duration_seconds_count{window=\"$w\"}[5m])")" "$n"
  got=$(q "last_over_time(flinch_window_duration_seconds_sum{window=\"$w\"}[5m])")
  want=$(csv_col a.csv duration_s | awk '{s += $1} END {printf "%.6f", s}')
  expect_eq "$w: duration sum in Prometheus = analyze's" "$(printf '%.6f' "$got")" "$want"
  got=$(q "last_over_time(flinch_window_energy_joules_total{window=\"$w\"}[5m])")
  want=$(csv_col a.csv energy_J | awk '{s += $1} END {printf "%.3f", s}')
  check "$w: energy in Prometheus = analyze's ($got vs $want J, per-window mJ rounding)" \
    near "$got" "$want" $(awk -v n="$n" 'BEGIN { print 0.0005 * (n + 1) + 1e-9 }')
  for cls in compute host_cpu waiting; do
    got=$(q "last_over_time(flinch_window_${cls}_seconds_total{window=\"$w\"}[5m])")
    want=$(python3 -c 'import csv, sys
print("%.6f" % (sum(float(r[sys.argv[2] + "_ms"] or 0) for r in csv.DictReader(open(sys.argv[1]))) / 1000))' a.csv "$cls")
    check "$w: $cls seconds in Prometheus = analyze's breakdown ($got vs $want s, per-window us rounding)" \
      near "$got" "$want" 0.00001
  done
  for v in compute waiting host-cpu mixed inconclusive; do
    want=$(awk -F, -v v="$v" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "verdict") c = i; next } $c == v { k++ } END { print k + 0 }' a.csv)
    expect_eq "$w: $v windows in Prometheus = analyze's ($want)" \
      "$(q "last_over_time(flinch_windows_total{window=\"$w\",verdict=\"$v\"}[5m])")" "$want"
  done
done
expect_eq "marks received in Prometheus = FIFO marks in the trace" \
  "$(q 'last_over_time(flinch_marks_received_total[5m])')" \
  "$(python3 -c 'import csv, sys
print(sum(1 for r in csv.DictReader(open(sys.argv[1])) if r["row_type"] == "MARK" and r["arrival_mono_ns"]))' p.csv)"
e=$(q 'last_over_time(flinch_gpu_energy_joules_total{gpu="0",uuid="GPU-5151a000-0000-4000-8000-000000000000"}[5m])')
mj=$(awk -v e="$e" 'BEGIN { printf "%.0f", e * 1000 }')
check "GPU energy counter in Prometheus is a gpu_energy_mJ of the trace ($mj mJ)" grep -q ",$mj," p.csv
# The last scrape's snapshot: its sample count says how far into the trace it
# was; the skipped ticks it reports are the tick gaps among those samples.
n=$(q 'last_over_time(flinch_samples_total[5m])')
skipped=$(python3 -c 'import csv, sys
n, k, s, p = int(float(sys.argv[2])), 0, 0, None
for r in csv.DictReader(open(sys.argv[1])):
    if r["row_type"] != "SAMPLE" or k >= n: continue
    k += 1; t = int(r["tick"])
    if p is not None and t != p + 1: s += t - p - 1
    p = t
print(s)' p.csv "$n")
expect_eq "skipped ticks in Prometheus = the tick gaps of the first $n samples ($skipped)" \
  "$(q 'last_over_time(flinch_ticks_skipped_total[5m])')" "$skipped"
# flinch-record(1), FOR THE FLEET: 6 + 5 per GPU + 1 with windows + 28 per window series, and the
# simulated GPU's GPM SM activity (no traced job: no per-process split).
expect_eq "series per host: 6 + (5 + 1 GPM) x 1 GPU + 1 + 28 x 2 windows" \
  "$(q 'count(last_over_time({__name__=~"flinch_.+",job="flinch"}[5m]))')" 69
kill $prom 2>/dev/null; wait $prom 2>/dev/null
done_testing
