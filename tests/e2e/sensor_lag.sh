# tests/e2e/sensor_lag.sh — the breakdown on lagging sensors (issue 21, §1):
# each signal trusted only for what it can know (breakdown_gpu.c). Recorded
# on the simulator's virtual time with default record flags (10 ms, dithered
# ticks), marks appended at exact scenario times.
#  - a pure 724 ms compute from the start mark on the h100 preset, with the
#    GpuIdle reason and SM clock 0 or 50 ms late (event_lag_us): no waiting,
#    for eight sensor phases;
#  - 60 W idle, 300 ms waiting at 62 W, 424 ms at 450 W: the 62 W level is a
#    real level (not a partial reading of a slow sensor), the edge at 300 ms
#    within its printed resolution, itself under 15 ms, on ideal and h100;
#  - the simulator's event_lag_us: the reasons change that late, 50 ms is the
#    most it takes.
. "$ROOT/tests/lib.sh"
unset FLINCH_SIM_SCENARIO FLINCH_SIM_EPOCH_NS FLINCH_SIM_PRESET FLINCH_SIM_SENSOR_SEED
VSTART=1000000000000

# vrec SCN CSV PHASE_NS S_MS E_MS: 3.2 s of SCN, the sampler PHASE_NS before
# the scenario's grid, marks s/e at S_MS/E_MS.
vrec() {
  scn=$1; csv=$2; ep=$((VSTART - $3)); s=$4; e=$5
  rm -f "$csv"
  FLINCH_SIM_VIRTUAL_TIME=1 FLINCH_SIM_EPOCH_NS=$ep FLINCH_SIM_SCENARIO=$scn \
    "$FLINCH" record --nvml-lib "$SIM" -o "$csv" -s 3.2 --no-rapl -q --proc-stat /dev/null 2>err.txt \
    || return 1
  append_mark "$csv" $((ep + s * 1000000)) s
  append_mark "$csv" $((ep + e * 1000000)) e
}

# 1. Compute exactly from the start mark: the reasons read busy from the
# first sample; the lagging power and utilization readings must not outvote
# them (the old fusion printed "waiting 0-53 ms" with a 50 ms lag, and up to
# 12 ms of waiting without one).
bad=""
for seed in 1 2 3 4 5 6 7 8; do
  for lag in 0 50000; do
    printf 'preset h100\nsensor_seed %d\nevent_lag_us %d\nat 0 power=60 util=0 clock=345 reasons=0x1\nat 1000 power=450 util=100 clock=1980 reasons=0x0\nat 1724 power=60 util=0 clock=345 reasons=0x1\n' \
      $seed $lag >m.scn
    vrec m.scn m.csv $((seed * 1234567)) 1000 1724 || bad="$bad record($seed,$lag)"
    seg=$("$FLINCH" analyze m.csv --start s --end e | sed -n 's/^  segments: //p')
    [ "$seg" = "compute 0-724 ms" ] || bad="$bad seed=$seed,lag=$lag:'$seg'"
  done
done
expect_eq "compute from the mark: no waiting in 16 runs (8 phases, lag 0 and 50 ms)" "$bad" ""

# 2. The 62 W wait level, held 300 ms: a real level.
for run in "ideal 1 0" "ideal 2 20000" "h100 1 20000" "h100 2 40000" "h100 4 50000"; do
  set -- $run
  printf 'preset %s\nsensor_seed %d\nevent_lag_us %d\nat 0 power=60 util=0 clock=345 reasons=0x1\nat 2000 power=62\nat 2300 power=450 util=100 clock=1980 reasons=0x0\nat 2724 power=60 util=0 clock=345 reasons=0x1\n' \
    "$1" "$2" "$3" >w.scn
  vrec w.scn w.csv $(($2 * 1234567)) 2000 2724
  out=$("$FLINCH" analyze w.csv --start s --end e)
  got="$(printf '%s\n' "$out" | sed -n 's/^  time: .*edges +-\([0-9.]*\) ms$/\1/p') $(printf '%s\n' "$out" | sed -n 's/^  segments: //p')"
  check "62 W wait ($run): waiting then compute, the edge at 300 ms within its resolution, under 15 ms ($got)" \
    awk -v g="$got" 'BEGIN { if (!match(g, /^[0-9.]+ waiting 0-[0-9]+ ms, then compute [0-9]+-724 ms$/)) exit 1;
      split(g, a, " "); r = a[1]; split(a[3], w, "-"); d = w[2] - 300; if (d < 0) d = -d;
      exit !(d <= r + 0.5 && r < 15) }'
done
out=$("$FLINCH" analyze w.csv --start s --end e)
expect_match "62 W wait: mixed, 300 ms waiting then 424 ms compute" \
  '^  verdict=mixed  4[12]% waiting \((299|300|301) ms\), then 5[89]% compute' "$out"
# ideal sensors: exact (the counter's step at the edge split between 62 and 450 W)
printf 'preset ideal\nat 0 power=60 util=0 clock=345 reasons=0x1\nat 2000 power=62\nat 2300 power=450 util=100 clock=1980 reasons=0x0\nat 2724 power=60 util=0 clock=345 reasons=0x1\n' >w.scn
vrec w.scn w.csv 0 2000 2724
out=$("$FLINCH" analyze w.csv --start s --end e)
expect_match "62 W wait, ideal: exact segments" '^  segments: waiting 0-300 ms, then compute 300-724 ms$' "$out"
expect_match "62 W wait, ideal: edges +-7.3 ms" \
  '^  time: compute 424\.0 ms \(59%\), host-cpu 0\.0 ms \(0%\), waiting 300\.0 ms \(41%\), edges \+-7\.3 ms$' "$out"

# 3. The knob itself: with event_lag_us 50000 the reasons turn busy 50 ms
# after the load; above 50 ms it is refused.
printf 'event_lag_us 50000\nat 0 power=60 util=0 clock=345 reasons=0x1\nat 1000 power=450 util=100 clock=1980 reasons=0x0\n' >l.scn
vrec l.scn l.csv 0 1000 1500
first=$(awk -F, -v ep=$VSTART 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
  $3 == "SAMPLE" && $c["gpu_clock_event_reasons"] != "" && $c["gpu_clock_event_reasons"] !~ /1$/ {
    printf "%d %s\n", ($1 - ep) / 1e6, $c["gpu_sm_clock_MHz"]; exit }' l.csv)
check "event_lag_us 50000: reasons and SM clock turn busy 1050..1060 ms ($first)" \
  awk -v f="$first" 'BEGIN { split(f, a, " "); exit !(a[1] >= 1050 && a[1] <= 1060 && a[2] == 1980) }'
printf 'event_lag_us 50001\nat 0 power=60\n' >l2.scn
FLINCH_SIM_SCENARIO=l2.scn "$FLINCH" record --nvml-lib "$SIM" -o l2.csv -s 0.05 --no-rapl -q 2>err.txt
expect_eq "event_lag_us 50001: refused (NVML init fails)" "$?" "2"
expect_match "event_lag_us 50001: the simulator names the line" 'l2\.scn:1: .*event_lag_us' "$(cat err.txt)"

done_testing
