#!/bin/bash
# tests/valgrind.sh [BUILD] — `make valgrind`: runs representative flinch
# commands under valgrind memcheck; each must show no memory error and no
# definite or indirect leak (--errors-for-leak-kinds=definite,indirect
# --error-exitcode=99). Prints one ok/not ok line per command and
# "N passed, N failed"; a failure shows valgrind's log. Needs valgrind
# (tests/setup-deps.sh installs it when run as root).
root=$(cd "$(dirname "$0")/.." && pwd)
b=$root/${1:-build}
FLINCH=$b/flinch SIM=$b/sim/libnvidia-ml.so.1 H=$b/tests SCN=$root/sim/scenarios
command -v valgrind >/dev/null 2>&1 || { echo "valgrind.sh: valgrind not installed (tests/setup-deps.sh)"; exit 2; }
[ -x "$FLINCH" ] || { echo "valgrind.sh: $FLINCH not built"; exit 2; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT; cd "$T" || exit 2
passed=0; failed=0

# vg NAME WANT_STATUS CMD...: the command under memcheck; its own exit
# status must be WANT_STATUS (99 means valgrind found something).
vg() {
  name=$1; want=$2; shift 2
  valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99 \
    --log-file=vg.log "$@" >out.txt 2>err.txt
  rc=$?
  if [ "$rc" = "$want" ] && [ ! -s vg.log ]; then
    echo "ok - $name"; passed=$((passed + 1))
  else
    echo "not ok - $name (exit $rc, want $want)"; failed=$((failed + 1))
    sed 's/^/    /' vg.log err.txt | head -60
  fi
}

export FLINCH_SIM_SCENARIO=$SCN/demo.scn
# record 2 s with the marks FIFO; a mark arrives mid-run
( i=0; until [ -p "$T/m.fifo" ] || [ $i -ge 100 ]; do sleep 0.05; i=$((i + 1)); done
  sleep 0.1; "$FLINCH" mark --fifo "$T/m.fifo" infer_start; sleep 0.2;
  "$FLINCH" mark --fifo "$T/m.fifo" first_token ) &
vg "record 2 s on the simulated GPU with marks" 0 "$FLINCH" record --out rec.csv --seconds 2 \
  --interval-ms 10 --marks-fifo "$T/m.fifo" --nvml-lib "$SIM" --no-rapl
wait
vg "record, GPU lost mid-run (exit 3)" 3 env FLINCH_SIM_SCENARIO="$SCN/lost.scn" "$FLINCH" record \
  --out lost.csv --seconds 1 --nvml-lib "$SIM" --no-rapl
printf 'gpus 2\nlatency_us 300\n' > slow2.scn   # slow queries: the recorder switches to worker threads
vg "record two slow GPUs in parallel (worker threads)" 0 env FLINCH_SIM_SCENARIO=slow2.scn \
  "$FLINCH" record --out multi.csv --seconds 1 --gpu all --nvml-lib "$SIM" --no-rapl
vg "record, no driver (exit 2)" 2 env FLINCH_SIM_SCENARIO="$SCN/no_driver.scn" "$FLINCH" record \
  --out nd.csv --seconds 1 --nvml-lib "$SIM"
"$H/gen_trace" --rows 2000 --windows 5 --out gen.csv
vg "analyze a generated trace (text, windows)" 0 "$FLINCH" analyze --csv gen.csv --start infer_start \
  --end first_token --windows
vg "analyze a generated trace (json)" 0 "$FLINCH" analyze --csv gen.csv --start infer_start \
  --end first_token --format json
vg "analyze the recording" 0 "$FLINCH" analyze --csv rec.csv --start infer_start --end first_token
printf 't_mono_ns,row_type,label\n1,SAMPLE,\nx,MARK,a\n' > bad.csv
vg "analyze a malformed trace (exit 2)" 2 "$FLINCH" analyze --csv bad.csv --start a --end a
mkfifo lonely.fifo
vg "mark with no reader (exit 1)" 1 "$FLINCH" mark --fifo lonely.fifo hello
if "$FLINCH" plot --help >/dev/null 2>&1; then
  vg "plot the recording" 0 "$FLINCH" plot rec.csv -o rec.svg
fi
if "$FLINCH" export --help >/dev/null 2>&1; then
  vg "export the recording (perfetto)" 0 "$FLINCH" export --format perfetto rec.csv -o rec.json -q
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
