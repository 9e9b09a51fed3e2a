# analyze_errors.sh — every bad input gives one line naming file, line and
# column, and exit status 2; a truncated last line is only a warning;
# windows that cannot be judged say why.
. "$ROOT/tests/lib.sh"
FX="$ROOT/tests/fixtures"
H='t_mono_ns,t_wall_ns,row_type,label,gpu_power_W,gpu_util_pct,gpu_mem_util_pct,gpu_sm_clock_MHz,gpu_temp_C,rapl_energy_uj'

# bad_case NAME FILE WANT_STDERR [extra args]
bad_case() {
  name=$1 file=$2 want=$3; shift 3
  "$FLINCH" analyze --csv "$file" --start infer_start --end first_token "$@" >out.txt 2>err.txt
  expect_eq "$name: exit 2" "$?" 2
  expect_eq "$name: message" "$(cat err.txt)" "$want"
  expect_eq "$name: nothing on stdout" "$(cat out.txt)" ""
}

printf 'a,b,c\n1,2,3\n' >notrace.csv
bad_case "not a trace" notrace.csv "flinch analyze: notrace.csv:1: not a flinch trace: no column t_mono_ns (header starts 'a')"
printf 't_mono_ns,label,gpu_power_W\n1,,5\n' >norowtype.csv
bad_case "missing row_type column" norowtype.csv "flinch analyze: norowtype.csv:1: not a flinch trace: no column row_type (header starts 't_mono_ns')"
printf '%s\n1000,1,SAMPLE,,61,0,,,,\n2000,2,SAMPLE,,abc,0,,,,\n' "$H" >nan.csv
bad_case "non-numeric cell" nan.csv "flinch analyze: nan.csv:3: column gpu_power_W: not a number: 'abc'"
printf '%s\n1000,1,SAMPLE,,61,0,,,,\n3000,2,SAMPLE,,61,0,,,,\n2000,3,SAMPLE,,61,0,,,,\n' "$H" >order.csv
bad_case "samples out of time order" order.csv "flinch analyze: order.csv:4: column t_mono_ns: sample out of time order (2000 < 3000 of the previous sample of GPU 0 at line 3)"
printf '%s\n1000,1,SAMPLE,,61,0,,,\n' "$H" >short.csv
bad_case "row with too few cells" short.csv "flinch analyze: short.csv:2: 9 cells where the header has 10"
bad_case "missing file" nonexistent.csv "flinch analyze: nonexistent.csv: cannot open: No such file or directory"
: >empty.csv
bad_case "empty file" empty.csv "flinch analyze: empty.csv: empty file, not a trace (no header line)"
bad_case "missing mark" "$FX/original_10col.csv" \
  "flinch analyze: no MARK 'nope' in $FX/original_10col.csv (labels seen: begin, infer_start, first_token, end)" --end nope
bad_case "end before start" "$FX/original_10col.csv" \
  "flinch analyze: no window in $FX/original_10col.csv: no 'begin' MARK at or after a 'first_token' MARK (the first 'first_token' is at line 13, the last 'begin' at line 2: end before start)" \
  --start first_token --end begin
bad_case "seed: missing mark, the original's text" "$FX/original_10col.csv" \
  "flinch analyze: Missing MARK(s). start=1250000000 end=None" --end nope --method seed

# A mark that arrives more than 4096 samples after its own time.
awk -v h="$H" 'BEGIN { print h; for (i = 0; i < 5000; i++) printf "%d,%d,SAMPLE,,61,0,,,,\n", 1000000 + i * 10000000, i
  printf "%d,0,MARK,infer_start,,,,,,\n", 1000000 + 10 * 10000000
  printf "%d,0,MARK,first_token,,,,,,\n", 1000000 + 4999 * 10000000 }' >late.csv
bad_case "mark older than the ring" late.csv "flinch analyze: late.csv:5002: column t_mono_ns: MARK at 101000000 ns is older than the 4096 samples kept per stream; it arrived too late after its own time"

# A killed recorder: the last line is cut short. Same numbers, one warning.
cp "$FX/original_10col.csv" cut.csv
printf '2100000000,1700000002100000000,SAMPLE,,100' >>cut.csv
"$FLINCH" analyze --csv cut.csv --start infer_start --end first_token >out.txt 2>err.txt
expect_eq "truncated last line: exit 0" "$?" 0
expect_eq "truncated last line: warning" "$(cat err.txt)" \
  "flinch analyze: warning: cut.csv:17: truncated last line ignored (5 of 10 cells, no newline)"
expect_eq "truncated last line: same report" "$(cat out.txt)" "$(cat "$FX/original_10col.expected")"

# Windows that cannot be judged: between two samples (power 60 -> 600 W
# linearly over [1.0, 1.1] s: 168 W at 1.02 s, 222 W at 1.03 s, 1.95 J), and
# past the end.
printf '%s\n1000000000,0,SAMPLE,,60,0,,,,\n1100000000,0,SAMPLE,,600,90,,,,\n1020000000,0,MARK,infer_start,,,,,,\n1030000000,0,MARK,first_token,,,,,,\n1200000000,0,SAMPLE,,60,0,,,,\n' "$H" >short_window.csv
out=$("$FLINCH" analyze --csv short_window.csv --start infer_start --end first_token 2>&1)
expect_match "window between two samples: energy interpolated" '^gpu_energy_J≈1\.950  #' "$out"
expect_match "window between two samples: inconclusive" 'verdict=inconclusive  fewer than two samples in the window' "$out"
printf '%s\n1000000000,0,SAMPLE,,60,0,,,,\n1100000000,0,SAMPLE,,60,0,,,,\n1050000000,0,MARK,infer_start,,,,,,\n3300000000,0,MARK,first_token,,,,,,\n' "$H" >past.csv
out=$("$FLINCH" analyze --csv past.csv --start infer_start --end first_token 2>&1)
expect_match "window past the last sample: n/a" '^gpu_energy_J≈\(n/a\)  # no power readings' "$out"
expect_match "window past the last sample: flagged" 'flags: incomplete' "$out"
expect_match "window past the last sample: inconclusive" 'verdict=inconclusive  the window runs past the last sample' "$out"

# Marks but no samples at all: said plainly, by both methods.
printf '%s\n1,0,MARK,infer_start,,,,,,\n5,0,MARK,first_token,,,,,,\n' "$H" >nosamples.csv
out=$("$FLINCH" analyze --csv nosamples.csv --start infer_start --end first_token)
expect_match "no samples: n/a" '^gpu_energy_J≈\(n/a\)  # no power readings for this window$' "$out"
expect_match "no samples: inconclusive" 'verdict=inconclusive  no power readings in the window' "$out"
out=$("$FLINCH" analyze --csv nosamples.csv --start infer_start --end first_token --method seed)
expect_eq "no samples: seed" "$out" "duration_s=0.000000
gpu_energy_J≈(n/a)  # not enough gpu_power_W samples in window"

# Usage errors.
"$FLINCH" analyze --csv x.csv --start a >out.txt 2>err.txt
expect_eq "no --end: exit 2" "$?" 2
expect_eq "no --end: message" "$(cat err.txt)" "flinch analyze: --csv, --start and --end are required (see --help)"
"$FLINCH" analyze --csv x.csv --start a --end b --format xml 2>err.txt
expect_eq "bad --format: exit 2" "$?" 2
"$FLINCH" analyze --csv x.csv --start a --end b --idle-w -5 2>err.txt
expect_eq "negative --idle-w: message" "$(cat err.txt)" "flinch analyze: --idle-w: not a non-negative number: '-5'"
out=$("$FLINCH" analyze --help)
for opt in --csv --start --end --method --windows --format --idle-window --idle-w --busy-w \
           --compute-frac --idle-frac --cpu-busy-pct --proc-busy-cores; do
  expect_match "--help lists $opt" -- "$opt" "$out"
done
done_testing
