#!/bin/bash
# cuda_inject.sh — libflinch_cuda.so on the simulated CUPTI, without the
# recorder: the lines it sends down the marks FIFO (README, "Kernel
# timeline"). The stand-in application (tests/helpers/cuda_app.c) calls
# InitializeInjection as the CUDA driver does and plays
# tests/fixtures/cuda/timeline.scn. Checks: the exported symbols; the
# busy intervals (union exact to the ns), counts, top names, collectives,
# copies; the timestamp callback registered before anything is enabled,
# KERNEL (serialising) never enabled, the forced flush and cuptiFinalize at
# exit; twice from two threads; a forked child; a process of its own;
# the faults (error 39 naming the other subscriber, 999, an unsupported
# version, no timestamp callback, dropped records); and the real libcupti
# of this machine, which answers 999 without a driver.
. "$ROOT/tests/lib.sh"
LIB=$HELPERS/libflinch_cuda_san.so      # the library, built with this build's sanitizers
SIMLIB=$BUILD/sim-cupti/libcupti.so.13
APP=$HELPERS/cuda_app
SCN=$ROOT/tests/fixtures/cuda/timeline.scn
UNION="awk -f $ROOT/tests/helpers/kernels_union.awk"
mkfifo "$T/f"
exec 3<>"$T/f"                          # a reader: the library can connect

# drain: what the pipe holds now, the "\tcuda\t" framing removed.
drain() {
  python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
data = b""
while True:
    try:
        b = os.read(fd, 65536)
    except BlockingIOError:
        break
    if not b:
        break
    data += b
sys.stdout.write(data.decode())' "$T/f" | sed -n 's/^\tcuda\t//p'
}

# run ENV... -- ARGS: the app with the library; its stdout in $T/app.out, lines in $T/lines.
run() {
  envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  rm -f "$T/log"
  env FLINCH_MARKS="$T/f" CUDA_INJECTION64_PATH="$LIB" FLINCH_CUPTI_LIB="$SIMLIB" \
      SIM_CUPTI_LOG="$T/log" "${envs[@]}" "$APP" "$@" >"$T/app.out" 2>"$T/app.err"
  rc=$?
  drain >"$T/lines"
  return $rc
}
t0_of() { sed -n 's/.*t0=\([0-9]*\).*/\1/p' "$T/app.out" | sed -n "${1:-1}p"; }
pid_of() { sed -n 's/^pid=\([0-9]*\).*/\1/p' "$T/app.out" | sed -n "${1:-1}p"; }

# --- exported symbols ---
if command -v nm >/dev/null 2>&1; then
  expect_eq "only InitializeInjection exported" \
    "$(nm -D --defined-only "$BUILD/libflinch_cuda.so" | awk '$2 ~ /^[TDBRVW]$/ { print $3 }')" \
    "InitializeInjection"
else skip "only InitializeInjection exported" "no nm"; fi

# --- the timeline ---
run -- "$SCN"
expect_eq "exit status" "$?" 0
expect_eq "InitializeInjection: 1 from two threads at once and again" "$(head -1 "$T/app.out")" "init=1 1 1"
t0=$(t0_of); pid=$(pid_of)
expect_eq "one S line (monotonic clock, version)" \
  "$(grep -c "^S pid=$pid cupti=130001 clock=monotonic flush_ms=100 lib=$SIMLIB\$" "$T/lines")" 1
expect_eq "GPU 0 busy: the kernel union, exact" "$($UNION -v type=B -v gpu=0 -v t0="$t0" "$T/lines" | head -1)" \
  "100-350,400-500,800-900,1000-1100 total=550 count=6"
expect_eq "GPU 1 busy" "$($UNION -v type=B -v gpu=1 -v t0="$t0" "$T/lines" | head -1)" "100-110 total=10 count=1"
u2=$($UNION -v type=B -v gpu=2 -v t0="$t0" "$T/lines" | head -1)
expect_eq "GPU 2: 30 kernels with 1 us gaps, each gap kept" \
  "$(echo "$u2" | tr ',' '\n' | wc -l | tr -d ' ') ${u2##* total=}" "30 60 count=30"
expect_match "GPU 2: its first and last piece" "^2000-2002,2003-2005,.*,2087-2089 total" "$u2"
expect_eq "GPU 2: gaps split over lines of at most 24" \
  "$(grep '^B .* gpu=2 ' "$T/lines" | sed -n 's/.* gaps=\([^ ]*\).*/\1/p' | awk -F, '{ n++; if (NF > m) m = NF } END { print (n >= 2), m <= 24 }')" "1 1"
expect_eq "collectives (C)" "$($UNION -v type=C -v gpu=0 -v t0="$t0" "$T/lines" | head -1)" "400-500 total=100 count=1"
expect_eq "copies and memsets (X)" "$($UNION -v type=X -v gpu=0 -v t0="$t0" "$T/lines" | head -1)" "600-720 total=120 count=2"
expect_eq "kernel time per name" "$($UNION -v type=B -v gpu=0 -v t0="$t0" "$T/lines" | sed -n 's/^top //p' | tr '\n' ';')" \
  "flash_fwd 150;graph_kernel 100;ncclDevKernel_AllReduce_Sum_f32_RING_LL 100;sgemm_kernel 250;"
expect_eq "last counts: records, zero stamps" "$(grep '^D ' "$T/lines" | tail -1)" \
  "D pid=$pid kernels=38 copies=2 dropped=0 zero_stamps=1 pool_empty=0 lines_lost=0"
expect_eq "CUPTI calls: timestamp before enable, no KERNEL kind, forced flush, finalize" \
  "$(grep -v '^flush 0$' "$T/log" | tr '\n' ';')" \
  "subscribe 0;timestamp;callbacks;enable 10;enable 1;enable 2;flush 1;finalize;"
expect_match "the flush thread flushed during the sleep" '^flush 0$' "$(cat "$T/log")"

# --- a forked child after the injection: harmless, records nothing ---
run -- "$SCN" --fork-after
expect_eq "fork after init: the child's InitializeInjection returns 1" "$(sed -n 's/^fork_after_child=//p' "$T/app.out")" 0
pid=$(pid_of)
expect_eq "fork after init: every line is the parent's" "$(grep -vc " pid=$pid " "$T/lines")" 0
expect_eq "fork after init: the parent's union whole" \
  "$($UNION -v type=B -v gpu=0 -v t0="$(t0_of)" "$T/lines" | head -1)" "100-350,400-500,800-900,1000-1100 total=550 count=6"

# --- a child that initialises CUDA itself: its own injection and pid ---
run -- "$SCN" --fork-first
p1=$(pid_of 1); p2=$(pid_of 2)
expect_eq "fork first: two processes, two S lines" "$(grep -c '^S ' "$T/lines")" 2
expect_eq "fork first: the child's union under its pid" \
  "$($UNION -v type=B -v gpu=0 -v t0="$(t0_of 1)" -v pid="$p1" "$T/lines" | head -1)" \
  "100-350,400-500,800-900,1000-1100 total=550 count=6"
expect_eq "fork first: the parent's under its own" \
  "$($UNION -v type=B -v gpu=0 -v t0="$(t0_of 2)" -v pid="$p2" "$T/lines" | head -1)" \
  "100-350,400-500,800-900,1000-1100 total=550 count=6"

# --- faults ---
run SIM_CUPTI_SUBSCRIBE=39 -- "$SCN"
expect_eq "error 39: exit status" "$?" 0
expect_eq "error 39: one line, naming the other subscriber" "$(cat "$T/lines")" \
  "O pid=$(pid_of) reason=subscribe:39 subscriber=CUPTI_for_Kineto"
run SIM_CUPTI_SUBSCRIBE=999 -- "$SCN"
expect_eq "error 999: one line" "$(cat "$T/lines")" "O pid=$(pid_of) reason=subscribe:999 subscriber=-"
expect_eq "error 999: nothing enabled" "$(tr '\n' ';' <"$T/log")" "subscribe 999;"
run SIM_CUPTI_VERSION=18 -- "$SCN"
expect_eq "CUPTI 11.8: off, not subscribed" "$(cat "$T/lines");$(cat "$T/log" 2>/dev/null)" \
  "O pid=$(pid_of) reason=version:18 subscriber=-;"
run SIM_CUPTI_VERSION=140000 -- "$SCN"
expect_eq "CUPTI 14: off" "$(cat "$T/lines")" "O pid=$(pid_of) reason=version:140000 subscriber=-"
run FLINCH_CUPTI_LIB="$T/nonexistent.so" -- -
expect_eq "no CUPTI: off" "$(cat "$T/lines")" "O pid=$(pid_of) reason=no_cupti subscriber=-"
run SIM_CUPTI_DROPPED=5 -- "$SCN"
expect_match "dropped records counted" "^D pid=$(pid_of) kernels=38 copies=2 dropped=5 " "$(grep '^D ' "$T/lines" | tail -1)"
run SIM_CUPTI_NO_TIMESTAMP=1 -- "$SCN"
grep '^S ' "$T/lines" | grep -q 'clock=converted' && ok "no timestamp callback: stamps converted" || notok "no timestamp callback: stamps converted"
# CLOCK_REALTIME stamps shifted onto CLOCK_MONOTONIC: lengths exact, place within 1 ms
# (the shift is measured once, at init; t0 here is a CLOCK_REALTIME stamp,
# mono the CLOCK_MONOTONIC read next to it)
mono=$(sed -n 's/.* mono=\([0-9]*\).*/\1/p' "$T/app.out")
u=$($UNION -v type=B -v gpu=0 -v t0="$mono" "$T/lines" | head -1)
expect_match "converted: lengths exact" " total=550 count=6$" "$u"
first=${u%%-*}
check "converted: placed within 1 ms ($first us for 100)" near "$first" 100 1000

# --- the real libcupti of this machine (no driver: 999) ---
real=""
for d in "${CUDA_HOME:-/usr/local/cuda}/extras/CUPTI/lib64" "${CUDA_HOME:-/usr/local/cuda}/lib64" /usr/local/cuda/lib; do
  for f in "$d"/libcupti.so.1[23]; do [ -f "$f" ] && real=$f && break 2; done
done
if [ -n "$real" ] && [ ! -e /dev/nvidiactl ]; then
  run FLINCH_CUPTI_LIB="$real" -- -
  expect_eq "real CUPTI without a driver: exit status" "$?" 0
  expect_match "real CUPTI without a driver: off, error 999" "^O pid=[0-9]+ reason=subscribe:999 subscriber=" "$(cat "$T/lines")"
  echo "# real CUPTI: $real"
else
  skip "real CUPTI without a driver" "no libcupti, or a driver is present"
fi
done_testing
