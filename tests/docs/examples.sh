#!/bin/sh
# tests/docs/examples.sh BUILD [--check] — the example outputs shown in
# README.md and man/*, made by the program.
#
# A documented example output is a block right after a marker naming it:
#   README.md:  <!-- example: NAME -->   then a ``` fence
#   man/*:      .\" example: NAME         then .EX ... .EE
# For each NAME this script runs ex_NAME below (the commands the document
# shows, on the simulated NVML) and puts its output in the block: `make docs`
# runs it to rewrite the blocks; with --check it only compares, prints a diff
# of every block that differs and exits 1 (tests/e2e/docs.sh). A marker
# without an ex_ function is an error, so an example cannot silently go
# unchecked. Examples that need a real GPU get no marker; the document says
# so beside them.
#
# How the runs are made reproducible (what a reader's own run differs in):
#  - the simulator runs on its virtual clock (FLINCH_SIM_VIRTUAL_TIME=1):
#    sampling is exactly on schedule, scenario time 0 is the virtual clock's
#    1000 s, and the recording takes no real time;
#  - the marks the document drops with `flinch mark` while recording are
#    appended to the trace afterwards at their exact scenario times (a
#    reader's marks land a few ms later: the shell's sleeps are not exact);
#  - host CPU is read from an empty file (--proc-stat /dev/null) and RAPL is
#    off, so the machine's load never shows (a reader's run has a
#    `host: cpu busy` line);
#  - each example runs in a fresh directory holding the files the document
#    names; that directory's path is replaced by `.` in the output.
# The rest (energies, uncertainties, verdicts, line numbers) is exactly
# what the program prints.
set -u
cd "$(dirname "$0")/../.." || exit 2
ROOT=$(pwd)
B=${1:-build}
case $B in /*) ;; *) B=$ROOT/$B ;; esac
MODE=${2:-write}
FLINCH=$B/flinch
SIM=$B/sim/libnvidia-ml.so.1
[ -x "$FLINCH" ] && [ -f "$SIM" ] || { echo "examples: build first (make BUILD=$B)" >&2; exit 2; }
WORK=$(mktemp -d) || exit 2
trap 'rm -rf "$WORK"' EXIT INT TERM

VSTART=1000000000000   # the virtual clock's start, scenario time 0 (sim_nvml.c)

# vrecord SCENARIO OUT SECONDS: a recording on the virtual clock
vrecord() {
  FLINCH_SIM_VIRTUAL_TIME=1 FLINCH_SIM_SCENARIO=$1 "$FLINCH" record --nvml-lib "$SIM" \
    --out "$2" --seconds "$3" --no-rapl --proc-stat /dev/null --quiet 2>/dev/null
}
# vmark TRACE LABEL MS: the MARK a `flinch mark LABEL` at scenario time MS makes
vmark() {
  n=$(head -n 1 "$1" | awk -F, '{ print NF }')
  { printf '%s,,MARK,"%s"' $((VSTART + $3 * 1000000)) "$2"
    i=4; while [ "$i" -lt "$n" ]; do printf ','; i=$((i + 1)); done; echo; } >>"$1"
}

# --- the examples -----------------------------------------------------------

# README.md, "Try it without a GPU": a three-line scenario of one's own
ex_pause() {
  printf 'at 0    power=75  util=0\nat 1000 power=612 util=98 clock=1980\nat 1724 power=75  util=0  clock=345\n' >pause.scn
  vrecord pause.scn pause.csv 3
  vmark pause.csv infer_start 1000; vmark pause.csv first_token 1724
  "$FLINCH" analyze pause.csv --start infer_start --end first_token
}

# the demo scenario (sim/scenarios/demo.scn), its computing pause alone
ex_demo() {
  vrecord "$ROOT/sim/scenarios/demo.scn" trace.csv 5.5
  vmark trace.csv infer_start 1000; vmark trace.csv first_token 1724
  "$FLINCH" analyze --csv trace.csv --start infer_start --end first_token
}

# the demo scenario's both pauses, as `make demo` marks them, as a table
ex_demo_windows() {
  vrecord "$ROOT/sim/scenarios/demo.scn" trace.csv 5.5
  vmark trace.csv infer_start 1000; vmark trace.csv first_token 1724
  vmark trace.csv infer_start 3000; vmark trace.csv first_token 3724
  "$FLINCH" analyze --csv trace.csv --start infer_start --end first_token --windows
}

# flinch-record(1), LIVE ANSWERS: the marks are stamped lines a writer put in
# the FIFO before the recording began (the recorder reads them first and
# keeps their stamps), so the virtual-clock recording sees them in its feed
ex_live() {
  mkfifo -m 0600 marks
  timeout 20 sh -c 'printf "infer_start\t%s\nfirst_token\t%s\n" "$1" "$2" >marks' _ \
    $((VSTART + 1000000000)) $((VSTART + 1724000000)) &
  sleep 0.5   # the writer waits in open(2) before the recorder (which takes ms) starts
  FLINCH_SIM_VIRTUAL_TIME=1 FLINCH_SIM_SCENARIO="$ROOT/sim/scenarios/demo.scn" "$FLINCH" record --nvml-lib "$SIM" \
    --out trace.csv --seconds 3 --no-rapl --proc-stat /dev/null --quiet --marks-fifo marks \
    --live --window ttft=infer_start:first_token 2>/dev/null
  wait
}

# flinch-methods(7), WAITING ON WHAT: a fixture with a threads file; its
# first start mark left out, so that window 1 is the waiting one
ex_threads() {
  grep -v '^10500000000,.*,MARK,infer_start,' "$ROOT/tests/fixtures/flinch_windows.csv" >trace.csv
  cp "$ROOT/tests/fixtures/flinch_windows.threads" trace.csv.threads
  "$FLINCH" analyze trace.csv --start infer_start --end first_token | grep -E '^  threads |^    (waiting|host-cpu) '
}

# flinch-methods(7), "Sensors as they really are": the demo on the h100 preset
ex_sensors() {
  { grep -v "^#" "$ROOT/sim/scenarios/demo.scn"; echo "preset h100"; echo "sensor_seed 3"; } >h100.scn
  vrecord h100.scn trace.csv 5.5
  vmark trace.csv infer_start 1000; vmark trace.csv first_token 1724
  "$FLINCH" analyze --csv trace.csv --start infer_start --end first_token | grep '^sensors gpu 0:'
}

# flinch-export(1), "Several hosts": two fixture traces (run from the source tree)
ex_export_hosts() {
  cmd="flinch export -f perfetto tests/fixtures/plot_2gpu.csv nodeB=tests/fixtures/host_b.csv -o two.json"
  echo "$cmd"
  (cd "$ROOT" && "$FLINCH" export -f perfetto tests/fixtures/plot_2gpu.csv \
     nodeB=tests/fixtures/host_b.csv -o "$WORK/two.json" 2>&1 >/dev/null)
}

# --- splicing ---------------------------------------------------------------

# roff FILE: an output as the body of .EX ... .EE
roff() {
  sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^\\([.']\\)/\\\\\\&\\1/" \
      -e 's/≈/\\(~~/g' -e 's/×/\\(mu/g' -e 's/→/\\(->/g' -e 's/µ/\\(mc/g' -e 's/−/\\-/g' "$1"
}

docs="README.md $(ls man/*.[157])"
names=$(sed -n -e 's/^<!-- example: \([a-z0-9_-]*\) -->$/\1/p' -e 's/^\.\\" example: \([a-z0-9_-]*\)$/\1/p' $docs | sort -u)
status=0
for name in $names; do
  fn=ex_$(echo "$name" | tr - _)
  if ! type "$fn" >/dev/null 2>&1; then
    echo "examples: no $fn for the example '$name'" >&2; status=2; continue
  fi
  d=$WORK/run-$name; mkdir -p "$d"
  if ! (cd "$d" && "$fn") >"$WORK/$name.raw" 2>&1; then
    echo "examples: $fn failed:" >&2; sed 's/^/    /' "$WORK/$name.raw" >&2; status=2; continue
  fi
  sed -e "s|$d/||g" -e "s|$d|.|g" -e "s|$WORK/||g" "$WORK/$name.raw" >"$WORK/$name.out"
  roff "$WORK/$name.out" >"$WORK/$name.roff"
done
[ $status -eq 0 ] || exit $status

for f in $docs; do
  awk -v dir="$WORK" '
    function body(name, kind,   line, file) {
      file = dir "/" name "." kind
      while ((getline line < file) > 0) print line
      close(file)
    }
    skipping { if ($0 == closing) { print; skipping = 0 } ; next }
    pending != "" {
      print
      if ($0 ~ /^```/) { closing = "```"; body(pending, "out") }
      else if ($0 == ".EX") { closing = ".EE"; body(pending, "roff") }
      else { print FILENAME ": the example marker of " pending " is not followed by a block" > "/dev/stderr"; exit 3 }
      skipping = 1; pending = ""; next
    }
    /^<!-- example: [a-z0-9_-]+ -->$/ { pending = $3 }
    /^\.\\" example: [a-z0-9_-]+$/ { pending = $3 }
    { print }
  ' "$f" >"$WORK/new" || exit 2
  if ! cmp -s "$f" "$WORK/new"; then
    if [ "$MODE" = --check ]; then
      echo "examples: $f: documented output differs from the program's (run 'make docs'):"
      diff -u "$f" "$WORK/new" | sed -n '3,$p'
      status=1
    else
      cp "$WORK/new" "$f" && echo "examples: updated $f"
    fi
  fi
done
exit $status
