# bench/lib.sh — sourced by the bench scripts (POSIX sh).
#
# Sets FLINCH, SIM, SIM_LEGACY, HELPERS from the build dir in $1 and makes a
# scratch dir $W (removed on exit; BENCH_KEEP=1 keeps it). Tables are
# printed as Markdown so they paste into BENCHMARKS.md unchanged.

bench_init() {
  BUILD=${1:-build}
  case "$BUILD" in /*) ;; *) BUILD="$(pwd)/$BUILD" ;; esac
  FLINCH="$BUILD/flinch"
  SIM="$BUILD/sim/libnvidia-ml.so.1"
  HELPERS="$BUILD/tests"
  RUNSTAT="$HELPERS/runstat"
  for f in "$FLINCH" "$SIM" "$RUNSTAT"; do
    [ -x "$f" ] || [ -f "$f" ] || { echo "bench: $f not built (run: sh bench/run.sh $BUILD)" >&2; exit 2; }
  done
  W=$(mktemp -d "${TMPDIR:-/tmp}/flinch-bench.XXXXXX") || exit 2
  if [ -z "${BENCH_KEEP:-}" ]; then
    trap 'rm -rf "$W"' EXIT
    trap 'rm -rf "$W"; exit 130' INT TERM
  else
    echo "bench: scratch files kept in $W" >&2
  fi
}

# stat_field STATFILE KEY: one value from a runstat line (key=value ...).
stat_field() {
  tr ' ' '\n' <"$1" | sed -n "s/^$2=//p"
}

# stat_cpu_us STATFILE: user + sys CPU time of a runstat line, microseconds.
stat_cpu_us() {
  echo $(( $(stat_field "$1" user_us) + $(stat_field "$1" sys_us) ))
}

# calc EXPR [FORMAT]: floating-point arithmetic through awk.
calc() {
  awk "BEGIN { printf \"${2:-%.3f}\", $1 }"
}

# verdict COND: "pass" when the awk condition COND holds, else "FAIL".
verdict() {
  if awk "BEGIN { exit !($1) }"; then echo pass; else echo FAIL; fi
}
