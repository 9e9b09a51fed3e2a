# metrics_held.sh — the Prometheus gauges of values the trace holds only on
# some rows (issue 13, section 4): flinch_gpu_sm_active_ratio (the latest
# GPM SM activity, gone when GPM stops), flinch_gpu_proc_sm_ratio and
# flinch_gpu_other_sm_ratio (the latest per-process reading), exact in the
# --metrics-file textfile of simulator recordings on virtual time, and
# promtool's check.
. "$ROOT/tests/lib.sh"
uuid='gpu="0",uuid="GPU-5151a000-0000-4000-8000-000000000000"'
rec() { # rec SCENARIO OUT ARGS...: rec_virtual with the textfile OUT.prom
  scn=$1; out=$2; shift 2
  rm -f "$out.prom"
  rec_virtual "$scn" "$out" --metrics-file "$out.prom" "$@"
}
held() { grep -E '^flinch_gpu_(sm_active|proc_sm|other_sm)_ratio' "$1"; }

printf 'at 0 power=612 util=80 sm_active=75 proc_child=20 proc_other=60\n' > m.scn
rec m.scn m.csv --seconds 1.5 -- sleep 3
expect_eq "shared GPU with GPM records" "$?:$(grep -v 'thread states' err.txt)" "0:"
expect_eq "the three gauges: GPM SM active 75%, job 20%, others 60% (as ratios, %.10g)" "$(held m.csv.prom)" \
"flinch_gpu_sm_active_ratio{$uuid} 0.75
flinch_gpu_proc_sm_ratio{$uuid} 0.2
flinch_gpu_other_sm_ratio{$uuid} 0.6"
expect_eq "HELP and TYPE" "$(grep -E '^# (HELP|TYPE) flinch_gpu_sm_active_ratio' m.csv.prom)" \
"# HELP flinch_gpu_sm_active_ratio GPM SM activity over the latest GPM span, about 200 ms (gpu_sm_active_pct / 100; Hopper and newer).
# TYPE flinch_gpu_sm_active_ratio gauge"
if command -v promtool >/dev/null 2>&1; then
  promtool check metrics <m.csv.prom >promtool.txt 2>&1
  expect_eq "promtool check metrics: clean" "$?:$(cat promtool.txt)" "0:"
else
  skip "promtool check metrics" "promtool not installed (tests/setup-deps.sh installs prometheus)"
fi

printf 'unsupported_after 3 nvmlGpmSampleGet\nat 0 util=50\n' > later.scn
rec later.scn later.csv --seconds 1
expect_eq "GPM gone mid-run: no SM active gauge at the end; no per-process gauges without a job" \
  "$?:$(held later.csv.prom | wc -l)" "0:0"
printf 'at 0 util=50 sm_active=40\n' > on.scn
rec on.scn on.csv --seconds 0.5
expect_eq "GPM on, no job: only the SM active gauge" "$(held on.csv.prom)" \
  "flinch_gpu_sm_active_ratio{$uuid} 0.4"

done_testing
