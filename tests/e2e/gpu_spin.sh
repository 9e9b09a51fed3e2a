# tests/e2e/gpu_spin.sh — a spinning GPU is waiting (issue 21, §2;
# src/analyze/breakdown/gpu_spin.h): utilization >= 90 %, GPM SM activity
# <= 10 % and DRAM bandwidth <= 10 % over the GPM spans whole inside the
# window is a spin (a collective waiting for a late peer): class waiting,
# reason gpu-spin, in the text, JSON, CSV, plot and export. Both sides of
# each threshold; memory-bound decode stays compute; without GPM the
# look-alike is said. Virtual time, ideal sensors, marks at 1000/1724 ms.
. "$ROOT/tests/lib.sh"
unset FLINCH_SIM_SCENARIO FLINCH_SIM_EPOCH_NS FLINCH_SIM_PRESET FLINCH_SIM_SENSOR_SEED
VSTART=1000000000000

# spin CSV PRESET UTIL SM DRAM POWER [GPM]: a full-power burst for the busy
# level, then UTIL/SM/DRAM at POWER W from 1000 to 1724 ms.
spin() {
  csv=$1
  printf 'preset %s\nsensor_seed 3\ngpm %s\nat 0 power=75 util=0 clock=345 reasons=0x1 sm_active=0 dram_bw=0\nat 200 power=612 util=98 clock=1980 reasons=0x0 sm_active=95 dram_bw=50\nat 600 power=75 util=0 clock=345 reasons=0x1 sm_active=0 dram_bw=0\nat 1000 power=%s util=%s clock=1980 reasons=0x0 sm_active=%s dram_bw=%s\nat 1724 power=75 util=0 clock=345 reasons=0x1 sm_active=0 dram_bw=0\n' \
    "$2" "${7:-on}" "$6" "$3" "$4" "$5" >spin.scn
  rm -f "$csv"
  FLINCH_SIM_VIRTUAL_TIME=1 FLINCH_SIM_EPOCH_NS=$VSTART FLINCH_SIM_SCENARIO=spin.scn "$FLINCH" record \
    --nvml-lib "$SIM" -o "$csv" -s 3.2 --no-rapl -q --proc-stat /dev/null 2>err.txt || return 1
  append_mark "$csv" $((VSTART + 1000 * 1000000)) infer_start
  append_mark "$csv" $((VSTART + 1724 * 1000000)) first_token
}
an() { "$FLINCH" analyze "$@" --start infer_start --end first_token; }
segs() { an "$1" | sed -n 's/^  segments: //p'; }

# The collective waiting on a peer: utilization 100 %, SM clock high, power
# 28 % of the busy range, SM activity 4 %, DRAM 2 %.
spin s.csv ideal 100 4 2 225
out=$(an s.csv)
expect_eq "spin: waiting, reason gpu-spin, the whole window" "$(segs s.csv)" "waiting (gpu-spin) 0-724 ms"
expect_match "spin: the verdict is waiting and the evidence names the spin" \
  '^  verdict=waiting  100% waiting \(724 ms\), .*; the GPU spins for 724 ms: utilization 100% but SM activity 4%: a collective or busy-wait kernel waiting on a peer, or a stream of tiny kernels' "$out"
expect_eq "spin: CSV segments carry the reason" \
  "$(an s.csv --format csv | grep -o ',waiting:0\.000-724\.000:gpu-spin,' | head -n 1)" \
  ",waiting:0.000-724.000:gpu-spin,"
expect_match "spin: JSON segments[].reason" \
  '"segments":\[\{"start_ms":0\.000,"end_ms":724\.000,"class":"waiting","reason":"gpu-spin"\}\]' "$(an s.csv --format json)"
"$FLINCH" export s.csv --start infer_start --end first_token -o s.json 2>err.txt
expect_match "spin: export's segment slice carries the reason" '"cat":"segment".*"reason":"gpu-spin"' "$(cat s.json)"
"$FLINCH" plot s.csv --start infer_start --end first_token -o s.svg 2>err.txt
expect_match "spin: the plot's segment tooltip names it" '<title>waiting \(gpu-spin\) 0-724 ms' "$(cat s.svg)"

# Memory-bound decode: 100 % utilization at 30 % of the range, but SM
# activity 80 % and DRAM 90 %: compute.
spin d.csv ideal 100 80 90 236
expect_eq "decode: compute" "$(segs d.csv)" "compute 0-724 ms"
check "decode: no spin in the evidence" [ "$(an d.csv | grep -c 'spins')" = 0 ]

# Each threshold, both sides: utilization 89/90, SM activity 10/11, DRAM 10/11.
spin t.csv ideal 89 4 2 225
expect_eq "utilization 89%: compute" "$(segs t.csv)" "compute 0-724 ms"
spin t.csv ideal 90 10 10 225
expect_eq "utilization 90%, SM 10%, DRAM 10%: a spin" "$(segs t.csv)" "waiting (gpu-spin) 0-724 ms"
spin t.csv ideal 100 11 2 225
expect_eq "SM activity 11%: compute" "$(segs t.csv)" "compute 0-724 ms"
spin t.csv ideal 100 4 11 225
expect_eq "DRAM bandwidth 11%: compute" "$(segs t.csv)" "compute 0-724 ms"

# h100 sensors (utilization over 1/6 s, lagging): still waiting, the spin
# named for the GPM-covered part.
spin h.csv h100 100 4 2 225
out=$(an h.csv)
expect_match "h100 spin: waiting" '^  verdict=waiting  ' "$out"
expect_match "h100 spin: the spin in the segments" '^  segments: (waiting [0-9]+-[0-9]+ ms, then )?waiting \(gpu-spin\) [0-9]+-[0-9]+ ms' "$out"

# Without GPM (pre-Hopper): the look-alike is said, and what would tell.
spin g.csv ideal 100 4 2 225 off
out=$(an g.csv)
expect_eq "no GPM: compute (nothing tells a spin)" "$(segs g.csv)" "compute 0-724 ms"
expect_match "no GPM: says it cannot tell memory-bound compute from a spin, and what would" \
  '; utilization 100% at 28% of the busy range: memory-bound compute and a GPU spinning on a peer \(a collective, a busy-wait\) look alike here; GPM SM activity \(Hopper and newer\) or kernel names \(record --cuda\) would tell' "$out"
spin g.csv ideal 100 4 2 400 off
check "no GPM, power 60% of the range: no such note" [ "$(an g.csv | grep -c 'look alike')" = 0 ]

done_testing
