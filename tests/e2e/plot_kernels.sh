#!/bin/bash
# plot_kernels.sh — `flinch plot`'s kernel lanes (TRACE.kernels, flinch
# record --cuda): one lane per CUDA device with kernels in the range, busy
# runs in compute's colour, collectives over them, gaps of a pixel or more
# drawn and shorter ones merged, a lone 10 us kernel one pixel wide, each
# with its tooltip; a legend; a device beyond the plot's GPUs by its
# ordinal. The fixture (5.0 to 8.0 s) with a hand-written kernels file, drawn
# over 0-3 s on 1000 px (3 ms a pixel). A million kernel pieces stay within
# a pixel's worth of rectangles; without the kernels file the plot is byte
# for byte what it was before kernel lanes existed.
. "$ROOT/tests/lib.sh"
cp "$ROOT/tests/fixtures/plot_2gpu.csv" k.csv
{ echo "flinch-kernels 1"
  echo "S pid=7 cupti=130000 clock=monotonic flush_ms=100 lib=/x.so"
  echo "N pid=7 id=1 sgemm_kernel"
  # device 0: 0.300-0.340 and 0.360-0.400 s (a 20 ms gap: two runs), a
  # collective 0.360-0.380 s; 1.000-1.010 and 1.012-1.020 s (a 2 ms gap,
  # under a pixel: one run); a lone 10 us kernel at 2 s; one past the range
  echo "B pid=7 gpu=0 start=5300000000 end=5400000000 kernels=3 top=1:80000000 other=0 gaps=40000000:20000000"
  echo "C pid=7 gpu=0 start=5360000000 end=5380000000 kernels=1"
  echo "B pid=7 gpu=0 start=6000000000 end=6010000000 kernels=1 top=1:10000000 other=0"
  echo "B pid=7 gpu=0 start=6012000000 end=6020000000 kernels=1 top=1:8000000 other=0"
  echo "B pid=7 gpu=0 start=7000000000 end=7000010000 kernels=1 top=1:10000 other=0"
  echo "B pid=7 gpu=0 start=9000000000 end=9100000000 kernels=1 top=1:100000000 other=0"
  echo "X pid=7 gpu=0 start=5200000000 end=5250000000 copies=1 bytes=100"
  # device 1: 0.500-0.800 s; device 5 (no such GPU in the trace): 1.5-1.6 s;
  # device 7 only outside the range: no lane
  echo "B pid=7 gpu=1 start=5500000000 end=5800000000 kernels=9 top=1:300000000 other=0"
  echo "B pid=7 gpu=5 start=6500000000 end=6600000000 kernels=1 top=1:100000000 other=0"
  echo "B pid=7 gpu=7 start=1000000000 end=2000000000 kernels=1 top=1:1000000000 other=0"
  echo "D pid=7 kernels=18 copies=1 dropped=0 zero_stamps=0 pool_empty=0 lines_lost=0"; } >k.csv.kernels

expect_status "plot with kernels" 0 "$FLINCH" plot k.csv -o k.svg --width 1094 --from 0 --to 3 --title t --no-windows
if command -v xmllint >/dev/null 2>&1; then
  check "svg well-formed (xmllint)" xmllint --noout k.svg
fi
expect_eq "the lanes' title and labels" \
  "$(grep -o '<text[^>]*y="6[5-9][0-9].0"[^>]*>\(traced GPU kernels\|GPU [0-9]\|CUDA [0-9]\)</text>' k.svg | tr '\n' '|')" \
  '<text x="70.0" y="653.0" class="ptitle">traced GPU kernels</text>|<text x="64.0" y="668.0" text-anchor="end">GPU 0</text>|<text x="64.0" y="682.0" text-anchor="end">GPU 1</text>|<text x="64.0" y="696.0" text-anchor="end">CUDA 5</text>|'
expect_eq "the lanes' rectangles, in order" \
  "$(sed -n '/<g class="klanes">/,/<\/g>/p' k.svg | grep -o '<rect[^>]*><title>[^<]*' | sed 's/<title>/ | /')" \
  '<rect x="170.0" y="659.0" width="13.3" height="12.0" fill="#2ca02c"> | GPU 0 (CUDA device 0) kernels 0.300-0.340 s: 40.000 ms busy (100% of the span)
<rect x="190.0" y="659.0" width="13.3" height="12.0" fill="#2ca02c"> | GPU 0 (CUDA device 0) kernels 0.360-0.400 s: 40.000 ms busy (100% of the span), collective 20.000 ms
<rect x="403.3" y="659.0" width="6.7" height="12.0" fill="#2ca02c"> | GPU 0 (CUDA device 0) kernels 1.000-1.020 s: 18.000 ms busy (90% of the span)
<rect x="736.7" y="659.0" width="1.0" height="12.0" fill="#2ca02c"> | GPU 0 (CUDA device 0) kernels 2.000-2.000 s: 0.010 ms busy (100% of the span)
<rect x="190.0" y="659.0" width="6.7" height="12.0" fill="#e6c700"> | GPU 0 (CUDA device 0) collective (NCCL) 0.360-0.380 s: 20.000 ms
<rect x="236.7" y="673.0" width="100.0" height="12.0" fill="#2ca02c"> | GPU 1 (CUDA device 1) kernels 0.500-0.800 s: 300.000 ms busy (100% of the span)
<rect x="570.0" y="687.0" width="33.3" height="12.0" fill="#2ca02c"> | CUDA device 5 kernels 1.500-1.600 s: 100.000 ms busy (100% of the span)'
expect_eq "the legend" \
  "$(grep -o '<rect x="[0-9.]*" y="705.0"[^>]*>\|<text x="[0-9.]*" y="715.0">[^<]*' k.svg | tr '\n' '|')" \
  '<rect x="70.0" y="705.0" width="14.0" height="12.0" fill="#2ca02c"/>|<text x="88.0" y="715.0">kernels|<rect x="145.4" y="705.0" width="14.0" height="12.0" fill="#e6c700"/>|<text x="163.4" y="715.0">collective (NCCL)|'
expect_eq "panels end above the lanes (time axis title at 674 - 78 + 36)" \
  "$(grep -o '<text[^>]*>time since[^<]*' k.svg | grep -o 'y="[0-9.]*"')" 'y="632.0"'

# the kernels file is an input: -o may not overwrite it
cp k.csv.kernels kernels.copy
err=$("$FLINCH" plot k.csv -o k.csv.kernels 2>&1); st=$?
expect_eq "-o onto the kernels file: refused, exit 2, left intact" \
  "$st:$(cmp -s k.csv.kernels kernels.copy && echo intact)" "2:intact"
expect_match "-o onto the kernels file: named" "the input's kernels file" "$err"

# without the kernels file: byte for byte the plot made before kernel lanes
# (cksum of flinch f2ff47b's output for these arguments)
mv k.csv.kernels kernels.away
expect_status "plot without kernels" 0 "$FLINCH" plot k.csv -o n.svg --width 1094 --from 0 --to 3 --title t --no-windows
expect_eq "no kernels file: no lanes" "$(grep -c 'klanes\|traced GPU kernels' n.svg)" 0
expect_eq "no kernels file: the plot of before, byte for byte" "$(cksum < n.svg)" "1601360213 10260"
expect_status "plot fixture" 0 "$FLINCH" plot "$ROOT/tests/fixtures/plot_2gpu.csv" -o f.svg --title f
expect_eq "the fixture with its windows: the plot of before, byte for byte" "$(cksum < f.svg)" "2697634041 11218"

# a million pieces (200k under ASan) on device 2 (no such GPU in the trace):
# rectangles bounded by the width, not the kernels (100 k lines of 10 pieces
# of 1 us, 1 us apart, the lines 29.9 us apart: all under a pixel apart, one
# run of 1000 ms busy over 2.99 s; 20 k lines: 200 ms over 0.598 s)
n=100000 million="0.000-2.990 s: 1000.000 ms busy (33% of the span)"
[ -n "${SANITIZED:-}" ] && n=20000 million="0.000-0.598 s: 200.000 ms busy (33% of the span)"
mv kernels.away k.csv.kernels
awk -v n=$n 'BEGIN { for (i = 0; i < n; i++) { s = 5000000000 + i * 29900; g = ""
    for (k = 0; k < 9; k++) g = g (k ? "," : "") "1000:1000"
    printf "B pid=8 gpu=2 start=%.0f end=%.0f kernels=10 top=1:10000 other=0 gaps=%s\n", s, s + 19000, g } }' >>k.csv.kernels
expect_status "plot a million kernel pieces" 0 "$FLINCH" plot k.csv -o m.svg --width 1094 --from 0 --to 3 --title t --no-windows
rects=$(sed -n '/<g class="klanes">/,/<\/g>/p' m.svg | grep -c '<rect')
expect_eq "lanes' rectangles: the 7 above and one run for the million" "$rects" 8
expect_eq "the million's run and its busy time (the sum of its pieces)" \
  "$(grep -o '<title>CUDA device 2 kernels [^<]*' m.svg | sed 's/.*kernels //')" "$million"
done_testing
