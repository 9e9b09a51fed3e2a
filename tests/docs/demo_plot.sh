#!/bin/sh
# tests/docs/demo_plot.sh BUILD — `make docs`: docs/demo-plot.png, the
# picture at the top of README.md: `flinch plot` of the demo scenario's two
# pauses (recorded as tests/docs/examples.sh records them: virtual clock,
# marks at 1000, 1724, 3000 and 3724 ms), rendered by headless Chromium at
# 1200 x 720, the SVG's own size (tests/setup-deps.sh installs chromium).
set -u
cd "$(dirname "$0")/../.." || exit 2
ROOT=$(pwd)
B=${1:-build}
case $B in /*) ;; *) B=$ROOT/$B ;; esac
FLINCH=$B/flinch
SIM=$B/sim/libnvidia-ml.so.1
command -v chromium >/dev/null 2>&1 ||
  { echo "demo_plot: chromium is needed to render docs/demo-plot.png (tests/setup-deps.sh installs it as root)" >&2; exit 1; }
WORK=$(mktemp -d) || exit 2
trap 'rm -rf "$WORK"' EXIT INT TERM
cd "$WORK" || exit 2
FLINCH_SIM_VIRTUAL_TIME=1 FLINCH_SIM_SCENARIO="$ROOT/sim/scenarios/demo.scn" "$FLINCH" record \
  --nvml-lib "$SIM" --out trace.csv --seconds 5.5 --no-rapl --proc-stat /dev/null --quiet 2>/dev/null || exit 1
n=$(head -n 1 trace.csv | awk -F, '{ print NF }')
for m in infer_start:1000 first_token:1724 infer_start:3000 first_token:3724; do
  { printf '%s,,MARK,"%s"' $((1000000000000 + ${m#*:} * 1000000)) "${m%:*}"
    i=4; while [ "$i" -lt "$n" ]; do printf ','; i=$((i + 1)); done; echo; } >>trace.csv
done
"$FLINCH" plot trace.csv -o demo.svg --title "make demo: a 724 ms pause computing, one waiting (simulated H200)" || exit 1
timeout 120 chromium --headless --disable-gpu --no-sandbox --hide-scrollbars --user-data-dir="$WORK/chrome" \
  --screenshot="$WORK/demo.png" --window-size=1200,720 "file://$WORK/demo.svg" >/dev/null 2>&1
[ -s demo.png ] || { echo "demo_plot: chromium rendered nothing" >&2; exit 1; }
cp demo.png "$ROOT/docs/demo-plot.png" && echo "demo_plot: updated docs/demo-plot.png"
