#!/bin/bash
# cuda_record.sh — `flinch record --cuda -- CMD` on the simulated NVML and
# CUPTI: CUDA_INJECTION64_PATH handed to CMD (refused when set, unless
# --cuda-replace), the kernel lines in TRACE.kernels (its first line, the
# union exact to the ns, counts, drops), the cuda_off EVENT row when CUPTI
# refuses, --cuda with --nvtx, and the option errors.
. "$ROOT/tests/lib.sh"
export FLINCH_CUPTI_LIB=$BUILD/sim-cupti/libcupti.so.13
APP=$HELPERS/cuda_app
SCN=$ROOT/tests/fixtures/cuda/timeline.scn
UNION="awk -f $ROOT/tests/helpers/kernels_union.awk"
rec() { "$FLINCH" record -q --nvml-lib "$SIM" --no-rapl -i 20 "$@"; }
unset CUDA_INJECTION64_PATH

rec -o "$T/a.csv" --cuda -- "$APP" "$SCN" >"$T/app.out" 2>"$T/err"
expect_eq "exit status: CMD's" "$?" 0
t0=$(sed -n 's/.*t0=\([0-9]*\).*/\1/p' "$T/app.out"); pid=$(sed -n 's/^pid=\([0-9]*\).*/\1/p' "$T/app.out")
# `begin` is stamped before CMD starts (on a loaded host CMD may run its
# first kernels before the recorder's thread gets a CPU back)
mono=$(sed -n 's/.* mono=\([0-9]*\).*/\1/p' "$T/app.out")
expect_eq "begin stamped before CMD ran" \
  "$(awk -F, -v m="$mono" '$3 == "MARK" && $4 == "\"begin\"" { print ($1 <= m) }' "$T/a.csv")" 1
expect_eq "kernels file: first line" "$(head -1 "$T/a.csv.kernels")" "flinch-kernels 1"
expect_eq "kernels file: the library's S line" "$(grep -c "^S pid=$pid cupti=130001 clock=monotonic " "$T/a.csv.kernels")" 1
expect_eq "GPU 0 busy: the kernel union, exact" "$($UNION -v type=B -v gpu=0 -v t0="$t0" "$T/a.csv.kernels" | head -1)" \
  "100-350,400-500,800-900,1000-1100 total=550 count=6"
expect_eq "GPU 1 busy" "$($UNION -v type=B -v gpu=1 -v t0="$t0" "$T/a.csv.kernels" | head -1)" "100-110 total=10 count=1"
expect_eq "collectives" "$($UNION -v type=C -v gpu=0 -v t0="$t0" "$T/a.csv.kernels" | head -1)" "400-500 total=100 count=1"
expect_eq "last counts" "$(grep '^D ' "$T/a.csv.kernels" | tail -1)" \
  "D pid=$pid kernels=38 copies=2 dropped=0 zero_stamps=1 pool_empty=0 lines_lost=0"
expect_eq "no kernel line in the trace, no cuda_off" "$(grep -c 'cuda_off\|sgemm\|pid=' "$T/a.csv")" 0
expect_eq "no warning" "$(cat "$T/err")" ""

# analyze: the window's kernel evidence (CUDA device 0 is the one recorded GPU);
# the text's compute is the union less the collective (0.55 - 0.1 ms); the
# gaps' classes depend on what the threads did when (cuda_gaps.sh has them
# exactly): here they add up to the gaps' total
"$FLINCH" analyze "$T/a.csv" --start begin --end end --format json >"$T/a.json" 2>"$T/aerr"
expect_eq "analyze: JSON kernels object" "$(python3 -c 'import json, sys
w = json.load(open(sys.argv[1]))["windows"][0]
k = w["gpus"][0]["kernels"]
k["nvml_check"]["threshold_ms"] = k["nvml_check"]["threshold_ms"] > 0
k["gaps"]["by_class"] = round(sum(k["gaps"]["by_class"].values()), 6)
print(json.dumps(k, sort_keys=True))' "$T/a.json")" \
  '{"busy_ms": 0.55, "collective_ms": 0.1, "count": 6, "dropped": 0, "gaps": {"by_class": 0.45, "count": 3, "longest_ms": 0.3, "total_ms": 0.45}, "nvml_check": {"busy_without_kernels_ms": 0.0, "kernels_while_idle_ms": 0.55, "threshold_ms": true}, "top": [{"ms": 0.25, "name": "sgemm_kernel"}, {"ms": 0.15, "name": "flash_fwd"}, {"ms": 0.1, "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL"}, {"ms": 0.1, "name": "graph_kernel"}]}'
expect_match "analyze -v: the kernels line" \
  "^    kernels: compute 0\.5 ms of [0-9.]+ in 6 kernels: 42% sgemm_kernel, 25% flash_fwd, 17% ncclDevKernel_AllReduce_Sum_f32_RING_LL; collective 0\.1 ms; 3 gaps, longest 0\.3 ms, [0-9]+% of their 0\.[45] ms (waiting|host-cpu|waiting-on-[a-z-]+)\$" \
  "$("$FLINCH" analyze "$T/a.csv" --start begin --end end -v 2>&1 | grep '^    kernels:')"

SIM_CUPTI_DROPPED=7 rec -o "$T/d.csv" --cuda -- "$APP" "$SCN" >/dev/null 2>&1
expect_match "dropped records recorded" "^D pid=[0-9]+ kernels=38 copies=2 dropped=7 zero_stamps=1 " \
  "$(grep '^D ' "$T/d.csv.kernels" | tail -1)"

# CUPTI refuses (another subscriber first): one EVENT row, then the sensors alone
SIM_CUPTI_SUBSCRIBE=39 rec -o "$T/b.csv" --cuda -- "$APP" "$SCN" >"$T/app.out" 2>&1
expect_eq "error 39: exit status" "$?" 0
pid=$(sed -n 's/^pid=\([0-9]*\).*/\1/p' "$T/app.out")
expect_eq "error 39: one cuda_off EVENT row" "$(grep -c ',EVENT,"cuda_off ' "$T/b.csv")" 1
expect_eq "error 39: its label" "$(grep -o '"cuda_off [^"]*"' "$T/b.csv")" \
  "\"cuda_off pid=$pid reason=subscribe:39 subscriber=CUPTI_for_Kineto\""
expect_eq "error 39: after begin" "$(awk -F, '/"begin"/ { b = NR } /cuda_off/ { c = NR } END { print (b && c > b) }' "$T/b.csv")" 1
expect_eq "error 39: no busy interval" "$(grep -c '^B ' "$T/b.csv.kernels")" 0
"$FLINCH" analyze "$T/b.csv" --start begin --end end --format json >"$T/b.json"
expect_eq "error 39: analyze answers from the sensors (exit 0, no kernels object)" \
  "$?:$(grep -c '"kernels"' "$T/b.json"):$(grep -c '"busy_ms"' "$T/b.json")" "0:0:0"

# CUDA_INJECTION64_PATH already set
CUDA_INJECTION64_PATH=/opt/other/libtool.so rec -o "$T/c.csv" --cuda -- true 2>"$T/err"
expect_eq "already set: exit status 2" "$?" 2
expect_eq "already set: the message" "$(cat "$T/err")" \
  "flinch record: CUDA_INJECTION64_PATH is already set (/opt/other/libtool.so): another tool injects into CUDA there; --cuda-replace hands it to flinch instead"
check "already set: nothing recorded" test ! -e "$T/c.csv"
CUDA_INJECTION64_PATH=/opt/other/libtool.so rec -o "$T/c.csv" --cuda --cuda-replace -- "$APP" "$SCN" >/dev/null 2>&1
expect_eq "--cuda-replace: exit status" "$?" 0
expect_eq "--cuda-replace: kernels recorded" "$(grep -c '^B pid=.* gpu=0 ' "$T/c.csv.kernels" | awk '{ print ($1 > 0) }')" 1

# with --nvtx: both injections handed to CMD
rec -o "$T/n.csv" --cuda --nvtx -- sh -c 'echo "$CUDA_INJECTION64_PATH|$NVTX_INJECTION64_PATH"' >"$T/env.out" 2>&1
expect_eq "--cuda --nvtx: both libraries" "$(cat "$T/env.out")" \
  "$(cd "$BUILD" && pwd -P)/libflinch_cuda.so|$(cd "$BUILD" && pwd -P)/libflinch_nvtx.so"

# a file at TRACE.kernels that is not ours: left alone
echo "precious" >"$T/p.csv.kernels"
rec -o "$T/p.csv" --cuda -- "$APP" "$SCN" >/dev/null 2>"$T/err"
expect_eq "foreign .kernels: left alone" "$(cat "$T/p.csv.kernels")" "precious"
expect_eq "foreign .kernels: one warning" "$(cat "$T/err")" \
  "flinch record: warning: $T/p.csv.kernels: exists and is not a flinch kernels file; left alone, no kernel data recorded"

# option errors
rec -o "$T/e.csv" --cuda 2>"$T/err"
expect_eq "--cuda without CMD: exit 2" "$?" 2
expect_eq "--cuda without CMD: message" "$(cat "$T/err")" \
  "flinch record: --cuda records the GPU kernels of a wrapped command: add -- CMD ARGS..."
rec -o "$T/e.csv" --cuda-replace -- true 2>"$T/err"
expect_eq "--cuda-replace alone: exit 2" "$?" 2
expect_match "--help lists --cuda" "--cuda-replace" "$("$FLINCH" record --help)"
done_testing
