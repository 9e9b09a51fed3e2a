#!/bin/sh
# tests/demo_python.sh BUILD — `make demo-python`: a Python server annotated
# only with flinch.window (examples/python_server.py) runs under `flinch
# record` on the simulated GPU's demo scenario; then the analysis per range.
set -u
cd "$(dirname "$0")/.." || exit 2
B=${1:-build}
FLINCH=$B/flinch
SIM=$B/sim/libnvidia-ml.so.1
SIMTOOL=$B/tests/simtool
OUT=${DEMO_OUT:-demo-out}
command -v python3 >/dev/null 2>&1 || { echo "demo-python: needs python3" >&2; exit 2; }
[ -x "$FLINCH" ] && [ -f "$SIM" ] || { echo "demo-python: build first (make BUILD=$B)" >&2; exit 2; }
[ -x "$SIMTOOL" ] || make --no-print-directory -s BUILD="$B" "$SIMTOOL" >/dev/null || exit 2
mkdir -p "$OUT"
rm -f "$OUT/python.csv"
epoch=$(( $("$SIMTOOL" now) + 300000000 ))
echo "demo-python: flinch record -- python3 examples/python_server.py  (about 4 s)"
FLINCH_SIM_EPOCH_NS=$epoch FLINCH_SIM_SCENARIO=sim/scenarios/demo.scn PYTHONPATH="$PWD/python" \
  "$FLINCH" record --out "$OUT/python.csv" --nvml-lib "$SIM" --interval-ms 10 --no-rapl --quiet \
  -- python3 examples/python_server.py || exit 1
for r in request queue decode; do
  echo
  echo "== flinch analyze --csv $OUT/python.csv --range $r --windows"
  "$FLINCH" analyze --csv "$OUT/python.csv" --range $r --windows || exit 1
done
