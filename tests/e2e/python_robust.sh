# python_robust.sh — python/flinch.py never kills, blocks or confuses the
# program it observes: tests/python/robust_checks.py's groups (SIGPIPE,
# signal handlers that mark, one window shared by threads and tasks, huge
# labels, the default FIFO) on every Python >= 3.8 found on PATH and in
# pyenv, each 3.8 to 3.13 missing a skip; then, under `flinch record` with
# python3: a SIGPIPE-default program outlives its recorder, a shared
# window's ranges have the durations analyze reports, huge labels are cut
# in the trace and return at once.
. "$ROOT/tests/lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
  skip "python helper robustness" "python3 missing"
  done_testing
fi
export PYTHONPATH="$ROOT/python"
checks="$ROOT/tests/python/robust_checks.py"

# --- every interpreter: one line "VERSION REALPATH" each, the same binary once ---
# The groups are Python alone (no flinch build runs them): with the first
# build only (tests/run.sh, FIRST_BUILD); the recordings below run with each.
: >pythons.txt
if [ -n "${FIRST_BUILD:-}" ]; then
  {
    command -v python3
    for d in $(echo "$PATH" | tr ':' ' '); do ls "$d"/python3.[0-9]* 2>/dev/null; done
    ls "$HOME"/.pyenv/versions/*/bin/python 2>/dev/null
  } | grep -v -- '-config$\|m$' | while read -r py; do
    [ -x "$py" ] && "$py" -c 'import os, sys; sys.stdout.write("%d.%d %s\n" % (sys.version_info[0], sys.version_info[1], os.path.realpath(sys.executable)))' 2>/dev/null
  done | sort -u -k2,2 | sort -t. -k1,1n -k2,2n >pythons.txt
  for minor in 8 9 10 11 12 13; do
    grep -q "^3\.$minor " pythons.txt || skip "python 3.$minor" "not installed (PATH, ~/.pyenv)"
  done
else
  echo "# the interpreter matrix runs with the first build only"
fi
n=0
while read -r ver py; do
  case "$ver" in 2.*|3.[0-7]) echo "# $py: $ver is below requires-python >=3.8, not run"; continue ;; esac
  echo "# $py ($ver)"
  n=$((n + 1))
  for group in sigpipe handler windows labels default; do
    d="$T/py$n-$ver-$group"; mkdir -p "$d"   # two builds of one version: a directory each
    timeout 20 "$py" "$checks" "$group" "$d" >"$d.out" 2>&1
    rc=$?
    grep '^ok \|^not ok ' "$d.out"
    if [ "$rc" -ne 0 ] || ! grep -q "^done $group\$" "$d.out"; then
      notok "py$ver $group: finished (exit status $rc)"
      grep -v '^ok \|^not ok ' "$d.out" | head -30 | sed 's/^/    /' >&2
    fi
  done
done <pythons.txt

# --- under a recorder, with python3 ---
recbg() {  # recbg OUT.csv [record options]: in the background, $! is flinch itself
  out=$1; shift
  ( exec env FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" "$FLINCH" record -q --out "$out" --interval-ms 10 \
    --nvml-lib "$SIM" --no-rapl "$@" ) &
}
rec() {  # rec OUT.csv [record options] [-- CMD...]
  out=$1; shift
  FLINCH_SIM_SCENARIO="$SCENARIOS/demo.scn" "$FLINCH" record -q --out "$out" --interval-ms 10 \
    --nvml-lib "$SIM" --no-rapl "$@"
}
count() { python3 -c 'import csv, sys
print(sum(1 for r in csv.reader(open(sys.argv[1])) if len(r) > 3 and r[2] == "MARK" and r[3] == sys.argv[2]))' "$@"; }

# SIGPIPE at its default action, a mark every 50 ms from two threads: the
# recorder stops, the program lives on and exits 0
cat > sigpipe_app.py <<'EOF'
import os, signal, threading, time, flinch
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
def ticks(label):
    deadline = time.monotonic() + 15
    while not os.path.exists("stop") and time.monotonic() < deadline:
        flinch.mark(label)
        time.sleep(0.05)
t = threading.Thread(target=ticks, args=("thread_tick",))
t.start()
ticks("tick")
t.join()
print("ok", flinch.stats())
EOF
recbg sp.csv --seconds 0 --marks-fifo "$T/sp.fifo" 2>/dev/null
r=$!
i=0; while ! grep -q ',MARK,"begin",' sp.csv 2>/dev/null && [ $i -lt 500 ]; do sleep 0.01; i=$((i+1)); done
FLINCH_MARKS="$T/sp.fifo" python3 sigpipe_app.py >sp.out 2>&1 &
py=$!
i=0; while [ "$(count sp.csv tick)" -lt 3 ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
kill -TERM $r; wait $r
sleep 0.5                               # ~10 marks a thread with no reader
touch stop
wait $py
expect_eq "SIGPIPE default, the recorder stopped: the program lives on (exit 0)" "$?:$(cut -c1-2 sp.out)" "0:ok"
expect_match "SIGPIPE default: marks after the recorder stopped counted undelivered" \
  "'undelivered': [1-9]" "$(cat sp.out)"
check "SIGPIPE default: the marks before it are in the trace" test "$(count sp.csv tick)" -ge 3

# one window object, two threads, then two asyncio tasks: B starts 0.1 s
# after A; A's range lasts 0.2 s, B's 0.3 s (paired wrongly: 0.4 s and 0.1 s)
cat > windows_app.py <<'EOF'
import asyncio, threading, time, flinch
w = flinch.window("tw")
def a():
    with w:
        time.sleep(0.2)
def b():
    time.sleep(0.1)
    with w:
        time.sleep(0.3)
ts = [threading.Thread(target=a), threading.Thread(target=b)]
for t in ts: t.start()
for t in ts: t.join()
aw = flinch.window("aw")
async def ta():
    with aw:
        await asyncio.sleep(0.2)
async def tb():
    await asyncio.sleep(0.1)
    with aw:
        await asyncio.sleep(0.3)
async def main():
    await asyncio.gather(ta(), tb())
asyncio.run(main())
print("ok", flinch.stats())
EOF
rec win.csv -- python3 windows_app.py >win.out 2>&1
expect_eq "shared windows: exit 0, every mark delivered" "$?:$(cat win.out)" "0:ok {'delivered': 8, 'undelivered': 0}"
for r in tw aw; do
  d=$("$FLINCH" analyze --csv win.csv --range $r --format csv |
      python3 -c 'import csv, sys; print(" ".join(r["duration_s"] for r in csv.DictReader(sys.stdin)))')
  check "$r: A's range 0.2 s, B's 0.3 s, in order of start ($d)" \
    awk -v d="$d" 'BEGIN { n = split(d, a, " "); exit !(n == 2 && a[1] >= 0.195 && a[1] < 0.29 && a[2] >= 0.295 && a[2] < 0.39) }'
done
pairs=$(python3 -c 'import csv, sys
tids = {}
for r in csv.reader(open(sys.argv[1])):
    if len(r) > 23 and r[2] == "MARK" and r[3] == "tw":
        a = dict(kv.split("=", 1) for kv in r[23].split(" "))
        tids.setdefault(a.get("start") or a.get("end"), []).append(a["tid"])
print(" ".join("same" if len(v) == 2 and v[0] == v[1] else "differ" for v in tids.values()))' win.csv)
expect_eq "tw: each range id starts and ends on one thread" "$pairs" "same same"

# huge labels: return at once, recorded cut
cat > labels_app.py <<'EOF'
import time, flinch
flinch.mark("warm")
big, bad = "x" * 10 ** 7, b"\xff" * 10 ** 7
t0 = time.perf_counter(); flinch.mark(big); t1 = time.perf_counter(); flinch.mark(bad); t2 = time.perf_counter()
print("%.0f %.0f" % ((t1 - t0) * 1e6, (t2 - t1) * 1e6))
EOF
out=$(rec big.csv -- python3 labels_app.py 2>err.txt)
expect_eq "huge labels: exit 0, quiet" "$?:$(cat err.txt)" "0:"
set -- $out
check "10**7 characters: ${1:-?} us, 10 MB of invalid UTF-8: ${2:-?} us (each < 100 ms)" \
  test "${1:-999999}" -lt 100000 -a "${2:-999999}" -lt 100000
labels=$(python3 -c 'import csv, sys
for r in csv.reader(open(sys.argv[1], encoding="utf-8")):
    if len(r) > 3 and r[2] == "MARK" and r[3] not in ("begin", "end", "warm"):
        print(r[3] == "x" * 253 + "..." and "x_cut" or r[3] == "\ufffd" * 84 + "..." and "bad_cut" or repr(r[3][:20]))' big.csv | tr '\n' ' ')
expect_eq "huge labels recorded cut to 256 bytes" "$labels" "x_cut bad_cut "

done_testing
