#!/bin/sh
# tests/fuzz/run.sh FUZZ_DIR SECONDS — runs each libFuzzer target built in
# FUZZ_DIR (by `make fuzz`) for SECONDS, starting from its seed corpus in
# tests/fuzz/corpus/TARGET/ (read only; new inputs go to FUZZ_DIR/corpus/),
# and prints one line per target: executions, corpus size, crashes.
# Crashing inputs (crashes, timeouts, leaks, out-of-memory) are saved as
# FUZZ_DIR/crashes/TARGET-*; replay one
# with `FUZZ_DIR/fuzz_TARGET FILE`. Exit status 1 if any target crashed.
cd "$(dirname "$0")/../.." || exit 2
dir=${1:-build-fuzz}; secs=${2:-60}
total_crashes=0
for bin in "$dir"/fuzz_*; do
  [ -x "$bin" ] || continue
  t=${bin##*/fuzz_}
  mkdir -p "$dir/corpus/$t" "$dir/crashes" tests/fuzz/corpus/"$t"
  log="$dir/$t.log"
  "$bin" -max_total_time="$secs" -print_final_stats=1 -max_len=8192 -timeout=10 \
    -artifact_prefix="$dir/crashes/$t-" "$dir/corpus/$t" tests/fuzz/corpus/"$t" >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  crashes=$(grep -c 'Test unit written to' "$log")
  [ "$rc" -ne 0 ] && [ "$crashes" -eq 0 ] && crashes=1
  total_crashes=$((total_crashes + crashes))
  echo "fuzz $t: ${secs}s, ${execs:-?} executions, $(ls "$dir/corpus/$t" | wc -l) corpus files, $crashes crashes (log: $log)"
done
[ "$total_crashes" -eq 0 ]
