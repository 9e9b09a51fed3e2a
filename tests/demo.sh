#!/bin/sh
# tests/demo.sh BUILD — `make demo`: records the simulated GPU's demo
# scenario (~5.5 s: a 724 ms pause where the GPU computes at 1.000 s, one
# where it idles at 3.000 s) with marks dropped through the FIFO, then prints
# the recording's summary, the analysis of both windows, for each window the
# scenario's scripted truth beside flinch's answer, an SVG plot and a
# Perfetto export.
#
# The marks are client-stamped (LABEL<TAB>CLOCK_MONOTONIC_NS) from the same
# epoch the simulator plays its scenario from, so the windows are exactly
# 724 ms whatever the machine's load.
set -u
cd "$(dirname "$0")/.." || exit 2
B=${1:-build}
FLINCH=$B/flinch
SIM=$B/sim/libnvidia-ml.so.1
SIMTOOL=$B/tests/simtool
OUT=${DEMO_OUT:-demo-out}
[ -x "$FLINCH" ] && [ -f "$SIM" ] || { echo "demo: build first (make BUILD=$B)" >&2; exit 2; }
[ -x "$SIMTOOL" ] || make --no-print-directory -s BUILD="$B" "$SIMTOOL" >/dev/null || exit 2

mkdir -p "$OUT"
rm -f "$OUT/trace.csv" "$OUT/marks"
now=$("$SIMTOOL" now) || exit 2
epoch=$((now + 300000000))          # scenario time 0, 300 ms from now
echo "demo: recording the simulated GPU for 5.7 s into $OUT/trace.csv"
FLINCH_SIM_EPOCH_NS=$epoch FLINCH_SIM_SCENARIO=sim/scenarios/demo.scn \
  "$FLINCH" record --out "$OUT/trace.csv" --nvml-lib "$SIM" --interval-ms 10 \
  --seconds 5.7 --marks-fifo "$OUT/marks" --quiet &
rec=$!
i=0
while ! grep -q ',MARK,"begin",' "$OUT/trace.csv" 2>/dev/null; do
  i=$((i + 1))
  if [ $i -gt 500 ] || ! kill -0 $rec 2>/dev/null; then
    echo "demo: the recorder did not start" >&2; wait $rec; exit 1
  fi
  sleep 0.01
done

# LABEL MS: a client-stamped mark at scenario time MS.
mark() {
  ns=$((epoch + $2 * 1000000))
  "$FLINCH" mark --fifo "$OUT/marks" --at-ns "$ns" "$1"
}
mark infer_start 1000 && mark first_token 1724 &&
mark infer_start 3000 && mark first_token 3724 || echo "demo: could not drop the marks" >&2
wait $rec
rc=$?
[ $rc -eq 0 ] || { echo "demo: flinch record exited with status $rc" >&2; exit 1; }

echo
echo "== recording summary"
awk -F, '
  NR == 1 { next }
  $3 == "SAMPLE" { s++ } $3 == "EVENT" { e++ }
  $3 == "MARK" && $4 == "\"begin\"" { t0 = $1 } $3 == "MARK" && $4 == "\"end\"" { t1 = $1 }
  $3 == "MARK" { m++; l = $4; gsub(/"/, "", l); lab = lab sprintf("    %-12s %8.3f s\n", l, ($1 - t0) / 1e9) }
  END {
    printf "  rows: %d (%d SAMPLE, %d MARK, %d EVENT)\n", NR - 1, s, m, e
    printf "  duration: %.3f s (begin to end)\n  marks (since begin):\n%s", (t1 - t0) / 1e9, lab
  }' "$OUT/trace.csv"

echo
# Nothing but the scripted GPU is part of the demo: the machine's own load
# (a parallel build, other tests) must not turn the idle pause into
# host-cpu, which flinch would rightly say of a saturated host when no
# process is traced. --cpu-busy-pct 101: the host never counts as busy.
A="--start infer_start --end first_token --cpu-busy-pct 101"
echo "== flinch analyze --csv $OUT/trace.csv $A --windows"
"$FLINCH" analyze --csv "$OUT/trace.csv" $A --windows || exit 1

# The scripted truth beside the answer: for each window, what the scenario
# file says the GPU did over it (power integrated exactly; compute while its
# utilization is 50% or more, else idle: nothing else runs, so waiting)
# next to flinch's class times, energy and verdict (--format csv; the cells
# before the quoted evidence are plain, compute_ms..waiting_ms follow it).
echo
echo "== scripted truth (sim/scenarios/demo.scn) beside flinch's answer"
"$FLINCH" analyze --csv "$OUT/trace.csv" $A --format csv 2>/dev/null |
awk -v epoch="$epoch" -v scn=sim/scenarios/demo.scn '
  function csv(line, f,   n, c, q, i, ch) {   # split a CSV line into f[1..n]
    n = 1; f[1] = ""; q = 0
    for (i = 1; i <= length(line); i++) {
      ch = substr(line, i, 1)
      if (q) { if (ch == "\"") { if (substr(line, i + 1, 1) == "\"") { f[n] = f[n] ch; i++ } else q = 0 } else f[n] = f[n] ch }
      else if (ch == "\"") q = 1
      else if (ch == ",") f[++n] = ""
      else f[n] = f[n] ch
    }
    return n
  }
  BEGIN {
    while ((getline l < scn) > 0) {
      if (l !~ /^at /) continue
      k = split(l, w, /[ \t]+/); t = w[2] + 0
      for (j = 3; j <= k; j++) if (split(w[j], kv, "=") == 2) val[t, kv[1]] = kv[2]
      times[++nt] = t
    }
    printf "  %-7s %-40s %s\n", "window", "scripted", "flinch"
  }
  NR == 1 { n = csv($0, h); for (i = 1; i <= n; i++) col[h[i]] = i; next }
  {
    csv($0, f)
    t0 = (f[col["t_start_ns"]] - epoch) / 1e6; t1 = (f[col["t_end_ns"]] - epoch) / 1e6
    e = 0; busy = 0; p = 0; u = 0
    for (i = 1; i <= nt; i++) {
      if ((times[i], "power") in val) p = val[times[i], "power"]
      if ((times[i], "util") in val) u = val[times[i], "util"]
      a = times[i]; b = i < nt ? times[i + 1] : 1e18
      lo = a > t0 ? a : t0; hi = b < t1 ? b : t1
      if (hi > lo) { e += p * (hi - lo) / 1000; if (u >= 50) busy += hi - lo }
    }
    truth = sprintf("compute %.0f ms, waiting %.0f ms, %.3f J", busy, t1 - t0 - busy, e)
    printf "  %-7s %-40s %s\n", f[col["window"]], truth,
      sprintf("compute %.0f ms, waiting %.0f ms, %.3f +-%.3f J, verdict=%s", f[col["compute_ms"]],
              f[col["waiting_ms"]] + f[col["host_cpu_ms"]], f[col["energy_J"]], f[col["uncertainty_J"]], f[col["verdict"]])
  }'

# The same trace as a picture and as a Perfetto timeline.
echo
"$FLINCH" plot "$OUT/trace.csv" -o "$OUT/trace.svg" && echo "== plot: $OUT/trace.svg" || exit 1
"$FLINCH" export --format perfetto "$OUT/trace.csv" -o "$OUT/trace.json" -q &&
  echo "== Perfetto/chrome://tracing JSON: $OUT/trace.json (open it in ui.perfetto.dev)" || exit 1
