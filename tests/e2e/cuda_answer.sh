#!/bin/bash
# cuda_answer.sh — the answer taken from traced kernels (flinch record
# --cuda on the simulated NVML and CUPTI): compute is the kernel union to
# the us, the NCCL kernel its own class `collective`, the edges from the
# kernels' stamps; the NVML cross-check (the sim's sensors read idle while
# kernels ran); CSV columns, export slices and the plot's kernel lane; the
# same trace without its kernels file answered from the sensors as before.
. "$ROOT/tests/lib.sh"
export FLINCH_CUPTI_LIB=$BUILD/sim-cupti/libcupti.so.13
unset CUDA_INJECTION64_PATH
"$FLINCH" record -q --nvml-lib "$SIM" --no-rapl -i 20 -o "$T/a.csv" --cuda -- \
  "$HELPERS/cuda_app" "$ROOT/tests/fixtures/cuda/answer.scn" >/dev/null 2>"$T/err"
expect_eq "record: exit 0, no warning" "$?:$(cat "$T/err")" "0:"

py() { python3 -c "import json, sys
w = json.load(open(sys.argv[1]))['windows'][0]
$1" "$2"; }
# The window is the app's whole life, its start and exit included: under
# ASan those run the CPU for tens of ms (LeakSanitizer's check at exit:
# ~100 ms), host-cpu time with edges from the CPU samples. What is under
# test here is the GPU side, so the process's own CPU never names host-cpu
# (--proc-busy-cores 1000) and the compute share is the window's length's.
CPU="--proc-busy-cores 1000"
"$FLINCH" analyze "$T/a.csv" --start begin --end end $CPU --format json >"$T/a.json"
expect_eq "json: compute the kernel union, collective apart, edges from the stamps" \
  "$(py 'b = w["breakdown"]; print(b["compute_ms"], b["collective_ms"], b["source"], b["resolution_ms"], b["not_recorded_ms"])' "$T/a.json")" \
  "100.0 20.0 kernels 0.001 0.0"
expect_eq "json: the classes fill the window (to the us)" \
  "$(py 'b = w["breakdown"]; d = w["duration_s"] * 1e3
print(abs(b["compute_ms"] + b["collective_ms"] + b["host_cpu_ms"] + b["waiting_ms"] - d) < 0.002)' "$T/a.json")" "True"
expect_eq "json: the collective segment" \
  "$(py 'print([round(s["end_ms"] - s["start_ms"], 3) for s in w["segments"] if s["class"] == "collective"])' "$T/a.json")" "[20.0]"
expect_eq "json: the NVML cross-check" \
  "$(py 'c = w["gpus"][0]["kernels"]["nvml_check"]; print(c["kernels_while_idle_ms"], c["busy_without_kernels_ms"], c["threshold_ms"] > 0)' "$T/a.json")" \
  "120.0 0.0 True"

"$FLINCH" analyze "$T/a.csv" --start begin --end end $CPU -v >"$T/a.txt"
expect_match "text: the answer line names the kernels as the edges' source" \
  "^window 1 begin -> end  [0-9.]+ s  (mixed|waiting): [0-9]+% waiting, [0-9]+% compute, [0-9]+% collective(, interleaved)?  \(edges \+-0 ms from kernels, confidence " \
  "$(grep '^window 1 begin' "$T/a.txt")"
expect_match "text: the time line" \
  "^  time: compute 100\.0 ms \([0-9]+%\), host-cpu [0-9.]+ ms \([0-9]+%\), waiting [0-9.]+ ms \([0-9]+%\), collective 20\.0 ms \([0-9]+%\), edges \+-0\.001 ms from kernels\$" \
  "$(grep '^  time:' "$T/a.txt")"
expect_match "text: the kernels line (compute without the collective)" \
  "^    kernels: compute 100\.0 ms of [0-9.]+ in 3 kernels: 42% sgemm_kernel, 42% flash_fwd, 17% ncclDevKernel_AllReduce_Sum_f32_RING_LL; collective 20\.0 ms; 1 gaps, longest 40\.0 ms, 100% of their 40\.0 ms (waiting|host-cpu|waiting-on-[a-z-]+)\$" \
  "$(grep '^    kernels:' "$T/a.txt")"
expect_match "text: the NVML cross-check clause" \
  "; gpu 0: kernels ran 120 ms while NVML read it idle \(NVML lags or misses short kernels\)" \
  "$(grep '^  verdict=' "$T/a.txt")"
check "text: the GPM caveat does not cap kernel compute" \
  sh -c "! grep -q 'GPM too coarse to check' '$T/a.txt'"

# CSV: the window's collective_ms and each GPU's kernel cells, before
# confidence (recording stays last)
"$FLINCH" analyze "$T/a.csv" --start begin --end end $CPU --format csv >"$T/a.out.csv"
expect_eq "csv: the kernel columns and cells" "$(python3 -c 'import csv, sys
h, v = list(csv.reader(open(sys.argv[1])))[:2]
i = h.index("collective_ms")
print(h[-3:] == ["confidence", "confidence_reason", "recording"], v[h.index("compute_ms")])
for k in range(i, len(h) - 4): print(h[k], v[k])
print(h[-4], v[-4].split("=")[1])' "$T/a.out.csv")" "True 100.000
collective_ms 20.000
gpu0_kernels_busy_ms 120.000
gpu0_kernels_count 3
gpu0_kernels_collective_ms 20.000
gpu0_kernels_gaps 1
gpu0_kernels_gap_longest_ms 40.000
gpu0_kernels_gaps_ms 40.000
gpu0_kernels_top sgemm_kernel=50.000;flash_fwd=50.000;ncclDevKernel_AllReduce_Sum_f32_RING_LL=20.000
gpu0_kernels_dropped 0
gpu0_kernels_nvml_idle_ms 120.000
gpu0_nvml_busy_no_kernels_ms 0.000
gpu0_kernels_gaps_by_class 40.000"

# export: the kernels as slices per CUDA device, and the kernels file safe from -o
"$FLINCH" export "node1=$T/a.csv" --no-windows -o "$T/a.trace.json" 2>"$T/err"
expect_eq "export: exit 0, no warning" "$?:$(cat "$T/err")" "0:"
expect_eq "export: the kernels process, its device track, its slices (us)" "$(python3 -c 'import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
print([e["args"]["name"] for e in ev if e.get("pid") == 200000 and e["ph"] == "M"])
print([(e["name"], e["tid"], e["dur"]) for e in ev if e.get("cat") == "cuda"])' "$T/a.trace.json")" \
  "['CUDA kernels (node1)', 'device 0']
[('kernels', 1, 100000.0), ('collective', 1, 20000.0)]"
cp "$T/a.csv.kernels" "$T/kernels.copy"
"$FLINCH" export "$T/a.csv" --no-windows -o "$T/a.csv.kernels" 2>"$T/err"
expect_eq "export -o onto the kernels file: refused, exit 2, left intact" \
  "$?:$(cmp -s "$T/a.csv.kernels" "$T/kernels.copy" && echo intact)" "2:intact"

# plot: the kernel lane of GPU 0, its runs the kernel union (the 40 ms gap
# drawn), the collective over them
"$FLINCH" plot "$T/a.csv" -o "$T/a.svg" --no-windows 2>"$T/err"
expect_eq "plot: exit 0, no warning" "$?:$(cat "$T/err")" "0:"
expect_eq "plot: the lane's runs (busy ms, collective ms)" \
  "$(grep -o '<title>GPU 0 (CUDA device 0) [^<]*' "$T/a.svg" | sed 's/.* s: //')" \
  "100.000 ms busy (100% of the span)
20.000 ms busy (100% of the span), collective 20.000 ms
20.000 ms"

# the same trace without its kernels file: the sensors' answer (idle GPU)
mv "$T/a.csv.kernels" "$T/kernels.away"
"$FLINCH" analyze "$T/a.csv" --start begin --end end --format json >"$T/s.json"
expect_eq "no kernels file: sensors' breakdown, no collective, no source" \
  "$(py 'b = w["breakdown"]; print(b["compute_ms"], "collective_ms" in b, "source" in b, "kernels" in w["gpus"][0])' "$T/s.json")" \
  "0.0 False False False"
check "no kernels file: no kernel CSV columns" \
  sh -c "! \"\$FLINCH\" analyze '$T/a.csv' --start begin --end end --format csv | head -1 | grep -q 'collective_ms\|kernels_'"
check "no kernels file: no 'from kernels' in the answer" \
  sh -c "! \"\$FLINCH\" analyze '$T/a.csv' --start begin --end end | grep -q 'from kernels\|collective'"
done_testing
