#!/bin/bash
# plot.sh — `flinch plot`: the SVG's structure on a fixture with exact
# expectations (series, windows, marks, escaping, zoom), bounded size on a
# day-long 1M-row trace, usage errors, and a headless Chromium rendering
# checked for size and content (skipped when chromium is absent).
. "$ROOT/tests/lib.sh"
FIX=$ROOT/tests/fixtures/plot_2gpu.csv

expect_status "plot fixture" 0 "$FLINCH" plot "$FIX" -o f.svg --width 1000 --height 700
svg=$(cat f.svg)
if command -v xmllint >/dev/null 2>&1; then
  check "svg well-formed (xmllint)" xmllint --noout f.svg
else
  expect_match "svg root element" '^<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="700"' "$(sed -n 2p f.svg)"
fi
expect_eq "svg ends with </svg>" "$(tail -n 1 f.svg)" "</svg>"
expect_eq "no script" "$(grep -c '<script' f.svg)" 0
expect_eq "no href (self-contained)" "$(grep -ci 'href' f.svg)" 0
expect_eq "no external font" "$(grep -ci '@font-face\|url(' f.svg)" 0
expect_eq "generic sans-serif" "$(grep -c 'font-family:sans-serif' f.svg)" 1
expect_eq "one polyline per series" "$(grep -c '<polyline' f.svg)" 8
expect_eq "series names" "$(grep -o '<title>[^<]*</title></polyline>' f.svg | sed 's/<[^>]*>//g' | tr '\n' '|')" \
  "GPU 0 power, 1 s average (W)|GPU 0 power, instant (W)|GPU 1 power, 1 s average (W)|GPU 1 power, instant (W)|GPU 0 utilization (%)|GPU 1 utilization (%)|host CPU busy (%)|traced process CPU (cores)|"
expect_eq "average dashed, instant solid" "$(grep -c '<polyline class="s avg"' f.svg) $(grep -c '<polyline class="s"' f.svg)" "2 6"
# 31 samples per GPU, one bucket each: every sample kept
expect_eq "GPU 0 instant points" "$(grep 'GPU 0 power, instant' f.svg | grep -o '[" ][0-9.]*,[0-9.]*' | wc -l)" 31
expect_eq "window tooltip" "$(grep -o '<title>window[^<]*</title>' f.svg)" \
  "<title>window 1: infer_start→first_token: 0.700 s, 450.5 J, compute (100% compute (700 ms), edges +-66 ms; power 574 W = idle 75 W + 93% of the busy range (gpu 0); gpu util 94%; gpus: gpu 0 computes 700 ms, the others 0 ms at most and wait (a straggler); cpu 10%; process 0.50 cores)</title>"
# the breakdown as a band of segments inside the window: one compute segment
expect_eq "window segments band" "$(grep -o '<rect [^>]*class="seg" fill="[^"]*"><title>[^<]*</title>' f.svg | sed 's/.*fill="\([^"]*\)"><title>/\1 /; s/<.*//')" \
  "#2ca02c compute 0-700 ms (+-66 ms)"
expect_eq "window shaded green" "$(grep -c '<rect [^>]*class="win" fill="#2ca02c"><title>window' f.svg)" 1
expect_eq "mark lines (5 + legend)" "$(grep -c 'class="mark"' f.svg)" 6
expect_eq "mark labels" "$(grep -o '<text[^>]*class="mlabel"[^>]*>[^<]*' f.svg | sed 's/.*>//' | tr '\n' '|')" \
  'begin|infer_start|first_token|a&lt;b&amp;&quot;c&quot;|end|'
expect_eq "raw label never appears" "$(grep -c 'a<b' f.svg)" 0
expect_eq "legend" "$(grep -o '<text x="[0-9.]*" y="[0-9.]*">\(instant\|1 s average\|GPU [01]\|host CPU\|traced process\|MARK\|compute\)</text>' f.svg | sed 's/<[^>]*>//g' | tr '\n' '|')" \
  "GPU 0|GPU 1|instant|1 s average|host CPU|traced process|MARK|compute|"
expect_eq "panels" "$(grep -o 'class="ptitle"[^>]*>[^<]*' f.svg | sed 's/.*>//' | tr '\n' '|')" \
  "GPU power (W)|GPU util (%)|host CPU (%)|process (cores)|time since the trace&apos;s first row (s)|"
expect_eq "time ticks at 0.5 s" "$(grep -o '<text x="[0-9.]*" y="[0-9.]*" text-anchor="middle">[0-9.]*</text>' f.svg | sed 's/<[^>]*>//g' | tr '\n' ' ')" \
  "0.0 0.5 1.0 1.5 2.0 2.5 3.0 "

# windows: explicit labels, none, zoom
expect_status "plot --no-windows" 0 "$FLINCH" plot "$FIX" -o nw.svg --no-windows
expect_eq "no windows shaded" "$(grep -c 'class="win"' nw.svg)" 0
expect_status "plot --start/--end" 0 "$FLINCH" plot "$FIX" -o se.svg --start first_token --end 'a<b&"c"'
expect_match "explicit window tooltip" '<title>window 1: first_token→a&lt;b&amp;&quot;c&quot;: 0.300 s' "$(cat se.svg)"
expect_status "plot --from 1 --to 2" 0 "$FLINCH" plot "$FIX" -o z.svg --from 1 --to 2 --title 'zoom <1>'
expect_match "zoom title" '>zoom &lt;1&gt; — 1.000 s to 2.000 s, 2 GPUs<' "$(cat z.svg)"
expect_eq "zoom marks: first_token, a<b (+ legend)" "$(grep -c 'class="mark"' z.svg)" 3
expect_eq "zoom: GPU 0 instant has the 11 samples in [1, 2] s" \
  "$(grep 'GPU 0 power, instant' z.svg | grep -o '[" ][0-9.]*,[0-9.]*' | wc -l)" 11
expect_eq "zoom: every point inside the plot area" \
  "$(grep '<polyline' z.svg | grep -o '[" ][0-9.]*,' | tr -d '" ,' | awk '$1 < 70 || $1 > 1176' | wc -l)" 0
expect_eq "zoom ticks at 0.1 s" "$(grep -o 'text-anchor="middle">[0-9.]*</text>' z.svg | sed 's/<[^>]*>//g; s/.*>//' | head -3 | tr '\n' ' ')" "1.0 1.1 1.2 "

# usage and input errors
err=$("$FLINCH" plot "$FIX" 2>&1); st=$?
expect_eq "no -o" "$st: $err" "2: flinch plot: no output file: -o OUT.svg (see --help)"
err=$("$FLINCH" plot "$FIX" -o x.svg --from 2 --to 1 2>&1); st=$?
expect_eq "--from after --to" "$st: $err" "2: flinch plot: --from 2 must be before --to 1"
err=$("$FLINCH" plot "$FIX" -o x.svg --from abc 2>&1); st=$?
expect_eq "bad --from" "$st: $err" "2: flinch plot: --from: not a number of seconds in 0..4611686018: 'abc'"
err=$("$FLINCH" plot "$FIX" -o x.svg --start infer_start 2>&1); st=$?
expect_eq "--start alone" "$st: $err" "2: flinch plot: --start and --end go together (see --help)"
err=$("$FLINCH" plot "$FIX" -o x.svg --no-windows --start a --end b 2>&1); st=$?
expect_eq "--no-windows with labels" "$st: $err" "2: flinch plot: --no-windows contradicts --start/--end"
err=$("$FLINCH" plot "$FIX" -o x.svg --width 10 2>&1); st=$?
expect_eq "tiny --width" "$st: $err" "2: flinch plot: --width must be 400..20000 and --height 300..20000 pixels"
expect_status "unknown label" 2 "$FLINCH" plot "$FIX" -o x.svg --start nope --end end
err=$("$FLINCH" plot missing.csv -o x.svg 2>&1); st=$?
expect_match "missing file named" "^flinch plot: missing.csv" "$err"
printf 't_mono_ns,t_wall_ns,row_type,label,gpu_power_W\n1,2,SAMPLE,,75\n3,4,SAMPLE,,abc\n' > bad.csv
err=$("$FLINCH" plot bad.csv -o x.svg 2>&1); st=$?
expect_eq "bad cell: file, line, column" "$st: $err" "2: flinch plot: bad.csv:3: column gpu_power_W: not a number: 'abc'"
expect_eq "no SVG left on error" "$(ls x.svg 2>/dev/null)" ""
check "--help lists every flag" sh -c '"$1" plot --help | grep -q -- --no-windows && "$1" plot --help | grep -q -- --height' _ "$FLINCH"

# a day-long trace: 1M rows (200k under ASan), bounded points and size
rows=1000000; [ -n "${SANITIZED:-}" ] && rows=200000
"$HELPERS/gen_trace" --rows $rows --windows 2000 --interval-ms 86 --out big.csv
expect_status "plot a day-long trace" 0 "$FLINCH" plot big.csv -o big.svg --start infer_start --end first_token
size=$(wc -c < big.svg)
check "day-long svg under 3 MB ($size bytes)" test "$size" -lt 3000000
maxpts=$(awk '/<polyline/ { n = gsub(/[" ][0-9.]+,[0-9.]+/, "&"); if (n > m) m = n } END { print m }' big.svg)
check "at most 2 points per pixel column ($maxpts)" test "$maxpts" -le $((2 * (1200 - 94)))
check "spikes kept: 612 W peak reaches the top of its range" grep -q '>800</text>' big.svg

# rendering
if ! command -v chromium >/dev/null 2>&1; then
  skip "render in chromium" "chromium not installed"
else
  render() { timeout 60 chromium --headless --disable-gpu --no-sandbox --hide-scrollbars \
    --user-data-dir="$T/chrome" --screenshot="$T/$2" --window-size="$3" "file://$T/$1" >/dev/null 2>&1; }
  render f.svg f.png 1000,700
  expect_eq "png size and not blank" "$("$HELPERS/pngcheck" f.png | awk '{ print $1, $2, ($3 > 20) }')" "1000 700 1"
  printf '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300"><rect width="400" height="300" fill="#fff"/></svg>\n' > blank.svg
  render blank.svg blank.png 400,300
  expect_eq "control: a blank page has one colour" "$("$HELPERS/pngcheck" blank.png)" "400 300 1"
fi
done_testing
