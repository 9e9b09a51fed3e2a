#!/bin/bash
# record_status.sh — issue 9, item 19: the live status line (stderr on a
# terminal) shows instantaneous power where the GPU has it, not the 1 s
# average of gpu_power_W; where only the average exists it says so.
. "$ROOT/tests/lib.sh"
if ! command -v script >/dev/null 2>&1; then
  skip "live status line" "no script(1) to give the recorder a terminal"; done_testing
fi
# demo.scn: 75 W until 1.0 s, then 612 W; at 1.5 s the 1 s average is ~340 W.
status() { # SIM OUT: the last status line
  FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" script -qec \
    "'$FLINCH' record --out '$2' --nvml-lib '$1' --no-rapl --seconds 1.5" /dev/null |
    tr '\r' '\n' | grep 'rows, GPU' | tail -n 1 | sed 's/\x1b\[K//'
}
line=$(status "$SIM" s.csv)
expect_match "status line: instantaneous power (612 W), as the last row's gpu_power_instant_W" \
  "^flinch record: [0-9.]+ s, [0-9]+ rows, GPU 0 power $(grep ',SAMPLE,' s.csv | tail -n 1 | cut -d, -f13) W; no marks FIFO$" "$line"
check "status line: the burst's 612 W, not the lagging average" [ "${line##* power }" = "612.000 W; no marks FIFO" ]
line=$(status "$BUILD/sim-legacy/libnvidia-ml.so.1" l.csv)
expect_match "status line without instantaneous power: the average, marked" \
  "^flinch record: [0-9.]+ s, [0-9]+ rows, GPU 0 power $(grep ',SAMPLE,' l.csv | tail -n 1 | cut -d, -f5) W \(1 s avg\); no marks FIFO$" "$line"
done_testing
