#!/bin/sh
# tests/run.sh BUILD_DIR... — runs every unit test binary and end-to-end
# script against each build, then tests/valgrind.sh (memcheck) against the
# first build, counts "ok" / "not ok" lines, and ends with
# "N passed, N failed" (plus ", N skipped"). Exit status 1 if anything failed.
#
# A test that fails shows its output; a passing one stays quiet unless
# VERBOSE=1. FILTER=pattern runs only tests whose name contains it.
cd "$(dirname "$0")/.." || exit 2
root=$(pwd)
passed=0; failed=0; skipped=0
failed_names=""

run_one() { # build name cmd...
  b=$1; name=$2; shift 2
  case "$name" in *"${FILTER:-}"*) ;; *) return ;; esac
  out=$(mktemp); t=$(mktemp -d)
  start=$(date +%s)
  # A hung test must fail, not stall CI: each script gets TEST_TIMEOUT seconds.
  (cd "$t" && T="$t" timeout -k 10 "${TEST_TIMEOUT:-600}" "$@") >"$out" 2>&1
  rc=$?
  [ "$rc" -eq 124 ] && echo "not ok - $name timed out after ${TEST_TIMEOUT:-600} s" >>"$out"
  dur=$(( $(date +%s) - start ))
  p=$(grep -c '^ok ' "$out"); f=$(grep -c '^not ok ' "$out"); s=$(grep -c '^ok .*# SKIP' "$out")
  p=$((p - s))
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "not ok - $name exited with status $rc" >>"$out"; fi
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
  if [ "$f" -ne 0 ]; then
    echo "FAIL [$b] $name (${dur}s)"; sed 's/^/    /' "$out"
    failed_names="$failed_names [$b]$name"
  else
    echo "pass [$b] $name: $p passed${s:+, $s skipped} (${dur}s)" | sed 's/, 0 skipped//'
    grep '^# ' "$out" | sed 's/^/    /'    # what the test says it used (e.g. which headers)
    [ -n "${VERBOSE:-}" ] && sed 's/^/    /' "$out"
  fi
  rm -rf "$out" "$t"
}

for b in "$@"; do
  bdir="$root/$b"
  [ -x "$bdir/flinch" ] || { echo "tests/run.sh: $bdir/flinch not built" >&2; exit 2; }
  export FLINCH="$bdir/flinch" SIM="$bdir/sim/libnvidia-ml.so.1" BUILD="$bdir" \
         SCENARIOS="$root/sim/scenarios" ROOT="$root" HELPERS="$bdir/tests"
  case "$b" in *asan*) export SANITIZED=1 ;; *) unset SANITIZED ;; esac
  for u in "$bdir"/tests/test_*; do
    [ -x "$u" ] || continue
    run_one "$b" "$(basename "$u")" "$u"
  done
  for e in "$root"/tests/e2e/*.sh; do
    [ -f "$e" ] || continue
    run_one "$b" "$(basename "$e" .sh)" bash "$e"
  done
done

# memcheck: representative commands under valgrind, on the first build
# (valgrind cannot run the sanitized one).
if command -v valgrind >/dev/null 2>&1; then
  run_one "$1" memcheck bash "$root/tests/valgrind.sh" "$1"
else
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
