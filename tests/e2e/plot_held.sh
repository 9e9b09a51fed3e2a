# plot_held.sh — `flinch plot` of the values that hold over a span (issue
# 13, section 4): GPM's SM activity and the traced job's share of SM time
# are drawn in the utilization panel as steps over the span each value
# covers (the same spans export_held.sh checks in Perfetto), with their
# legend entries; a trace without them draws neither. The polylines are read
# back into "time:value" steps through the panel's geometry.
. "$ROOT/tests/lib.sh"

# steps SVG TITLE FROM TO: the polyline titled TITLE in the utilization
# panel (the second), as "t:v" where its value changes, plus its last point;
# t in seconds (the x axis runs FROM..TO), v in percent
steps() {
  awk -v title="$2" -v from="$3" -v to="$4" '
    /class="panel"/ && ++panel == 2 {
      match($0, /y="[0-9.]+"/); top = substr($0, RSTART + 3, RLENGTH - 4)
      match($0, / height="[0-9.]+"/); h = substr($0, RSTART + 9, RLENGTH - 10)
      match($0, / width="[0-9.]+"/); w = substr($0, RSTART + 8, RLENGTH - 9)
    }
    /<polyline/ && index($0, "<title>" title "</title>") { pts = $0 }
    END {
      match(pts, /points="[^"]*"/); n = split(substr(pts, RSTART + 8, RLENGTH - 9), p, " ")
      for (i = 1; i <= n; i++) {
        split(p[i], xy, ","); t = from + (xy[1] - 70) / w * (to - from); v = (top + h - xy[2]) / h * 100
        s = sprintf("%.0f", v)
        if (s != last || i == n) printf "%.2f:%s ", t, s
        last = s
      }
    }' "$1"
}

rec_virtual "$ROOT/tests/fixtures/gpm_square.scn" g.csv --seconds 2.5
expect_eq "GPM scenario records" "$?:$(cat err.txt)" "0:"
expect_status "plot GPM trace" 0 "$FLINCH" plot g.csv -o g.svg --no-windows
# spans of 200 ms end at 0.2, 0.4, ... 2.4 s: [1.0, 1.6] busy, [1.6, 1.8]
# half busy, idle after; utilization (98) is a sample line, GPM a step
expect_eq "SM active: a step over each span" "$(steps g.svg 'GPU 0 SM active, GPM (%)' 0 2.5)" \
  "0.00:0 1.00:90 1.60:45 1.80:0 2.40:0 "
expect_match "legend: SM active (GPM)" '>SM active \(GPM\)</text>' "$(cat g.svg)"
expect_eq "no per-process series without --pid or a command" "$(grep -c "traced job" g.svg)" 0
expect_status "plot GPM trace, 1.2 s to 2.0 s" 0 "$FLINCH" plot g.csv -o gr.svg --no-windows --from 1.2 --to 2.0
expect_eq "a span reaching into the range starts at its edge" \
  "$(steps gr.svg 'GPU 0 SM active, GPM (%)' 1.2 2.0)" "1.20:90 1.60:45 1.80:0 2.00:0 "
check "the SVG is well-formed XML (xmllint)" xmllint --noout g.svg

# The same on the simulator's h100 sensors (20 us a call): each GPM span
# is measured between the samples' own stamps, so consecutive spans
# overlap their rows by the calls' latency; a span takes over from the
# previous one's end, and the steps are the same.
FLINCH_SIM_PRESET=h100 rec_virtual "$ROOT/tests/fixtures/gpm_square.scn" h.csv --seconds 2.5
expect_eq "h100 sensors: records" "$?:$(cat err.txt)" "0:"
expect_status "plot GPM trace, h100 sensors" 0 "$FLINCH" plot h.csv -o h.svg --no-windows
expect_eq "h100 sensors: SM active, the same steps" "$(steps h.svg 'GPU 0 SM active, GPM (%)' 0 2.5)" \
  "0.00:0 1.00:90 1.60:45 1.80:0 2.40:0 "

printf 'gpm off\nat 0 util=50\n' > off.scn
rec_virtual off.scn off.csv --seconds 0.5
expect_status "plot a pre-Hopper trace" 0 "$FLINCH" plot off.csv -o off.svg --no-windows
expect_eq "pre-Hopper: no GPM series, no legend entry" "$(grep -c 'GPM' off.svg)" 0

# Per-process: the job 20% and the tenant 60% until 1.5 s, then 50% / 10%;
# readings every second, each over the samples since the previous one (the
# first: the second before it, drawn from the trace's start).
printf 'at 0 power=612 util=80 proc_child=20 proc_other=60\nat 1500 proc_child=50 proc_other=10\n' > p.scn
rec_virtual p.scn p.csv --seconds 3.5 -- sleep 5
expect_eq "per-process scenario records" "$?:$(grep -v 'thread states' err.txt)" "0:"
expect_status "plot per-process trace" 0 "$FLINCH" plot p.csv -o p.svg --no-windows
expect_eq "traced job's SM share: a step over each reading's span" \
  "$(steps p.svg "GPU 0 traced job&apos;s share of SM time (%)" 0 3.5)" "0.00:20 0.83:30 1.83:50 2.83:50 "
expect_match "legend: traced job's SM share" ">traced job&apos;s SM share</text>" "$(cat p.svg)"

done_testing
