#!/bin/bash
# bench/compare_outputs.sh OLD_FLINCH NEW_FLINCH [BUILD] — the outputs of two
# flinch binaries side by side, for a change that must keep them byte for
# byte (a faster reader, one pass instead of three): `analyze` (text, the
# --windows table, JSON, CSV), `plot` and `export` (to a file and to
# standard output, default and explicit windows, --no-windows, a zoom,
# stdin, two hosts) on every trace of tests/fixtures, every file of the
# fuzz corpora (most are not traces: their errors are compared), traces
# from gen_trace (BUILD/tests, default build) of several shapes,
# recordings of the simulator's scenarios, and traces made awkward on
# purpose (cut short, two recordings whose clock restarted, a MARK later
# than the last row, rows out of order).
# Compared: exit status, standard output, the output file, and standard
# error with repeated adjacent lines counted once (a trace read once warns
# once where one read three times warned three times). Prints one line per
# difference and the count compared; exit 1 when anything differs.
# Not part of `make bench`: run it by hand with the parent commit's binary.
set -u
old=$(realpath "$1") new=$(realpath "$2")
cd "$(dirname "$0")/.." || exit 2
root=$(pwd)
build=${3:-build}
gen="$root/$build/tests/gen_trace"
sim="$root/$build/sim/libnvidia-ml.so.1"
W=$(mktemp -d /tmp/flinch-compare.XXXXXX)
trap 'rm -rf "$W"' EXIT
T="$W/traces"
mkdir -p "$T"

# the corpus
for f in tests/fixtures/*.csv; do cp "$f" "$T/fix_$(basename "$f")"; done
for f in tests/fixtures/*.threads; do cp "$f" "$T/fix_$(basename "$f")"; done
for d in tests/fuzz/corpus/*; do
  for f in "$d"/*; do cp "$f" "$T/fuzz_$(basename "$d")_$(basename "$f").csv"; done
done
if [ -x "$gen" ]; then
  for spec in "1 0" "4 1" "50 1" "1000 3" "20000 1" "20000 200" "100000 1"; do
    set -- $spec
    "$gen" --rows "$1" --windows "$2" --out "$T/gen_$1_$2.csv"
    "$gen" --rows "$1" --windows "$2" --original --out "$T/gen_orig_$1_$2.csv"
  done
  "$gen" --rows 5000 --windows 4 --no-rapl --seed 7 --out "$T/gen_norapl.csv"
  "$gen" --rows 5000 --windows 4 --start-label a --end-label b --out "$T/gen_ab.csv"
  "$gen" --rows 3000 --windows 2 --interval-ms 86 --out "$T/gen_86ms.csv"
  # the energy counter held to 100 ms steps, as an H100's moves: each edge
  # waits ~100 rows for the estimate (bench/analyze_bench.sh's step100)
  awk -F, -v OFS=, 'NR > 1 && $3 == "SAMPLE" && $12 != "" { s = int($1 / 1e8); if (s != last) { held = $12; last = s } $12 = held } { print }' \
    "$T/gen_20000_200.csv" >"$T/gen_100ms.csv"
  # cut short (no newline), two recordings whose clock restarted, a MARK
  # later than the last row written early, marks out of order
  head -c 300000 "$T/gen_20000_1.csv" >"$T/odd_cut.csv"
  cat "$T/gen_1000_3.csv" >"$T/odd_two.csv"; tail -n +2 "$T/gen_1000_3.csv" >>"$T/odd_two.csv"
  { head -n 3 "$T/gen_1000_3.csv"
    head -n 2 "$T/gen_1000_3.csv" | tail -n 1 | sed 's/^[0-9]*,[0-9]*,/99000000000000,1799000000000000000,/; s/,begin,/,late,/'
    tail -n +4 "$T/gen_1000_3.csv"; } >"$T/odd_late_mark.csv"
  { head -n 1 "$T/gen_1000_3.csv"; tail -n +2 "$T/gen_1000_3.csv" | sort -t, -k3,3 -s; } >"$T/odd_sorted.csv"
  # past the first rows export guesses from: a MARK earlier than them all,
  # the recorder's host name
  mark=$(head -n 2 "$T/gen_20000_1.csv" | tail -n 1)
  { head -n 10000 "$T/gen_20000_1.csv"
    echo "$mark" | sed 's/^[0-9]*,[0-9]*,/5,1699999000000000005,/; s/,begin,/,early,/'
    tail -n +10001 "$T/gen_20000_1.csv"; } >"$T/odd_early_mark.csv"
  { head -n 10000 "$T/gen_20000_1.csv"
    echo "$mark" | sed 's/,MARK,begin,/,EVENT,flinch_host name=late-node driver=1,/'
    tail -n +10001 "$T/gen_20000_1.csv"; } >"$T/odd_late_host.csv"
fi
if [ -f "$sim" ]; then
  for scn in sim/scenarios/*.scn tests/fixtures/*.scn; do
    b=$(basename "$scn" .scn)
    FLINCH_SIM_VIRTUAL_TIME=1 FLINCH_SIM_SCENARIO="$scn" timeout 60 "$new" record \
      --out "$T/rec_$b.csv" --nvml-lib "$sim" --no-rapl -q --interval-ms 10 --no-dither \
      --seconds 2 2>/dev/null
    [ -s "$T/rec_$b.csv" ] || rm -f "$T/rec_$b.csv"
  done
fi

n=0 bad=0
# run NAME ARGS...: both binaries in their own directory; OUT in ARGS is
# the output file, IN the trace (or -, with the trace on stdin)
run() {
  name=$1; shift
  for which in old new; do
    bin=$old; [ "$which" = new ] && bin=$new
    d="$W/$which"; rm -rf "$d"; mkdir -p "$d"
    args=()
    for a in "$@"; do args+=("${a//OUT/$d/out}"); done
    if [ -n "${PIPE:-}" ]; then   # standard output a pipe, not a file
      (cd "$d" && { "$bin" "${args[@]}" 2>stderr </dev/null; echo $? >rc; } | cat >stdout)
    elif [ -n "${STDIN:-}" ]; then
      (cd "$d" && "$bin" "${args[@]}" <"$STDIN" >stdout 2>stderr; echo $? >rc)
    else
      (cd "$d" && "$bin" "${args[@]}" >stdout 2>stderr </dev/null; echo $? >rc)
    fi
    sed "s#$d/out#OUT#g" "$d/stderr" | uniq >"$d/stderr.u"
  done
  n=$((n + 1))
  for f in rc stdout stderr.u out; do
    if [ -e "$W/old/$f" ] || [ -e "$W/new/$f" ]; then
      if ! cmp -s "$W/old/$f" "$W/new/$f"; then
        bad=$((bad + 1))
        echo "DIFFERS ($f): $name: $*"
        break
      fi
    fi
  done
}

for t in "$T"/*.csv; do
  b=$(basename "$t")
  run "$b" analyze --csv "$t"
  run "$b" analyze --csv "$t" --start infer_start --end first_token --format json
  run "$b" analyze --csv "$t" --start begin --end end --format csv
  run "$b" analyze --csv "$t" --start infer_start --end first_token --windows
  run "$b" plot "$t" -o OUT
  run "$b" plot "$t" -o -
  run "$b" plot "$t" -o OUT --start begin --end end --width 700
  run "$b" plot "$t" -o OUT --no-windows --from 0.5 --to 3
  run "$b" plot "$t" -o OUT --from 2
  run "$b" export "$t" -o OUT
  run "$b" export "$t" -o -
  run "$b" export "$t" -o OUT --start begin --end end
  run "$b" export "$t" -o OUT --no-windows
  run "$b" export "node=$t" "$root/tests/fixtures/host_b.csv" -o OUT
  STDIN=$t run "$b (stdin)" plot - -o OUT
  STDIN=$t run "$b (stdin)" export - -o -
  PIPE=1 run "$b (pipe)" export "$t" -o -
  PIPE=1 run "$b (pipe)" export "$t" -o - --start begin --end end
done
echo "compared: $n runs of old and new on $(ls "$T"/*.csv | wc -l) traces; $bad differ"
[ "$bad" -eq 0 ]
