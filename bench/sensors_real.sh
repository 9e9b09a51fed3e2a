#!/bin/sh
# bench/sensors_real.sh [BUILD] — measure a real NVIDIA GPU's sensors (issue 10).
#
# Runs a square-wave GPU load of known period (PyTorch matrix products when
# `import torch` sees a GPU, else a small CUDA spin kernel built with nvcc),
# records it with flinch at 2 ms with --dither, and prints a Markdown table:
# for the energy counter, instantaneous power (field 186), averaged power
# (nvmlDeviceGetPowerUsage), utilization, the GpuIdle clock-event reason and
# the SM clock, the update period, the averaging window and the lag after a
# load edge, all measured from the
# trace against the load's own edges (client-stamped marks); the energy
# counter against the known load (busy and idle power, counter vs instant
# power over the whole run); what the driver's per-field timestamps mean
# (the time of the read, or of the sensor's update: against the row's own
# stamp); and the latency of every NVML call flinch
# record makes per sample (median and p99 of 200 calls, through simtool's
# dlopen path). Takes about 2 minutes; under 5 by construction.
#
# Environment: GPU (index, default 0), LOAD (torch|cuda, default: torch
# when it sees a GPU, else cuda), NVML_LIB (default libnvidia-ml.so.1),
# SENSORS_KEEP=1 keeps the scratch dir (trace.csv, load script),
# SENSORS_OUT=DIR also leaves the raw material there for a later analysis
# (trace.csv.gz, analyze.json, latency.txt, record.err, and the table as
# sensors_real.md), e.g. a device machine's $OUT,
# SENSORS_LOAD_CMD runs that command as the load instead (it must write the
# same marks; used to check this script against the simulated NVML).
# Needs no network: python3 with PyTorch (or nvcc), make, cc, nvidia-smi.
# NVML_LIB unset and libnvidia-ml.so.1 not on the loader's path: the
# driver's usual folders are tried (/usr/local/nvidia/lib64 in containers).
# Exit status: 0 measured; 2 no NVIDIA GPU, driver or load generator on
# this host (nothing was run); 1 a step failed.
#
# What to do with the figures: put them in BENCHMARKS.md, and set the
# simulator's `h100` preset (sim/sensor_model.c, sim/SCENARIO.md) from them.
cd "$(dirname "$0")/.." || exit 2
B=${1:-build}
GPU=${GPU:-0}
NVML_LIB=${NVML_LIB:-libnvidia-ml.so.1}

no_gpu() {
  echo "sensors_real: $1" >&2
  echo "sensors_real: this script measures a real GPU's sensors and needs an NVIDIA GPU with its driver;" \
       "nothing was run. On a GPU host: sh bench/sensors_real.sh build" >&2
  exit 2
}

command -v nvidia-smi >/dev/null 2>&1 || no_gpu "nvidia-smi not found (no NVIDIA driver on this host)"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "$gpus" -gt 0 ] 2>/dev/null || no_gpu "nvidia-smi lists no GPU"
[ "$GPU" -lt "$gpus" ] 2>/dev/null || no_gpu "GPU $GPU: nvidia-smi lists only $gpus GPU(s)"
command -v python3 >/dev/null 2>&1 || no_gpu "python3 not found (needed for the analysis)"
# make with the build dir as given (its dependency files name their targets
# that way), absolute paths after that
make --no-print-directory -s -j"$(nproc 2>/dev/null || echo 2)" BUILD="$B" tests >/dev/null ||
  { echo "sensors_real: build failed" >&2; exit 1; }
case "$B" in /*) ;; *) B="$(pwd)/$B" ;; esac
FLINCH="$B/flinch"
SIMTOOL="$B/tests/simtool"
# a container's driver folder is often not on the loader's path
if [ "$NVML_LIB" = libnvidia-ml.so.1 ] &&
   ! "$SIMTOOL" --lib "$NVML_LIB" query count 2>/dev/null | grep -q '^count [1-9]'; then
  for lib in /usr/local/nvidia/lib64/libnvidia-ml.so.1 /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1 \
             /usr/lib/aarch64-linux-gnu/libnvidia-ml.so.1 /usr/lib64/libnvidia-ml.so.1; do
    if [ -e "$lib" ] && "$SIMTOOL" --lib "$lib" query count 2>/dev/null | grep -q '^count [1-9]'; then
      NVML_LIB=$lib
      break
    fi
  done
fi
if ! "$SIMTOOL" --lib "$NVML_LIB" query count 2>/dev/null | grep -q '^count [1-9]'; then
  no_gpu "NVML ($NVML_LIB) does not load or reports no GPU: $("$SIMTOOL" --lib "$NVML_LIB" query count 2>&1 | head -n 1)"
fi

LOAD=${LOAD:-}
[ -n "${SENSORS_LOAD_CMD:-}" ] && LOAD="command"
if [ -z "$LOAD" ]; then
  if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    LOAD=torch
  elif command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
    LOAD=cuda
  else
    no_gpu "no load generator: neither PyTorch with CUDA nor nvcc is available"
  fi
fi

W=$(mktemp -d "${TMPDIR:-/tmp}/flinch-sensors.XXXXXX") || exit 1
if [ -z "${SENSORS_KEEP:-}" ]; then trap 'rm -rf "$W"' EXIT; else echo "sensors_real: keeping $W" >&2; fi

# The load: a warm-up, then phases of square waves, each edge marked with
# its CLOCK_MONOTONIC time after the GPU really started/stopped (synchronize):
#   fast: 40 cycles of 205 ms busy / 205 ms idle   (periods, windows, lags;
#         410 ms is no multiple of a 100 ms refresh: the edges fall at
#         every offset of a sensor's grid)
#   slow: 10 cycles of 2 s busy / 2 s idle         (the 1 s average, levels)
# Marks: busy / idle at each edge; phase_fast, phase_slow, load_end.
cat >"$W/load.py" <<'PY'
import os, sys, time
import torch
dev = torch.device("cuda", int(os.environ.get("GPU", "0")))
fd = os.open(os.environ["FLINCH_MARKS"], os.O_WRONLY | os.O_NONBLOCK)
def mark(label):
    os.write(fd, b"\n%s\t%d\n" % (label.encode(), time.monotonic_ns()))
a = torch.randn(8192, 8192, device=dev, dtype=torch.float16)
b = torch.randn(8192, 8192, device=dev, dtype=torch.float16)
def busy(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for _ in range(4):
            torch.mm(a, b)
        torch.cuda.synchronize(dev)
busy(2.0)                      # warm-up: clocks and power up
time.sleep(2.0)
for phase, half, cycles in (("fast", 0.205, 40), ("slow", 2.0, 10)):
    mark("phase_" + phase)
    for _ in range(cycles):
        torch.cuda.synchronize(dev)
        mark("busy")
        busy(half)
        mark("idle")
        time.sleep(half)
mark("load_end")
time.sleep(1.5)
PY

cat >"$W/load.cu" <<'CU'
#include <cuda_runtime.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
static int fd;
static long long now_ns(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000LL + t.tv_nsec; }
static void mark(const char *l) { char b[96]; int n = snprintf(b, sizeof b, "\n%s\t%lld\n", l, now_ns()); if (write(fd, b, n) < 0) perror("mark"); }
__global__ void spin(long long cycles, float *out) {
    long long t0 = clock64(); float x = threadIdx.x;
    while (clock64() - t0 < cycles) x = x * 1.0000001f + 0.5f;
    if (x == 42.0f) out[0] = x;
}
static void busy(double s, long long cycles, float *out, int blocks) {
    long long end = now_ns() + (long long)(s * 1e9);
    while (now_ns() < end) { spin<<<blocks, 1024>>>(cycles, out); cudaDeviceSynchronize(); }
}
int main(void) {
    const char *g = getenv("GPU"); cudaSetDevice(g ? atoi(g) : 0);
    fd = open(getenv("FLINCH_MARKS"), O_WRONLY | O_NONBLOCK); if (fd < 0) { perror("FLINCH_MARKS"); return 1; }
    int sms = 0; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, g ? atoi(g) : 0);
    float *out; cudaMalloc(&out, 4);
    long long cycles = 2000000;   /* ~1 ms a launch at ~2 GHz */
    busy(2.0, cycles, out, sms * 4); usleep(2000000);
    const char *ph[2] = { "phase_fast", "phase_slow" }; double half[2] = { 0.205, 2.0 }; int n[2] = { 40, 10 };
    for (int p = 0; p < 2; p++) {
        mark(ph[p]);
        for (int i = 0; i < n[p]; i++) { cudaDeviceSynchronize(); mark("busy"); busy(half[p], cycles, out, sms * 4); mark("idle"); usleep((useconds_t)(half[p] * 1e6)); }
    }
    mark("load_end"); usleep(1500000); return 0;
}
CU

if [ "$LOAD" = command ]; then
  load_cmd=$SENSORS_LOAD_CMD
elif [ "$LOAD" = torch ]; then
  load_cmd="python3 $W/load.py"
else
  NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  "$NVCC" -O2 -o "$W/load" "$W/load.cu" 2>"$W/nvcc.err" || { echo "sensors_real: nvcc failed: $(head -c 300 "$W/nvcc.err")" >&2; exit 1; }
  load_cmd="$W/load"
fi

echo "sensors_real: GPU $GPU ($(nvidia-smi -i "$GPU" --query-gpu=name,driver_version --format=csv,noheader)), load: $LOAD; about 70 s" >&2
export GPU
# shellcheck disable=SC2086 # load_cmd is a command line
timeout 240 "$FLINCH" record --nvml-lib "$NVML_LIB" --gpu "$GPU" --interval-ms 2 --dither \
  --no-rapl -q -o "$W/trace.csv" -- $load_cmd >"$W/record.out" 2>"$W/record.err"
rc=$?
[ "$rc" -eq 0 ] || { echo "sensors_real: flinch record / load failed ($rc): $(tail -c 400 "$W/record.err")" >&2; exit 1; }
"$FLINCH" analyze --csv "$W/trace.csv" --start busy --end idle --format json >"$W/analyze.json" 2>"$W/analyze.err" ||
  { echo "sensors_real: flinch analyze failed: $(head -c 300 "$W/analyze.err")" >&2; exit 1; }

# NVML call latency: every call flinch record makes per sample, 200 times
# each, interleaved as in a sample, through dlopen like the recorder.
# (fields:83,...,198: the one field-values call flinch record makes per GPU
# per tick since issue 13; the single calls are its fallbacks and the slow
# values)
items=""
i=0
while [ $i -lt 200 ]; do
  items="$items fields:83,186,185,74,251,252,253,197,198 energy fields:186 power util clock temp mem reasons limit"
  i=$((i + 1))
done
# shellcheck disable=SC2086 # items is a word list
"$SIMTOOL" --lib "$NVML_LIB" query -T "gpu:$GPU" $items >"$W/latency.txt" 2>&1 ||
  echo "sensors_real: latency run failed: $(head -c 200 "$W/latency.txt")" >&2

python3 - "$W/trace.csv" "$W/analyze.json" "$W/latency.txt" "$GPU" >"$W/sensors_real.md" <<'PY'
import csv, json, statistics, sys
trace, ajson, lat, gpu = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
rows = list(csv.DictReader(open(trace, newline="")))
marks = [(int(r["t_mono_ns"]), r["label"]) for r in rows if r["row_type"] == "MARK"]
samp = [r for r in rows if r["row_type"] == "SAMPLE" and r.get("gpu_index") == str(gpu)]
t = [int(r["t_mono_ns"]) for r in samp]
def col(name):
    out = []
    for r in samp:
        try: out.append(float(r[name]))
        except (KeyError, ValueError): out.append(None)
    return out
def idle_bit():
    out = []
    for r in samp:
        try: out.append(float(int(r["gpu_clock_event_reasons"], 16) & 1))
        except (KeyError, ValueError, TypeError): out.append(None)
    return out
# GpuIdle and the SM clock: their lag after an edge is what the breakdown
# allows GpuIdle (50 ms, src/analyze/breakdown/sensor_figures.h); both are
# read every ~50 ms, so a lag includes up to 50 ms of that
cols = {"energy counter": col("gpu_energy_mJ"), "instant power": col("gpu_power_instant_W"),
        "averaged power": col("gpu_power_W"), "utilization": col("gpu_util_pct"),
        "GpuIdle reason (read every ~50 ms)": idle_bit(), "SM clock (read every ~50 ms)": col("gpu_sm_clock_MHz")}
phase = {}
for tm, lab in marks:
    if lab.startswith("phase_") or lab == "load_end":
        phase[lab] = tm
edges = [(tm, lab) for tm, lab in marks if lab in ("busy", "idle")]
def in_phase(tm, name):
    nxt = {"phase_fast": "phase_slow", "phase_slow": "load_end"}[name]
    return phase.get(name, 0) <= tm < phase.get(nxt, 1 << 62)
def first_index(tm):
    lo, hi = 0, len(t)
    while lo < hi:
        mid = (lo + hi) // 2
        if t[mid] < tm: lo = mid + 1
        else: hi = mid
    return lo
def changes(v):
    return [(t[i - 1], t[i]) for i in range(1, len(v)) if v[i] is not None and v[i - 1] is not None and v[i] != v[i - 1]]
def period_ms(v, q):
    ch = changes(v)
    d = sorted((b[1] - a[1]) / 1e6 for a, b in zip(ch, ch[1:]))
    return d[int(q * (len(d) - 1))] if len(d) >= 4 else None
def levels(v, name):
    """Busy and idle level of a power-like column: the median reading in the
    second half of each slow half-cycle (settled)."""
    busy, idle = [], []
    sl = [(tm, lab) for tm, lab in edges if in_phase(tm, "phase_slow")]
    for (t0, lab), (t1, _) in zip(sl, sl[1:]):
        mid = t0 + (t1 - t0) // 2
        vals = [v[i] for i in range(first_index(mid), first_index(t1)) if v[i] is not None]
        (busy if lab == "busy" else idle).extend(vals)
    return (statistics.median(busy) if busy else None, statistics.median(idle) if idle else None)
def response(v, name, ph):
    """Per edge of phase ph: lag to the first change, and the time to reach
    90% of the new level, from the edge; and the averaging window implied by
    the first partial reading (W = dt / fraction)."""
    hi, lo = levels(v, name)
    if hi is None or lo is None or hi == lo:
        return None, None, None
    lags, rises, wins = [], [], []
    for tm, lab in edges:
        if not in_phase(tm, ph):
            continue
        new, old = (hi, lo) if lab == "busy" else (lo, hi)
        i = first_index(tm)
        first = None
        for j in range(i, min(len(t), i + 2000)):
            if v[j] is None: continue
            if first is None and v[j] != v[i - 1 if i > 0 else i]:
                first = j
                lags.append((t[j] - tm) / 1e6)
                frac = (v[j] - old) / (new - old)
                if 0.05 < frac < 0.95:
                    wins.append((t[j] - tm) / 1e6 / frac)
            if (v[j] - old) / (new - old) >= 0.9:
                rises.append((t[j] - tm) / 1e6)
                break
    med = lambda x: statistics.median(x) if x else None
    return med(lags), med(rises), med(wins)
a = json.load(open(ajson))
periods = {}
for g in a.get("gpus", []):
    if g.get("gpu") == gpu:
        periods = g.get("sensor_periods", {})
key = {"energy counter": "counter", "instant power": "instant", "averaged power": "average", "utilization": "util"}
f = lambda x, fmt="%.1f": "n/a" if x is None else fmt % x
print("### Real sensors: GPU %d, square-wave load (205/205 ms x 40, then 2/2 s x 10), 2 ms sampling with --dither" % gpu)
print()
print("| sensor | update period (flinch analyze) | period (lower quartile of change intervals) | lag to first change after an edge (fast phase) | 90% rise after an edge (slow phase) | averaging window implied by the first partial reading | busy / idle level (slow phase) |")
print("|---|---|---|---|---|---|---|")
for name, v in cols.items():
    p = periods.get(key.get(name, ""), {})
    pa = p.get("period_s")
    pa_s = "n/a" if pa is None else ("<= " if p.get("at_most") else "") + "%.1f ms" % (pa * 1e3)
    q = period_ms(v, 0.5 if name == "energy counter" else 0.25)
    if name == "energy counter":
        lag = rise = win = None
        lv = "-"
    else:
        lag, _, win = response(v, name, "phase_fast")
        _, rise, _ = response(v, name, "phase_slow")
        hi, lo = levels(v, name)
        lv = "%s / %s" % (f(hi), f(lo))
    print("| %s | %s | %s ms | %s ms | %s ms | %s ms | %s |" % (name, pa_s, f(q), f(lag), f(rise), f(win), lv))
print()
# the counter against the known load: power from the counter over the
# settled halves of the slow phase, and over the whole run against the
# mean instant power.
e = cols["energy counter"]
def counter_power(t0, t1):
    i0, i1 = first_index(t0), first_index(t1) - 1
    if i1 <= i0 or e[i0] is None or e[i1] is None: return None
    return (e[i1] - e[i0]) / 1e3 / ((t[i1] - t[i0]) / 1e9)
sl = [(tm, lab) for tm, lab in edges if in_phase(tm, "phase_slow")]
cb, ci = [], []
for (t0, lab), (t1, _) in zip(sl, sl[1:]):
    pw = counter_power(t0 + (t1 - t0) // 2, t1)
    if pw is not None:
        (cb if lab == "busy" else ci).append(pw)
ip = [x for x in cols["instant power"] if x is not None]
tot = counter_power(t[0], t[-1]) if t else None
print("| energy counter vs the load | value |")
print("|---|---|")
print("| busy power from the counter (settled halves of the 2 s phase, median) | %s W |" % f(statistics.median(cb) if cb else None))
print("| idle power from the counter (same) | %s W |" % f(statistics.median(ci) if ci else None))
print("| whole run: counter mean power / mean of instant readings | %s W / %s W |" % (f(tot), f(statistics.mean(ip) if ip else None)))
b = [w for w in a.get("windows", []) if w["duration_s"] > 1]
if b:
    print("| 2 s busy windows: flinch energy, uncertainty (median) | %s J +- %s J |" % (
        f(statistics.median(w["energy_J"] for w in b), "%.3f"), f(statistics.median(w["uncertainty_J"] for w in b), "%.3f")))
print()
# What the driver's per-entry timestamps (nvmlFieldValue_t.timestamp, us
# since 1970) mean: the time of the read, or of the sensor's last update?
# Against the row's own stamp (t_wall_ns, taken just before the call): a
# small steady offset means the read; an offset that grows between value
# changes and falls back at each one means the update. analyze takes each
# counter reading at its timestamp either way (reading_instant.h); in the
# second case the grid fit could go further and place updates exactly.
print("| field timestamp (driver) | offset from the row's stamp: p1 / median / p99 | timestamp moved while the value did not | value moved while the timestamp did not | reading |")
print("|---|---|---|---|---|")
for name, vcol, tcol in (("energy counter (field 83)", "gpu_energy_mJ", "gpu_energy_ts_us"),
                         ("instant power (field 186)", "gpu_power_instant_W", "gpu_power_instant_ts_us")):
    off, ts_only, v_only, n = [], 0, 0, 0
    prev = None
    for r in samp:
        try: ts, wall, v = int(r[tcol]), int(r["t_wall_ns"]), float(r[vcol])
        except (KeyError, ValueError): continue
        off.append((ts * 1000 - wall) / 1e6)
        if prev is not None:
            n += 1
            ts_only += ts != prev[0] and v == prev[1]
            v_only += v != prev[1] and ts == prev[0]
        prev = (ts, v)
    if len(off) < 10 or n == 0:
        print("| %s | n/a | n/a | n/a | no timestamps recorded |" % name)
        continue
    off.sort()
    q = lambda p: off[int(p * (len(off) - 1))]
    kind = ("the time of the read" if ts_only > 0.5 * n else
            "the sensor's update" if v_only == 0 and q(0.5) < -1 else "unclear: see the raw trace")
    print("| %s | %.3f / %.3f / %.3f ms | %.0f %% | %.0f %% | %s |" % (
        name, q(0.01), q(0.5), q(0.99), 100.0 * ts_only / n, 100.0 * v_only / n, kind))
print()
calls = {}
for line in open(lat):
    parts = line.split()
    if len(parts) >= 2 and parts[-1].startswith("us=") and not parts[0].startswith(("gpu:", "handle")):
        calls.setdefault(parts[0], []).append(int(parts[-1][3:]))
names = {"field:198": "nvmlDeviceGetFieldValues (the 9 fields read every tick)",
         "energy": "nvmlDeviceGetTotalEnergyConsumption", "field:186": "nvmlDeviceGetFieldValues (186)",
         "power": "nvmlDeviceGetPowerUsage", "util": "nvmlDeviceGetUtilizationRates", "clock": "nvmlDeviceGetClockInfo (SM)",
         "temp": "nvmlDeviceGetTemperature", "mem": "nvmlDeviceGetMemoryInfo",
         "reasons": "nvmlDeviceGetCurrentClocksEventReasons", "limit": "nvmlDeviceGetEnforcedPowerLimit"}
print("| NVML call (as flinch record makes it per sample) | calls | median | p99 | max |")
print("|---|---|---|---|---|")
for k, v in calls.items():
    v.sort()
    print("| %s | %d | %d us | %d us | %d us |" % (names.get(k, k), len(v), v[len(v) // 2], v[int(0.99 * (len(v) - 1))], v[-1]))
if not calls:
    print("| (no timings: see the latency run's output) | | | | |")
PY
rc=$?
cat "$W/sensors_real.md"
if [ -n "${SENSORS_OUT:-}" ]; then
  mkdir -p "$SENSORS_OUT" && gzip -c "$W/trace.csv" >"$SENSORS_OUT/trace.csv.gz" &&
    cp "$W/analyze.json" "$W/latency.txt" "$W/record.err" "$W/sensors_real.md" "$SENSORS_OUT/" ||
    { echo "sensors_real: cannot write to $SENSORS_OUT" >&2; exit 1; }
fi
[ "$rc" -eq 0 ] || { echo "sensors_real: the analysis failed ($rc)" >&2; exit 1; }
