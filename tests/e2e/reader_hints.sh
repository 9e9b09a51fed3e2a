# reader_hints.sh — issue 9, items 16-18: first-time use. plot and export
# say why no windows are drawn when the default labels are absent; with
# several windows the original's three lines are followed by window 1's
# answer line and a line saying it is window 1 of N; the --windows table
# shows each window's flags, and an inconclusive window's reason.
. "$ROOT/tests/lib.sh"
FX="$ROOT/tests/fixtures"
sed 's/infer_start/req_a/; s/first_token/req_b/' "$FX/original_10col.csv" >other.csv

"$FLINCH" plot other.csv -o o.svg 2>err.txt
expect_eq "plot without the default labels: exit 0" "$?" 0
expect_eq "plot without the default labels: says why, lists the labels" "$(cat err.txt)" \
  "flinch plot: warning: no windows drawn: other.csv has no 'infer_start' MARK (windows default to infer_start -> first_token; labels seen: begin, req_a, req_b, end); name the labels with --start and --end, or pass --no-windows"
"$FLINCH" plot other.csv -o o.svg --no-windows 2>err.txt
expect_eq "plot --no-windows: no warning" "$(cat err.txt)" ""
"$FLINCH" plot other.csv -o o.svg --start req_a --end req_b 2>err.txt
expect_eq "plot with the labels named: no warning" "$(cat err.txt)" ""
"$FLINCH" export -f perfetto other.csv -o o.json -q 2>err.txt
expect_eq "export without the default labels: exit 0" "$?" 0
expect_eq "export without the default labels: says why, lists the labels" "$(cat err.txt)" \
  "flinch export: warning: no windows exported: no trace has both 'infer_start' and 'first_token' MARKs (the default window labels; labels seen: begin, req_a, req_b, end); name the labels with --start and --end, or pass --no-windows"

# several windows: the three compatibility lines stay byte for byte, then one line
out=$("$FLINCH" analyze --csv "$FX/flinch_windows.csv" --start infer_start --end first_token)
expect_eq "several windows: the first three lines as the fixture's" "$(printf '%s\n' "$out" | head -3)" \
  "$(head -3 "$FX/flinch_windows.expected")"
expect_match "several windows: they start like the original's" '^duration_s=0\.500000$' "$(printf '%s\n' "$out" | head -1)"
expect_eq "several windows: line 4 answers for window 1, line 5 says it is 1 of N" "$(printf '%s\n' "$out" | sed -n 4,5p)" \
  "window 1 infer_start -> first_token  0.500 s  compute  (edges +-62 ms, confidence medium: edges +-62 ms are 12% of the 500 ms window)
(window 1 of 3; --windows gives every window its answer line)"
out=$("$FLINCH" analyze --csv "$FX/original_10col.csv" --start infer_start --end first_token)
check "one window: no such line" sh -c "! printf '%s\n' \"\$1\" | grep -q 'window 1 of'" _ "$out"

# the table's flags column, and an inconclusive window's reason
H='t_mono_ns,t_wall_ns,row_type,label,gpu_power_W,gpu_util_pct,gpu_mem_util_pct,gpu_sm_clock_MHz,gpu_temp_C,rapl_energy_uj'
printf '%s\n1000000000,0,SAMPLE,,60,0,,,,\n1100000000,0,SAMPLE,,600,90,,,,\n1020000000,0,MARK,infer_start,,,,,,\n1030000000,0,MARK,first_token,,,,,,\n1200000000,0,SAMPLE,,60,0,,,,\n' "$H" >short_window.csv
out=$("$FLINCH" analyze --csv short_window.csv --start infer_start --end first_token --windows)
expect_match "table header has flags" '^window .* verdict +confidence +flags +reason$' "$out"
expect_match "inconclusive window: flags and reason in its row" \
  '^     1 .* inconclusive +none +few-samples  fewer than two samples in the window$' "$out"
expect_eq "inconclusive window: its answer line" "$(printf '%s\n' "$out" | sed -n 4p)" \
  "window 1 infer_start -> first_token  0.010 s  inconclusive: fewer than two samples in the window  (edges +-1050 ms, confidence none)"
# two hosts, the second's wall clock 1000 s ahead: its GPU has no readings
# in the window; the headline says so instead of counting it silently
python3 - "$FX/host_b.csv" skew_b.csv <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
out = [lines[0]]
for l in lines[1:]:
    f = l.split(',')
    if f[1]:
        f[1] = str(int(f[1]) + 1000 * 10**9)
    out.append(','.join(f))
open(sys.argv[2], 'w').write('\n'.join(out) + '\n')
PY
out=$("$FLINCH" analyze "$FX/plot_2gpu.csv" nodeB=skew_b.csv --start plot_2gpu:infer_start --end plot_2gpu:first_token 2>&1)
expect_match "skewed host: the headline names the GPU left out and why" \
  '^gpu_energy_J≈450\.550  # 2 of 3 GPUs \(left out of the total, no power readings in the window: nodeB gpu 0; the window lies outside their trace: are the hosts.* clocks synchronised\?\), ' "$out"
done_testing
