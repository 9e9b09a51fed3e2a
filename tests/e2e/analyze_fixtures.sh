# analyze_fixtures.sh — flinch analyze on hand-made traces whose numbers
# were computed by hand (see the comments): exact output text, every
# format, the seed method, and the original analyze_trace.py when python3
# is there.
. "$ROOT/tests/lib.sh"
FX="$ROOT/tests/fixtures"

# original_10col.csv: the original tracer's ten columns (CRLF, as Python's
# csv module writes). Samples every 100 ms; gpu_power_W 100 W, 300 W from
# 1.4 s to 1.7 s; marks at 1.25 s and 1.75 s, the end mark written after a
# later sample. Whole trace (seed): 30 + 20 + 90 + 20 + 20 = 180 J.
# Piecewise-linear integral over exactly [1.25, 1.75]:
# 5 + 20 + 90 + 12.5 = 127.5 J; util 38.75 %s / 0.5 s = 77.5 %;
# raw RAPL 10 W x 0.5 s = 5 J. The original (seed) integrates only the 5
# samples inside: 20 + 30 + 30 + 30 = 110 J, util (0+100+100+100)/4 = 75.
out=$("$FLINCH" analyze --csv "$FX/original_10col.csv" --start infer_start --end first_token)
expect_eq "original trace: exact text report" "$out" "$(cat "$FX/original_10col.expected")"
expect_match "original trace: 127.5 J" '^gpu_energy_J≈127\.500  # trapezoid over gpu_power_W' "$out"
seed=$("$FLINCH" analyze --csv "$FX/original_10col.csv" --start infer_start --end first_token --method seed)
expect_eq "seed method: the original's arithmetic" "$seed" "duration_s=0.500000
gpu_energy_J≈110.000  # trapezoid over 5 samples
avg_gpu_util_pct≈75.00"
out=$("$FLINCH" analyze "$FX/original_10col.csv" --start begin --end end --method seed)
expect_eq "seed method: whole trace" "$out" "duration_s=1.020000
gpu_energy_J≈180.000  # trapezoid over 11 samples
avg_gpu_util_pct≈40.00"

# flinch_windows.csv: flinch's columns, samples every 100 ms from 10.0 s;
# instant power 660 W for samples 5..10, else 60 W; a continuous energy
# counter; windows [10.5, 11.0] (compute: 330 J, util 100 %, sw power cap
# in 2 of 6 samples), [11.5, 12.0] (waiting: 30 J, cpu 3 %) and
# [12.2, 12.7] (host-cpu: 30 J, the process used 0.5 s of CPU = 1 core,
# cpu 30 %); RAPL package 20 W = 10 J each; one end before any start, one
# start never ended. Levels: p5 60 W, p95 660 W.
out=$("$FLINCH" analyze --csv "$FX/flinch_windows.csv" --start infer_start --end first_token)
expect_eq "flinch trace: exact text report" "$out" "$(cat "$FX/flinch_windows.expected")"
out=$("$FLINCH" analyze --csv "$FX/flinch_windows.csv" --start infer_start --end first_token --windows)
expect_eq "flinch trace: --windows table" "$out" "$(cat "$FX/flinch_windows.table.expected")"
expect_match "table: waiting window" '^     2      1\.500     0\.500000      30\.000 .* waiting +medium +none +power 60 W = idle 60 W \+ 0% of the busy range$' "$out"
expect_match "table: host-cpu window" '^     3 .* 30\.0       6    100\.0        0\.0      500\.0        0\.0 host-cpu +medium +none +power 60 W' "$out"
expect_match "table: segments line" '^       segments: host-cpu 0-500 ms \(edges \+-62\.0 ms\)$' "$out"
out=$("$FLINCH" analyze --csv "$FX/flinch_windows.csv" --start infer_start --end first_token --format csv)
expect_eq "flinch trace: --format csv" "$out" "$(cat "$FX/flinch_windows.csv.expected")"
"$FLINCH" analyze --csv "$FX/flinch_windows.csv" --start infer_start --end first_token --format json >w.json
if command -v python3 >/dev/null 2>&1; then
  got=$(python3 -c '
import json, sys
d = json.load(open("w.json"))
w = d["windows"]
print(len(w), [x["verdict"] for x in w], [x["energy_J"] for x in w], w[2]["proc_cores"],
      w[0]["gpus"][0]["clock_event_reasons"], d["summary"]["unmatched_starts"], d["summary"]["verdict"])')
  expect_eq "json: windows, verdicts, energies" "$got" \
    "3 ['compute', 'waiting', 'host-cpu'] [330.0, 30.0, 30.0] 1.0 {'0x4': 2} 1 mixed"
else
  skip "json: windows, verdicts, energies" "no python3"
fi

# Overridden levels and thresholds change the verdict.
out=$("$FLINCH" analyze --csv "$FX/flinch_windows.csv" --start infer_start --end first_token --windows --proc-busy-cores 2)
expect_match "--proc-busy-cores 2: window 3 is waiting" '^     3 .* waiting +medium +none ' "$out"
expect_match "--proc-busy-cores 2: window 3's answer line" '^window 3 infer_start -> first_token  0\.500 s  waiting  \(' "$out"
# 60 W at 30 % of a 30..130 W range is no opinion by itself; utilization
# 0 % and the GpuIdle reason still say idle: window 2 stays waiting.
out=$("$FLINCH" analyze --csv "$FX/flinch_windows.csv" --start infer_start --end first_token --idle-w 30 --busy-w 130 --windows)
expect_match "--idle-w/--busy-w: window 2 at 30 % stays waiting" '^     2 .* waiting +medium +none +power 60 W = idle 30 W \+ 30% of the busy range$' "$out"
expect_match "--idle-w/--busy-w: levels line" '^levels gpu 0: idle 30\.0 W, busy 130\.0 W \(--idle-w\)$' "$out"
out=$("$FLINCH" analyze --csv "$FX/flinch_windows.csv" --start infer_start --end first_token --idle-window begin first_token)
expect_match "--idle-window: idle level from its mean power" '^levels gpu 0: idle 60\.0 W, busy 660\.0 W \(--idle-window\)$' "$out"

# The traced process gone (proc_state X) from sample 23 on: window 3 says so.
sed 's/,R,\([0-9]*\)$/,X,\1/' "$FX/flinch_windows.csv" >exited.csv
out=$("$FLINCH" analyze --csv exited.csv --start infer_start --end first_token --format csv | cut -d, -f1,19-)
expect_match "process exit noted in window 3" '^3,host-cpu,.*; the traced process had exited during the window",' "$out"
expect_match "no note in window 2" '^2,waiting,.*process 0\.00 cores",' "$out"

# The original analyze_trace.py, verbatim from the kit, on the same files.
if command -v python3 >/dev/null 2>&1; then
  for f in original_10col.csv flinch_windows.csv; do
    for pair in "infer_start first_token" "begin end"; do
      set -- $pair
      want=$(python3 "$FX/analyze_trace.py" --csv "$FX/$f" --start "$1" --end "$2")
      got=$("$FLINCH" analyze --csv "$FX/$f" --start "$1" --end "$2" --method seed)
      expect_eq "seed equals analyze_trace.py on $f $1..$2" "$got" "$want"
    done
  done
else
  skip "seed equals analyze_trace.py" "no python3"
fi
done_testing
