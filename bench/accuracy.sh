#!/bin/sh
# bench/accuracy.sh BUILD — energy of the scripted 724 ms burst: exact,
# flinch analyze, and the original analyze_trace.py, side by side (issue 3).
#
# For each power mode of the simulated GPU (sim/scenarios/demo.scn:
# gpu_power_W is the trailing 1-second average, as on Ampere-and-newer
# GPUs; sim/scenarios/instant.scn: gpu_power_W is instantaneous) it records
# the scenario at --interval-ms 10 with FLINCH_SIM_EPOCH_NS pinned, and
# drops client-stamped marks (`LABEL<TAB>T_MONO_NS` lines into the FIFO)
# at exactly scenario times BENCH_T0_MS and BENCH_T1_MS (default 1000 and
# 1724 ms: the burst). The exact energy over that window comes from the
# simulator itself (`simtool energy`). Target: flinch within 1%.
cd "$(dirname "$0")/.." || exit 2
. bench/lib.sh
bench_init "$1"

t0_ms=${BENCH_T0_MS:-1000}
t1_ms=${BENCH_T1_MS:-1724}
interval=${BENCH_INTERVAL_MS:-10}
simtool="$HELPERS/simtool"
original=tests/fixtures/analyze_trace.py
[ -x "$simtool" ] || { echo "bench: $simtool not built" >&2; exit 2; }
have_python=0
command -v python3 >/dev/null 2>&1 && have_python=1

# sleep_until NS: sleeps until CLOCK_MONOTONIC reaches NS (no-op if past).
sleep_until() {
  now=$("$simtool" now)
  [ "$1" -gt "$now" ] && sleep "$(calc "($1 - $now) / 1e9" %.4f)"
}

# energy_line FILE: the number on the gpu_energy_J≈ line (the original's format).
energy_of() {
  sed -n 's/^gpu_energy_J≈\([-0-9.]*\).*/\1/p' "$1" | head -n 1
}

# source_of FILE: the energy source flinch analyze names for GPU 0's window.
source_of() {
  sed -n 's/.*gpu 0: energy [^(]*(\([^)]*\)).*/\1/p' "$1" | head -n 1
}

err_pct() {
  [ -n "$1" ] || { echo "n/a"; return; }
  calc "($1 - $2) / $2 * 100" %+.2f
}

# send_mark LABEL NS: one client-stamped line into the recorder's FIFO. The
# FIFO must exist (a plain redirection would create a regular file), and
# the open must not hang if the recorder has died.
send_mark() {
  [ -p "$fifo" ] || { echo "bench: $fifo is not a FIFO (recorder not running?)" >&2; return 1; }
  # shellcheck disable=SC2016 # $1..$3 are the inner shell's arguments
  timeout 5 sh -c 'printf "%s\t%s\n" "$1" "$2" >"$3"' mark "$1" "$2" "$fifo" ||
    echo "bench: could not write mark $1 into $fifo" >&2
}

# record_scenario SCN CSV: records from scenario time -100 ms to t1 + 400 ms
# with the two marks stamped at t0 and t1 exactly.
record_scenario() {
  fifo="$W/marks"
  rm -f "$fifo" "$2"
  epoch=$(( $("$simtool" now) + 300000000 ))
  secs=$(calc "($t1_ms + 700) / 1000" %.3f)
  FLINCH_SIM_SCENARIO="$1" FLINCH_SIM_EPOCH_NS=$epoch "$FLINCH" record --nvml-lib "$SIM" \
    --out "$2" --gpu 0 --interval-ms "$interval" --seconds "$secs" --no-rapl \
    --marks-fifo "$fifo" >"$W/rec.out" 2>"$W/rec.err" &
  rec_pid=$!
  start_ns=$((epoch + t0_ms * 1000000))
  end_ns=$((epoch + t1_ms * 1000000))
  # Each line is written a little after its moment, as a client would
  # write it after stamping; the stamp, not the arrival, is the mark's time.
  sleep_until $((start_ns + 5000000))
  send_mark infer_start "$start_ns"
  sleep_until $((end_ns + 5000000))
  send_mark first_token "$end_ns"
  wait "$rec_pid"
  rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "bench: flinch record failed (status $rc): $(head -c 300 "$W/rec.err")" >&2
    return 1
  fi
}

echo "### Energy of the ${t0_ms}..${t1_ms} ms window (the scripted burst), 10 ms sampling"
echo
echo "| power readout (scenario) | exact | flinch analyze (default) | error | source used | flinch --method seed | error | original analyze_trace.py | error | target (flinch within 1%) |"
echo "|---|---|---|---|---|---|---|---|---|---|"
failed=0
for mode in demo instant; do
  scn="sim/scenarios/$mode.scn"
  [ -f "$scn" ] || { echo "| $mode | scenario $scn missing |||||||||"; continue; }
  readout=$(sed -n 's/^power_readout[ \t]*\([a-z]*\).*/\1/p' "$scn")
  csv="$W/$mode.csv"
  record_scenario "$scn" "$csv" || { failed=1; echo "| ${readout:-average} ($mode.scn) | recording failed |||||||||"; continue; }
  exact=$(calc "$("$simtool" --lib "$SIM" energy "$scn" 0 "$t0_ms" "$t1_ms")" %.3f)
  "$FLINCH" analyze --csv "$csv" --start infer_start --end first_token >"$W/flinch.out" 2>"$W/flinch.err"
  e_flinch=$(energy_of "$W/flinch.out")
  source=$(source_of "$W/flinch.out")
  [ -n "$e_flinch" ] || failed=1
  [ -n "$e_flinch" ] || echo "bench: flinch analyze printed no energy: $(head -c 300 "$W/flinch.err")" >&2
  "$FLINCH" analyze --method seed --csv "$csv" --start infer_start --end first_token >"$W/seed.out" 2>/dev/null
  e_seed=$(energy_of "$W/seed.out")
  e_py=""
  if [ "$have_python" = 1 ]; then
    python3 "$original" --csv "$csv" --start infer_start --end first_token >"$W/py.out" 2>&1
    e_py=$(energy_of "$W/py.out")
  fi
  ok="-"
  [ -n "$e_flinch" ] && ok=$(verdict "($e_flinch - $exact) / $exact < 0.01 && ($exact - $e_flinch) / $exact < 0.01")
  echo "| ${readout:-average} ($mode.scn) | $exact J | ${e_flinch:-n/a} J | $(err_pct "$e_flinch" "$exact")% | ${source:-?} | ${e_seed:-n/a} J | $(err_pct "$e_seed" "$exact")% | ${e_py:-n/a} J | $(err_pct "$e_py" "$exact")% | $ok |"
  cp "$W/flinch.out" "$W/$mode.flinch.out"
  # The same trace cut to the original ten columns: no energy counter, no
  # instantaneous power; what flinch can do with an nvml_trace.py trace.
  cut -d, -f1-10 "$csv" >"$W/$mode.orig.csv"
  "$FLINCH" analyze --csv "$W/$mode.orig.csv" --start infer_start --end first_token >"$W/orig.out" 2>&1
  e_orig=$(energy_of "$W/orig.out")
  echo "| ${readout:-average} ($mode.scn) | $exact J | ${e_orig:-n/a} J | $(err_pct "$e_orig" "$exact")% | $(sed -n 's/^gpu_energy_J≈[-0-9.]* *# *//p' "$W/orig.out" | head -n 1 | tr '|' /) |" >>"$W/orig.rows"
done
echo
[ "$have_python" = 1 ] || { echo "python3 missing: the original analyzer was not run."; echo; }
echo "The same recordings cut to the original ten columns (as nvml_trace.py would have written them: no"
echo "energy counter, no instantaneous power), analyzed by flinch:"
echo
echo "| power readout (scenario) | exact | flinch analyze | error | what flinch says about it |"
echo "|---|---|---|---|---|"
[ -f "$W/orig.rows" ] && cat "$W/orig.rows"
echo
echo "flinch analyze's full default output, average-power run (demo.scn):"
echo
echo '```'
cat "$W/demo.flinch.out" 2>/dev/null
echo '```'
[ "$failed" = 0 ]
