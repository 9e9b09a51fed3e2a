#!/bin/bash
# cuda_gaps.sh — a GPU's idle gaps between traced kernels, classed by what
# the traced side did: host-cpu where the CPU side was busy, else waiting,
# the waiting part named by the dominant thread class of the window's
# breakdown segment it lies in (waiting-on-network ...), "waiting" without
# thread states. The fixture trace (windows infer_start -> first_token at
# 10.5, 11.5 and 12.2 s; the CPU side idle in the first two, busy in the
# third) with a hand-written kernels file and a threads file of one thread
# running until 11.7 s, then in recvfrom on a socket until 12.1 s:
#   window 1: kernels 0-100 and 200-300 ms: one 100 ms gap, thread running;
#   window 2: 0-50, 100-150, 400-450 ms: gaps 50 ms (running) and 250 ms
#             (network from 11.65 s, the sweeps' half-interval edge);
#   window 3: 0-100, 200-300 ms: one 100 ms gap, host-cpu.
. "$ROOT/tests/lib.sh"
FX="$ROOT/tests/fixtures"
cp "$FX/flinch_windows.csv" t.csv
grep -v '^N 4242 \|^T 4242 ' "$FX/flinch_windows.threads" >t.csv.threads
{ echo "flinch-kernels 1"
  echo "N pid=9 id=1 sgemm"
  echo "B pid=9 gpu=0 start=10500000000 end=10800000000 kernels=2 top=1:200000000 other=0 gaps=100000000:100000000"
  echo "B pid=9 gpu=0 start=11500000000 end=11650000000 kernels=2 top=1:100000000 other=0 gaps=50000000:50000000"
  echo "B pid=9 gpu=0 start=11900000000 end=11950000000 kernels=1 top=1:50000000 other=0"
  echo "B pid=9 gpu=0 start=12200000000 end=12300000000 kernels=1 top=1:100000000 other=0"
  echo "B pid=9 gpu=0 start=12400000000 end=12500000000 kernels=1 top=1:100000000 other=0"
  echo "D pid=9 kernels=7 copies=0 dropped=0 zero_stamps=0 pool_empty=0 lines_lost=0"; } >t.csv.kernels

gaps() { python3 -c 'import json, sys
for w in json.load(open(sys.argv[1]))["windows"]:
    k = w["gpus"][0].get("kernels")
    print(json.dumps(k["gaps"] if k else None, sort_keys=True))' "$1"; }
"$FLINCH" analyze t.csv --start infer_start --end first_token --format json >t.json 2>err.txt
expect_eq "json: exit 0, no warning" "$?:$(cat err.txt)" "0:"
expect_eq "json: the gaps by class" "$(gaps t.json)" \
  '{"by_class": {"waiting-on-running": 100.0}, "count": 1, "longest_ms": 100.0, "total_ms": 100.0}
{"by_class": {"waiting-on-network": 250.0, "waiting-on-running": 50.0}, "count": 2, "longest_ms": 250.0, "total_ms": 300.0}
{"by_class": {"host-cpu": 100.0}, "count": 1, "longest_ms": 100.0, "total_ms": 100.0}'
expect_eq "json: the classes in their order (host-cpu, waiting, waiting-on-* by thread class)" \
  "$(grep -o '"by_class":{[^}]*}' t.json | tr '\n' '|')" \
  '"by_class":{"waiting-on-running":100.000}|"by_class":{"waiting-on-network":250.000,"waiting-on-running":50.000}|"by_class":{"host-cpu":100.000}|'
expect_eq "json: the classes add up to the gaps' total" "$(python3 -c 'import json, sys
for w in json.load(open(sys.argv[1]))["windows"]:
    g = w["gpus"][0]["kernels"]["gaps"]; print(abs(sum(g["by_class"].values()) - g["total_ms"]) < 1e-9)' t.json | tr '\n' ' ')" \
  "True True True "

"$FLINCH" analyze t.csv --start infer_start --end first_token -v >t.txt
expect_eq "text: the kernels line names the largest class" "$(grep '^    kernels:' t.txt)" \
  "    kernels: compute 200.0 ms of 500.0 in 2 kernels: 100% sgemm; 1 gaps, longest 100.0 ms, 100% of their 100.0 ms waiting-on-running"

"$FLINCH" analyze t.csv --start infer_start --end first_token --format csv >t.out.csv
expect_eq "csv: gpu0_kernels_gaps_by_class, after the other kernel columns" "$(python3 -c 'import csv, sys
h, *rows = list(csv.reader(open(sys.argv[1])))
i = h.index("gpu0_kernels_gaps_by_class")
print(h[i - 1], h[i + 1])
for r in rows: print(r[i])' t.out.csv)" \
  "gpu0_nvml_busy_no_kernels_ms confidence
waiting-on-running=100.000
waiting-on-network=250.000;waiting-on-running=50.000
host-cpu=100.000"

# without thread states: host-cpu or plain waiting
mv t.csv.threads threads.away
"$FLINCH" analyze t.csv --start infer_start --end first_token --format json >n.json
expect_eq "no threads file: host-cpu and waiting" "$(gaps n.json | sed 's/, "count.*//')" \
  '{"by_class": {"waiting": 100.0}
{"by_class": {"waiting": 300.0}
{"by_class": {"host-cpu": 100.0}'
"$FLINCH" analyze t.csv --start infer_start --end first_token -v >n.txt
expect_eq "no threads file: the text names waiting" "$(grep -o '1 gaps, .*' n.txt)" \
  "1 gaps, longest 100.0 ms, 100% of their 100.0 ms waiting"

# a window with one kernel: no gaps, an empty split
{ echo "flinch-kernels 1"
  echo "B pid=9 gpu=0 start=10600000000 end=10700000000 kernels=1 top= other=100000000"; } >t.csv.kernels
"$FLINCH" analyze t.csv --start infer_start --end first_token --format json >o.json
expect_eq "one kernel: no gaps, no classes" "$(gaps o.json | head -1)" \
  '{"by_class": {}, "count": 0, "longest_ms": 0.0, "total_ms": 0.0}'
expect_eq "one kernel: the text without a class" "$(grep -o '0 gaps.*' <("$FLINCH" analyze t.csv --start infer_start --end first_token -v))" \
  "0 gaps, longest 0.0 ms"
done_testing
