# python_interrupted.sh — python/flinch.py: a window left by an exception
# ends with interrupted=exception (keyboard for KeyboardInterrupt, cancelled
# for a cancelled asyncio task), in the `with` and the decorator forms, sync
# and async; the recorder keeps the attribute; analyze flags the window
# `interrupted` in text, JSON and CSV, and the verdict stands.
. "$ROOT/tests/lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
  skip "python interrupted" "python3 missing"
  done_testing
fi
export PYTHONPATH="$ROOT/python"
cat > intr.py <<'PY'
import asyncio, time, flinch
def boom():
    with flinch.window("w_exc"):
        time.sleep(0.1)
        raise ValueError("x")
try: boom()
except ValueError: pass
try:
    with flinch.window("w_kbd"):
        time.sleep(0.1)
        raise KeyboardInterrupt
except KeyboardInterrupt: pass
with flinch.window("w_ok"):
    time.sleep(0.1)
@flinch.window("d_exc")
def f():
    time.sleep(0.1); raise RuntimeError
try: f()
except RuntimeError: pass
@flinch.window("d_ok")
def g():
    time.sleep(0.1); return 7
assert g() == 7
@flinch.window("a_exc")
async def h():
    await asyncio.sleep(0.1); raise OSError
@flinch.window("a_cancel")
async def k():
    await asyncio.sleep(10)
@flinch.window("a_ok")
async def ok():
    await asyncio.sleep(0.1); return 8
async def main():
    try: await h()
    except OSError: pass
    t = asyncio.ensure_future(k()); await asyncio.sleep(0.1); t.cancel()
    try: await t
    except asyncio.CancelledError: pass
    assert await ok() == 8
asyncio.run(main())
print("done")
PY
# An idle GPU throughout (waiting.scn): each window is "waiting" whenever
# it falls (on demo.scn a slow start put the last ones in its compute part).
# Each lasts 100 ms, ten ticks: at 30 ms an ASan run beside the other tests
# saw fewer than two samples in one (few-samples, inconclusive).
out=$(FLINCH_SIM_SCENARIO="$SCENARIOS/waiting.scn" "$FLINCH" record -q --out t.csv --interval-ms 10 \
  --nvml-lib "$SIM" --no-rapl -- python3 intr.py 2>err.txt)
expect_eq "record: exit 0, the program ran to its end, quiet" "$?:$out:$(cat err.txt)" "0:done:"
expect_eq "end marks: interrupted=WHY after the other attributes, only where an exception left" \
  "$(sed 's/"//g' t.csv | awk -F, '$3 == "MARK" && $24 ~ /^end=/ { a = $24; sub(/^end=[0-9.]* tid=[0-9]*/, "", a); print $4 a }' | tr '\n' '|')" \
  "w_exc interrupted=exception|w_kbd interrupted=keyboard|w_ok|d_exc interrupted=exception|d_ok|a_exc interrupted=exception|a_cancel interrupted=cancelled|a_ok|"
for r in w_exc w_kbd w_ok d_exc d_ok a_exc a_cancel a_ok; do
  text=$("$FLINCH" analyze --csv t.csv --range $r 2>&1 | grep '^window 1:' | sed 's/.*)//')
  json=$("$FLINCH" analyze --csv t.csv --range $r --format json 2>&1 | grep -o '"flags":"[^"]*"' | head -1)
  csv=$("$FLINCH" analyze --csv t.csv --range $r --format csv 2>&1 | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "flags") c = i } NR == 2 { print $c }')
  # the GPU side only: the windows are Python's own work (raising, catching), and
  # on a loaded host its CPU or the host's made a window host-cpu or mixed
  verdict=$("$FLINCH" analyze --csv t.csv --range $r --format csv --proc-busy-cores 1000 \
    --cpu-busy-pct 101 2>&1 | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "verdict") c = i } NR == 2 { print $c }')
  case $r in *_ok) want_t=""; want_j='"flags":""'; want_c="";;
             *) want_t="  flags: interrupted"; want_j='"flags":"interrupted"'; want_c="interrupted";; esac
  expect_eq "$r: text, JSON, CSV flags" "$text|$json|$csv" "$want_t|$want_j|$want_c"
  expect_eq "$r: interrupted is not inconclusive" "$verdict" "waiting"
done

# the protocol: interrupted= only with end=, 1..32 bytes of the id alphabet
mkfifo -m 600 p.fifo
FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" "$FLINCH" record -q --out p.csv --interval-ms 10 \
  --nvml-lib "$SIM" --no-rapl --marks-fifo p.fifo --seconds 5 2>perr.txt &
rp=$!
wait_for 250 grep -qs ',MARK,"begin",' p.csv
now=$(python3 -c 'import time; print(time.monotonic_ns())')
timeout 5 printf 'r\t%s\tstart=9.1\nr\t%s\tend=9.1 interrupted=oom_killed\nq\t%s\tstart=9.2 interrupted=x\nq\t%s\tend=9.2 interrupted=%s\nq\t%s\tend=9.2 interrupted=a interrupted=b\n' \
  "$now" "$now" "$now" "$now" "$(printf 'x%.0s' $(seq 33))" "$now" > p.fifo
sleep 0.3; kill -INT $rp; wait $rp
expect_eq "protocol: interrupted=WHY kept on an end; refused on a start, over 32 bytes, twice" \
  "$(grep -c ',MARK,"r",' p.csv):$(grep -c 'interrupted=oom_killed' p.csv):$(grep -c ',MARK,"q",' p.csv):$(grep -c 'attributes after the second tab' perr.txt)" \
  "2:1:0:3"
expect_eq "analyze reads any WHY as interrupted (a zero-length window: its other flags too)" \
  "$("$FLINCH" analyze --csv p.csv --range r 2>/dev/null | grep '^window 1:' | sed 's/.*)//')" \
  "  flags: few-samples,under-counter-step,interrupted"
done_testing
