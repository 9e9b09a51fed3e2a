#!/bin/sh
# bench/record_instructions.sh BUILD — what one sample costs `flinch record`
# in instructions (issue 25 §2), counted by callgrind: deterministic where
# seconds on a shared machine are not. One simulated GPU at 10 ms, no RAPL,
# recorded BENCH_CG_SECONDS (default 3) and 1 second; the simulated NVML's
# own instructions are included, as are start-up and shutdown in the first
# two rows (the third row, the difference of the two, is the steady cost).
# Also prints the share spent in printf's family (vfprintf, snprintf,
# _itoa, _IO_default_xsputn): the cell formatting that num_format.h took
# off the hot path. Target: <= 18,000 instructions per sample over the 3 s
# recording. Needs valgrind (tests/setup-deps.sh installs it as root).
# Run alone, or as the last table of bench/record_bench.sh.
cd "$(dirname "$0")/.." || exit 2
. bench/lib.sh
bench_init "$1"

if ! command -v valgrind >/dev/null 2>&1 || ! command -v callgrind_annotate >/dev/null 2>&1; then
  echo "Instructions per sample: not measured (valgrind not installed; tests/setup-deps.sh installs it)."
  exit 0
fi
secs=${BENCH_CG_SECONDS:-3}
printf 'at 0 power=300 util=50 mem_util=20 clock=1500 temp=50\n' >"$W/cg.scn"

# cg_run SECONDS: records under callgrind; prints "instructions samples printf_instructions".
cg_run() {
  rm -f "$W/cg.csv" "$W/cg.out"
  FLINCH_SIM_SCENARIO="$W/cg.scn" valgrind --tool=callgrind --callgrind-out-file="$W/cg.out" \
    "$FLINCH" record --nvml-lib "$SIM" --out "$W/cg.csv" --interval-ms 10 --seconds "$1" \
    --no-rapl -q >"$W/cg.log" 2>&1 || { echo "bench: flinch record under callgrind failed:" >&2; cat "$W/cg.log" >&2; exit 2; }
  total=$(sed -n 's/^summary: *//p; s/^totals: *//p' "$W/cg.out" | head -n 1)
  samples=$(grep -c ',SAMPLE,' "$W/cg.csv")
  pf=$(callgrind_annotate --auto=no --threshold=100 "$W/cg.out" 2>/dev/null |
       awk '/vfprintf|snprintf|_itoa|_IO_default_xsputn/ { gsub(",", "", $1); s += $1 } END { print s + 0 }')
  echo "$total $samples $pf"
}

# shellcheck disable=SC2046 # split into fields on purpose
set -- $(cg_run "$secs")
long_ir=$1 long_n=$2 long_pf=$3
# shellcheck disable=SC2046
set -- $(cg_run 1)
short_ir=$1 short_n=$2 short_pf=$3

per=$(calc "$long_ir / $long_n" %.0f)
echo "### flinch record: instructions per sample (callgrind, 1 simulated GPU, 10 ms)"
echo
echo "| recording | samples | instructions | per sample | in printf's family | target (<= 18,000 per sample) |"
echo "|---|---|---|---|---|---|"
echo "| ${secs} s | $long_n | $long_ir | $per | $(calc "100 * $long_pf / $long_ir" %.1f) % | $(verdict "$per <= 18000") |"
echo "| 1 s | $short_n | $short_ir | $(calc "$short_ir / $short_n" %.0f) | $(calc "100 * $short_pf / $short_ir" %.1f) % | |"
echo "| difference (steady state) | $((long_n - short_n)) | $((long_ir - short_ir)) | $(calc "($long_ir - $short_ir) / ($long_n - $short_n)" %.0f) | $(calc "100 * ($long_pf - $short_pf) / ($long_ir - $short_ir)" %.1f) % | |"
echo
echo "Command: \`sh bench/record_instructions.sh build\` (valgrind --tool=callgrind; BENCH_CG_SECONDS=$secs)."
