#!/bin/sh
# tests/run.sh BUILD_DIR... — runs every unit test binary and end-to-end
# script against each build, then tests/valgrind.sh (memcheck) against the
# first build, counts "ok" / "not ok" lines, and ends with
# "N passed, N failed" (plus ", N skipped"). Exit status 1 if anything failed.
#
# A test that fails shows its output; a passing one stays quiet unless
# VERBOSE=1. FILTER=pattern runs only tests whose name contains it.
#
# Parallel: the tests of every build run JOBS at a time (default: the
# number of CPUs; JOBS=1 runs one at a time), each in a temp dir of its
# own, except the SERIAL_TESTS below, which run after all the others, one at
# a time with nothing else running. Each test's output is printed whole,
# never interleaved, in the order the tests were started.
cd "$(dirname "$0")/.." || exit 2
root=$(pwd)
passed=0; failed=0; skipped=0
failed_names=""

# Tests that must run alone. Reasons, so the list can be kept honest:
#   cpu_starved      saturates every core on purpose (one busy loop per CPU)
#   soak_short       1 ms ticks and 1 kHz of marks for 20 s: counts skipped ticks
#   faults           1-2 ms intervals, a stall's schedule (median offset < 5 ms)
#   metrics_counts   floods 100,000 marks as fast as Python writes them
#   record_shutdown  four writers flood the FIFO while the recorder stops
#   record_linger    compares energy-counter windows' +- across one recording
#   record_parallel  8 GPUs read at once, the 8 stamps of a tick together
#   record_64gpus    64 GPUs every 10 ms; a 200 ms window on real time judged
#                    per GPU (failed once beside another recording)
#   record_basic     exact sample count of a timed recording (late_ns)
#   record_stamps    stamps from CLOCK_MONOTONIC against the recorder's clock
#   gpu_calls        driver calls per tick counted against the samples' span
#   proc_util        GPM spans of a 700 ms request on real time
#   mark             100 concurrent writers x 100 marks; a busy process's CPU
#   record_cmd       a busy process's CPU time over 0.5 s (proc_cpu_ns)
#   answer           a busy thread and unrelated host load
#   analyze_sim      marks at a 724 ms burst's edges on real time, within 1 %
#   metrics          slow and piling HTTP clients while sampling goes on
#   metrics_fds      the server thread's CPU time under EMFILE
#   python_helper    a demo's two 724 ms windows within 30 ms on real time
SERIAL_TESTS="cpu_starved soak_short faults metrics_counts record_shutdown
  record_linger record_parallel record_64gpus record_basic record_stamps gpu_calls proc_util
  mark record_cmd answer analyze_sim metrics metrics_fds python_helper"

# Tests that use no flinch build, run with the first build only:
#   python_pip       pip installs python/ in a venv; flinch itself never runs
ONCE_TESTS="python_pip"
first_build=${1:-}

JOBS=${JOBS:-$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
case "$JOBS" in ''|*[!0-9]*|0) echo "tests/run.sh: JOBS must be a positive number" >&2; exit 2 ;; esac

res=$(mktemp -d) || exit 2
launched=0     # ids 0..launched-1 have been started
printed=0      # ids 0..printed-1 have been reported
running=""     # "id:pid" of started tests not yet reaped

# On an interrupt, stop the tests still running (each test's timeout(1),
# which passes the signal on to its test) and leave nothing behind.
stop_all() {
  for r in $running; do kill -TERM "${r#*:}" 2>/dev/null; done
  for f in "$res"/*.tpid; do
    [ -f "$f" ] && kill -TERM "$(cat "$f")" 2>/dev/null
  done
  sleep 1
  for f in "$res"/*.tdir; do
    [ -f "$f" ] && rm -rf "$(cat "$f")"
  done
  rm -rf "$res"
}
trap 'stop_all; exit 130' INT
trap 'stop_all; exit 143' TERM
trap 'rm -rf "$res"' EXIT

# in_list NAME WORD...: whether NAME is one of the words.
in_list() {
  in_list_name=$1; shift
  for in_list_word in "$@"; do [ "$in_list_word" = "$in_list_name" ] && return 0; done
  return 1
}
is_serial() { in_list "$1" $SERIAL_TESTS; }
is_once() { in_list "$1" $ONCE_TESTS; }

# run_one ID BUILD NAME CMD...: runs the test in a fresh temp dir and
# writes its report to $res/ID.out, its counts ("passed failed skipped")
# to $res/ID.cnt, then $res/ID.fin and $res/ID.done last: the markers
# reap and report wait for (each removes its own, so neither can hide a
# finished test from the other).
run_one() {
  id=$1; b=$2; name=$3; shift 3
  build_env "$b"
  out="$res/$id.log"; t=$(mktemp -d)
  echo "$t" >"$res/$id.tdir"
  t0=$(date +%s)
  # A hung test must fail, not stall CI: each script gets TEST_TIMEOUT seconds.
  (cd "$t" && T="$t" exec timeout -k 10 "${TEST_TIMEOUT:-600}" "$@") >"$out" 2>&1 </dev/null &
  echo $! >"$res/$id.tpid"
  wait $!
  rc=$?
  rm -f "$res/$id.tpid"
  [ "$rc" -eq 124 ] && echo "not ok - $name timed out after ${TEST_TIMEOUT:-600} s" >>"$out"
  dur=$(( $(date +%s) - t0 ))
  p=$(grep -c '^ok ' "$out"); f=$(grep -c '^not ok ' "$out"); s=$(grep -c '^ok .*# SKIP' "$out")
  p=$((p - s))
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "not ok - $name exited with status $rc" >>"$out"; fi
  {
    if [ "$f" -ne 0 ]; then
      echo "FAIL [$b] $name (${dur}s)"; sed 's/^/    /' "$out"
    else
      echo "pass [$b] $name: $p passed${s:+, $s skipped} (${dur}s)" | sed 's/, 0 skipped//'
      grep '^# ' "$out" | sed 's/^/    /'    # what the test says it used (e.g. which headers)
      [ -n "${VERBOSE:-}" ] && sed 's/^/    /' "$out"
    fi
  } >"$res/$id.out"
  echo "$p $f $s [$b]$name" >"$res/$id.cnt"
  rm -rf "$out" "$t" "$res/$id.tdir"
  : >"$res/$id.fin"    # for reap
  : >"$res/$id.done"   # for report
}

# report: prints, in start order, every finished test whose predecessors
# have all been printed, and adds up its counts.
report() {
  while [ "$printed" -lt "$launched" ] && [ -e "$res/$printed.done" ]; do
    cat "$res/$printed.out"
    read -r p f s n <"$res/$printed.cnt"
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
    [ "$f" -ne 0 ] && failed_names="$failed_names $n"
    rm -f "$res/$printed.out" "$res/$printed.cnt" "$res/$printed.done"
    printed=$((printed + 1))
  done
}

# reap: forgets (and waits for) the started tests that have finished.
reap() {
  left=""
  for r in $running; do
    if [ -e "$res/${r%%:*}.fin" ]; then wait "${r#*:}" 2>/dev/null; rm -f "$res/${r%%:*}.fin"
    else left="$left $r"; fi
  done
  running=$left
}
nrunning() { set -- $running; echo $#; }

# start BUILD NAME CMD...: starts the test in the background once fewer
# than JOBS are running.
start() {
  while [ "$(nrunning)" -ge "$JOBS" ]; do
    sleep 0.1; reap; report
  done
  run_one "$launched" "$@" &
  running="$running $launched:$!"
  launched=$((launched + 1))
}

# drain: waits until every started test has finished and been printed.
drain() {
  while [ -n "$running" ]; do
    sleep 0.1; reap; report
  done
  report
}

# serial BUILD NAME CMD...: runs the test alone, after the others finished.
serial() {
  drain
  run_one "$launched" "$@"
  launched=$((launched + 1))
  report
}

# build_env BUILD: the environment every test of BUILD runs in.
build_env() {
  bdir="$root/$1"
  export FLINCH="$bdir/flinch" SIM="$bdir/sim/libnvidia-ml.so.1" BUILD="$bdir" \
         SCENARIOS="$root/sim/scenarios" ROOT="$root" HELPERS="$bdir/tests"
  case "$1" in *asan*) export SANITIZED=1 ;; *) unset SANITIZED ;; esac
  # what needs no flinch build runs once, with the first (python_robust's
  # interpreter matrix)
  if [ "$1" = "$first_build" ]; then export FIRST_BUILD=1; else unset FIRST_BUILD; fi
}

# queue BUILD NAME CMD...: records a test for the batches (the command as
# a quoted line, replayed by run_batches).
queue() {
  case "$2" in *"${FILTER:-}"*) ;; *) return ;; esac
  q=$(printf '%s\n' "$@" | sed "s/'/'\\\\''/g; s/^/'/; s/\$/'/" | tr '\n' ' ')
  if is_serial "$2"; then echo "$q" >>"$res/serial.q"; else echo "$q" >>"$res/parallel.q"; fi
}

run_batches() {
  if [ -f "$res/parallel.q" ]; then
    while IFS= read -r q; do eval "start $q"; done <"$res/parallel.q"
    drain
  fi
  if [ -f "$res/serial.q" ]; then
    while IFS= read -r q; do eval "serial $q"; done <"$res/serial.q"
  fi
  rm -f "$res/parallel.q" "$res/serial.q"
}

for b in "$@"; do
  [ -x "$root/$b/flinch" ] || { echo "tests/run.sh: $root/$b/flinch not built" >&2; exit 2; }
done

# The python3 on PATH may be a version manager's shim (pyenv's is a bash
# script that takes ~0.4 s to pick the interpreter; the suite starts
# python3 thousands of times). Ask it once which interpreter it runs and
# put a two-line wrapper for that interpreter first on PATH: the tests get
# the same python3, without the shim's cost on every start.
py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
if [ -n "$py" ] && [ -x "$py" ] && [ "$py" != "$(command -v python3)" ]; then
  mkdir -p "$res/bin"
  printf '#!/bin/sh\nexec "%s" "$@"\n' "$py" >"$res/bin/python3"
  chmod +x "$res/bin/python3"
  PATH="$res/bin:$PATH"; export PATH
fi
# memcheck: representative commands under valgrind, on the first build
# (valgrind cannot run the sanitized one). Started first: it is one of the
# longest.
if [ $# -gt 0 ] && command -v valgrind >/dev/null 2>&1; then
  queue "$1" memcheck bash "$root/tests/valgrind.sh" "$1"
fi
for b in "$@"; do
  for u in "$root/$b"/tests/test_*; do
    [ -x "$u" ] || continue
    queue "$b" "$(basename "$u")" "$u"
  done
  for e in "$root"/tests/e2e/*.sh; do
    [ -f "$e" ] || continue
    [ "$b" != "$first_build" ] && is_once "$(basename "$e" .sh)" && continue
    queue "$b" "$(basename "$e" .sh)" bash "$e"
  done
done
run_batches

if ! command -v valgrind >/dev/null 2>&1; then
  case memcheck in *"${FILTER:-}"*)
    echo "skip [$1] memcheck: valgrind not installed"; skipped=$((skipped + 1)) ;; esac
fi

[ -n "$failed_names" ] && echo "failed:$failed_names"
if [ "$skipped" -gt 0 ]; then
  echo "$passed passed, $failed failed, $skipped skipped"
else
  echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
