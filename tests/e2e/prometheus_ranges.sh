# prometheus_ranges.sh — the per-range-name window metrics (`range` label)
# through a real Prometheus server (SKIP without it): ranges nested in
# themselves, overlapping across threads, names with spaces, quotes and a
# backslash, a name over the 63-byte label cap, then 1000 more distinct
# names. The values Prometheus scraped equal `flinch analyze --range NAME`
# on the same trace for every name with a series of its own; the 1000 names
# give the cap (32) plus one `range="other"` series, which counts every
# window the named series do not. promtool checks the exposition text.
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/prom_server.sh"

export FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn"
if ! command -v python3 >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1; then
  skip "prometheus ranges" "python3 and curl needed"; done_testing
fi

# --- without a server: the cap option and names as label values --------
expect_status "--metrics-ranges 1001 is refused" 2 "$FLINCH" record --out x.csv \
  --nvml-lib "$SIM" --metrics-ranges 1001 --metrics-file "$T/x.prom"
expect_status "--range with a control character is refused" 2 "$FLINCH" record --out x.csv \
  --nvml-lib "$SIM" --range "$(printf 'a\tb')" --metrics-file "$T/x.prom"
expect_status "--window name with a space at its end is refused" 2 "$FLINCH" record --out x.csv \
  --nvml-lib "$SIM" --window "ttft =a:b" --metrics-file "$T/x.prom"
"$FLINCH" record --out z.csv --seconds 2 --interval-ms 10 --nvml-lib "$SIM" --no-rapl \
  --marks-fifo "$T/zfifo" --metrics-ranges 0 --metrics-file "$T/z.prom" -q 2>/dev/null &
rec=$!
i=0; while ! grep -q ',MARK,"begin",' z.csv 2>/dev/null && [ $i -lt 500 ]; do sleep 0.01; i=$((i+1)); done
printf 'r\t%s\tstart=1.1\nr\t%s\tend=1.1\n' "$("$HELPERS/simtool" now)" \
  "$(( $("$HELPERS/simtool" now) + 100000000 ))" > zfifo
wait $rec
expect_eq "--metrics-ranges 0: no range series" "$(grep -c 'range=' z.prom)" 0

if ! command -v prometheus >/dev/null 2>&1; then
  skip "prometheus ranges round trip" "prometheus not installed (tests/setup-deps.sh installs it)"
  done_testing
fi
fport=$(free_port)
prom_start "127.0.0.1:$fport"

long=$(printf 'L%.0s' $(seq 80))
quoted='say "hi" \ now'
"$FLINCH" record --out p.csv --seconds 7 --interval-ms 10 --nvml-lib "$SIM" --no-rapl \
  --marks-fifo "$T/fifo" --range "decode step" --idle-w 75 --busy-w 612 \
  --metrics "$fport" --metrics-file "$T/p.prom" -q 2>err.txt &
rec=$!
i=0; while ! grep -q 'serving metrics' err.txt 2>/dev/null && [ $i -lt 500 ]; do sleep 0.01; i=$((i+1)); done
now=$("$HELPERS/simtool" now)
ms() { echo $((now + $1 * 1000000)); }
{
  # "decode step" nested in itself on one thread, twice
  for k in 0 1; do
    b=$((200 + k * 900))
    printf 'decode step\t%s\tstart=9.%s tid=1\n' "$(ms $b)" "$((k * 2 + 1))"
    printf 'decode step\t%s\tstart=9.%s tid=1\n' "$(ms $((b + 100)))" "$((k * 2 + 2))"
    printf 'decode step\t%s\tend=9.%s tid=1\n' "$(ms $((b + 350)))" "$((k * 2 + 2))"
    printf 'decode step\t%s\tend=9.%s tid=1\n' "$(ms $((b + 700)))" "$((k * 2 + 1))"
  done
  # prefill: two ranges overlapping across threads, ends from other threads
  printf 'prefill\t%s\tstart=8.1 tid=2\n' "$(ms 300)"
  printf 'prefill\t%s\tstart=8.2 tid=3\n' "$(ms 500)"
  printf 'prefill\t%s\tend=8.1 tid=4\n' "$(ms 1400)"
  printf 'prefill\t%s\tend=8.2 tid=5\n' "$(ms 1200)"
  printf '%s\t%s\tstart=7.1\n%s\t%s\tend=7.1\n' "$quoted" "$(ms 400)" "$quoted" "$(ms 900)"
  printf '%s\t%s\tstart=6.1\n%s\t%s\tend=6.1\n' "$long" "$(ms 600)" "$long" "$(ms 1900)"
  printf 'plain mark\t%s\n' "$(ms 650)"
} > fifo
sleep 0.5
# 1000 more names, 2 ms apart from 2.2 s, each 1 ms long
python3 -c 'import sys
now = int(sys.argv[1])
for k in range(1000):
    t = now + (2200 + 2 * k) * 1000000
    sys.stdout.write("n%04d\t%d\tstart=5.%d\nn%04d\t%d\tend=5.%d\n" % (k, t, k, k, t + 1000000, k))' "$now" > fifo
wait $rec
expect_eq "recorder exits 0" "$?" 0

check "promtool accepts the exposition with range series" promtool check metrics <p.prom
check "a quote and a backslash in a name are escaped" \
  grep -qF 'flinch_window_duration_seconds_count{range="say \"hi\" \\ now"}' p.prom
check "a name over 63 bytes is cut, ending in ..." \
  grep -qF "flinch_window_duration_seconds_count{range=\"$(printf 'L%.0s' $(seq 60))...\"}" p.prom

# Prometheus values vs analyze --range NAME, for each named range.
python3 - "$pport" "$FLINCH" p.csv "$long" "$quoted" >cmp.tsv <<'PY'
import csv, io, json, subprocess, sys, urllib.parse, urllib.request
port, flinch, trace, long, quoted = sys.argv[1:6]
def q(expr):
    url = "http://127.0.0.1:%s/api/v1/query?%s" % (port, urllib.parse.urlencode({"query": expr}))
    r = json.load(urllib.request.urlopen(url, timeout=5))["data"]["result"]
    return float(r[0]["value"][1]) if r else float("nan")
def sel(label, value, extra=""):
    return '{%s=%s%s}' % (label, json.dumps(value), extra)
def last(metric, s):
    return q("last_over_time(%s%s[5m])" % (metric, s))
out = []
def cmp(desc, got, want, tol):
    if got != got:                      # no such series: fails whatever it is compared to
        got, tol = "missing", -1
    out.append("%s\t%s\t%r\t%r" % (desc, got, want, tol))
names = [("decode step", "decode step"), ("prefill", "prefill"), (quoted, quoted),
         (long, long[:60] + "...")]
for name, value in names:
    rows = list(csv.DictReader(io.StringIO(subprocess.run(
        [flinch, "analyze", trace, "--range", name, "--idle-w", "75", "--busy-w", "612",
         "--format", "csv"], capture_output=True, text=True, check=True).stdout)))
    n = len(rows)
    for label in (["range", "window"] if name == "decode step" else ["range"]):
        s = sel(label, value)
        d = "%s=%s" % (label, value[:20])
        cmp(d + ": window count = analyze's %d" % n, last("flinch_window_duration_seconds_count", s), n, 0)
        cmp(d + ": duration sum = analyze's", last("flinch_window_duration_seconds_sum", s),
            sum(float(r["duration_s"]) for r in rows), 1e-6 * n + 1e-9)
        cmp(d + ": energy = analyze's (per-window mJ rounding)",
            last("flinch_window_energy_joules_total", s),
            sum(float(r["energy_J"]) for r in rows), 0.0005 * (n + 1))
        for cls in ("compute", "host_cpu", "waiting"):
            cmp(d + ": %s seconds = analyze's" % cls, last("flinch_window_%s_seconds_total" % cls, s),
                sum(float(r[cls + "_ms"] or 0) for r in rows) / 1000, 1e-5)
        for v in ("compute", "waiting", "host-cpu", "mixed", "inconclusive"):
            cmp(d + ": %s windows = analyze's" % v,
                last("flinch_windows_total", sel(label, value, ',verdict="%s"' % v)),
                sum(1 for r in rows if r["verdict"] == v), 0)
cmp("1000 more names: 32 named series + range=\"other\"",
    q('count(last_over_time(flinch_window_duration_seconds_count{range!=""}[5m]))'), 33, 0)
cmp("range=\"other\" counts the 972 names past the cap",
    last("flinch_window_duration_seconds_count", sel("range", "other")), 972, 0)
cmp("every range window counted once across the range series (1000 + 4 + 2 + 1 + 1)",
    q('sum(last_over_time(flinch_window_duration_seconds_count{range!=""}[5m]))'), 1008, 0)
cmp("the first names past the 4 above own series (n0000)",
    last("flinch_window_duration_seconds_count", sel("range", "n0000")), 1, 0)
cmp("a name past the cap has none (n0028)",
    q('count(last_over_time(flinch_window_duration_seconds_count{range="n0028"}[5m]))'
      ' or vector(0)'), 0, 0)
print("\n".join(out))
PY
expect_eq "comparisons made" "$(wc -l <cmp.tsv)" 60
while IFS="$(printf '\t')" read -r desc got want tol; do
  check "$desc ($got vs $want)" near "$got" "$want" "$tol"
done <cmp.tsv
kill $prom 2>/dev/null; wait $prom 2>/dev/null
done_testing
