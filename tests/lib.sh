# tests/lib.sh — sourced by every end-to-end test script (tests/e2e/*.sh, bash).
#
# The runner sets FLINCH (the binary), SIM (the simulated NVML .so),
# BUILD (the build dir), SCENARIOS (sim/scenarios) and T (a fresh temp dir).
# Each check prints "ok - NAME" or "not ok - NAME" (TAP style); the runner
# counts those lines. Use `skip NAME why` when a tool is missing.

: "${FLINCH:?run through tests/run.sh}"
fails=0

ok()   { echo "ok - $1"; }
notok(){ echo "not ok - $1"; fails=$((fails + 1)); }
skip() { echo "ok - $1 # SKIP $2"; }

# check NAME CMD...: passes when CMD exits 0.
check() {
  name=$1; shift
  if "$@"; then ok "$name"; else notok "$name"; fi
}

# expect_eq NAME GOT WANT: exact string equality, shows both on failure.
expect_eq() {
  if [ "$2" = "$3" ]; then ok "$1"; else
    notok "$1"
    printf '    got:  %s\n    want: %s\n' "$2" "$3" >&2
  fi
}

# expect_status NAME WANT CMD...: CMD's exit status must be WANT.
expect_status() {
  name=$1; want=$2; shift 2
  "$@"; got=$?
  expect_eq "$name (exit status)" "$got" "$want"
}

# expect_match NAME REGEX TEXT: grep -E on TEXT.
expect_match() {
  if printf '%s\n' "$3" | grep -Eq -- "$2"; then ok "$1"; else
    notok "$1"
    printf '    pattern: %s\n    text: %s\n' "$2" "$3" >&2
  fi
}

# near A B TOL: |A-B| <= TOL, floating point (awk).
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }

# csv_col FILE NAME: prints column NAME of every row but the header.
csv_col() {
  awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
                        c { print $c }' "$1"
}

# wait_for TRIES CMD...: runs CMD every 20 ms until it passes (0) or TRIES
# runs have failed (1).
wait_for() { n=$1; shift; while [ "$n" -gt 0 ]; do "$@" && return 0; sleep 0.02; n=$((n - 1)); done; return 1; }

# nvtx3_include: prints the include directory holding nvtx3/nvToolsExt.h
# (CUDA_HOME, CUDA_PATH, /usr/local/cuda*, newest first, /opt/cuda, /usr);
# fails when there is none.
nvtx3_include() {
  for d in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda $(ls -d /usr/local/cuda-* 2>/dev/null | sort -r -V) /opt/cuda /usr; do
    if [ -n "$d" ] && [ -f "$d/include/nvtx3/nvToolsExt.h" ]; then echo "$d/include"; return 0; fi
  done
  return 1
}

# rec OUT [ARGS...]: a 50 ms recording of the simulated demo scenario into
# OUT, without RAPL; stderr in err.txt. rec_bg OUT [ARGS...]: the same
# recording in the background (exec'd, so $! is flinch) until --seconds or a
# signal stops it; stderr in $REC_BG_ERR (default err.txt).
rec() {
  out=$1; shift
  FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" "$FLINCH" record --out "$out" --nvml-lib "$SIM" \
    --no-rapl --seconds 0.05 "$@" 2>err.txt
}
# rec_virtual SCENARIO OUT [ARGS...]: a recording of the scenario file on
# the simulator's virtual clock (exact times), at 10 ms on the exact grid
# (--no-dither), without RAPL, quiet, into OUT (removed first); stderr in
# err.txt.
rec_virtual() {
  scn=$1; out=$2; shift 2
  rm -f "$out"
  FLINCH_SIM_VIRTUAL_TIME=1 FLINCH_SIM_SCENARIO="$scn" "$FLINCH" record \
    --out "$out" --nvml-lib "$SIM" --no-rapl -q --interval-ms 10 --no-dither "$@" 2>err.txt
}
rec_bg() {
  out=$1; shift
  FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" exec "$FLINCH" record --out "$out" --nvml-lib "$SIM" \
    --no-rapl "$@" 2>"${REC_BG_ERR:-err.txt}" &
}

# bg_status OUT CMD...: runs CMD in the background, its stderr to OUT.err
# and, once it ends, its exit status to OUT.rc (several at once, then
# `wait`: a test whose recordings share nothing need not run them in turn).
bg_status() {
  bg_out=$1; shift
  rm -f "$bg_out.rc"
  ( "$@" 2>"$bg_out.err"; echo $? >"$bg_out.rc" ) &
}

done_testing() { [ "$fails" -eq 0 ]; exit $?; }

# append_mark CSV T_NS LABEL: a MARK row at CLOCK_MONOTONIC T_NS at the end
# of a recorded trace, with as many empty cells as its header has columns
# (a mark placed by the test at an exact time of the simulator's clock).
append_mark() {
  awk -v n="$(head -n 1 "$1" | awk -F, '{ print NF }')" -v t="$2" -v l="$3" \
    'BEGIN { printf "%s,,MARK,%s", t, l; for (i = 5; i <= n; i++) printf ","; print "" }' >>"$1"
}
