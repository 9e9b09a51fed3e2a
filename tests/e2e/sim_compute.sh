# tests/e2e/sim_compute.sh — the simulated nvmlDeviceGetComputeRunningProcesses
# (sim/sim_compute.c), driven through dlopen by simtool: who has a context
# (`compute=` over time, `tenant_pid`), host pids seen from a container
# (`pid_namespace foreign`), the three ABI versions, INSUFFICIENT_SIZE and
# the faults. The `child` processes are checked through flinch record
# (record_gpu_auto.sh): simtool has none.
. "$ROOT/tests/lib.sh"

S=$HELPERS/simtool
LEGACY=$BUILD/sim-legacy/libnvidia-ml.so.1
export SIM
unset FLINCH_SIM_SCENARIO FLINCH_SIM_EPOCH_NS

q() {
  scn=$1; at=$2; shift 2
  FLINCH_SIM_SCENARIO=$scn "$S" query --at "$at" "$@"
}

printf 'gpus 2\ntenant_pid 4242\nat 0 gpu 1 mem_used=1024\nat 1000 gpu 1 compute=tenant\nat 3000 gpu 1 compute=none\n' >tenant.scn
expect_eq "no context before 1000 ms: 0 processes" \
  "$(q tenant.scn 500 gpu:1 procs:v3 procs:v2 procs:v1)" \
  "gpu:1 ok
procs:v3 0
procs:v2 0
procs:v1 0"
expect_eq "the tenant's context from 1000 ms, every ABI version (pid:MiB)" \
  "$(q tenant.scn 1500 gpu:1 procs:v3 procs:v2 procs:v1 gpu:0 procs:v2)" \
  "gpu:1 ok
procs:v3 1 4242:1024
procs:v2 1 4242:1024
procs:v1 1 4242:1024
gpu:0 ok
procs:v2 0"
expect_eq "and gone again from 3000 ms" "$(q tenant.scn 3500 gpu:1 procs:v2)" "gpu:1 ok
procs:v2 0"

printf 'pid_namespace foreign\ntenant_pid 4242\nat 0 compute=tenant\n' >foreign.scn
expect_eq "pid_namespace foreign: pids shifted past PID_MAX_LIMIT (4194304)" \
  "$(q foreign.scn 100 procs:v2)" "handle:0 ok
procs:v2 1 4198546:512"
check "no such process here" test ! -e /proc/4198546

printf 'at 0 compute=tenant\n' >pid1.scn
expect_eq "tenant_pid defaults to 1" "$(q pid1.scn 100 procs:v2)" "handle:0 ok
procs:v2 1 1:512"

expect_eq "legacy ABI: only the original symbol, v1 layout" \
  "$(FLINCH_SIM_SCENARIO=tenant.scn "$S" --lib "$LEGACY" query --at 1500 gpu:1 procs:v3 procs:v2 procs:v1)" \
  "gpu:1 ok
procs:v3 missing nvmlDeviceGetComputeRunningProcesses_v3
procs:v2 missing nvmlDeviceGetComputeRunningProcesses_v2
procs:v1 1 4242:1024"

printf 'tenant_pid 7\nat 0 compute=tenant\nerror 4 nvmlDeviceGetComputeRunningProcesses\n' >perm.scn
expect_eq "error 4: NO_PERMISSION from every version" "$(q perm.scn 100 procs:v3 procs:v2 procs:v1)" \
  "handle:0 ok
procs:v3 error 4 Insufficient Permissions
procs:v2 error 4 Insufficient Permissions
procs:v1 error 4 Insufficient Permissions"
printf 'unsupported nvmlDeviceGetComputeRunningProcesses_v3\n' >unsup.scn
expect_eq "unsupported: NOT_SUPPORTED" "$(q unsup.scn 100 procs:v3)" "handle:0 ok
procs:v3 error 3 Not Supported"

perr() {
  printf "$2" >bad.scn
  got=$(FLINCH_SIM_SCENARIO=bad.scn "$S" query count 2>err.txt)
  expect_eq "parse error: $1" "$got|$(cat err.txt)" "init error 999 Unknown Error|$3"
}
perr "compute value" 'at 0 compute=all\n' \
  "flinch-sim: bad.scn:1: at: compute: expected none, child, tenant or child+tenant, got 'all'"
perr "pid_namespace value" 'pid_namespace host\n' \
  "flinch-sim: bad.scn:1: pid_namespace: expected 'same' or 'foreign'"
perr "tenant_pid range" 'tenant_pid 0\n' \
  "flinch-sim: bad.scn:1: tenant_pid: expected an integer 1..4194304, got '0'"

done_testing
