/*
 * sim_compute.c — the simulated NVML's nvmlDeviceGetComputeRunningProcesses
 * (_v3, _v2 and the original symbol).
 *
 * Owns: which processes have a compute context on each GPU. The scenario's
 * `compute` key says who, over time: `child` is every descendant of the
 * process that loaded the library (the recorder's wrapped command and its
 * children, sim_procs.c), `tenant` is one process of someone else
 * (`tenant_pid`, default 1: it exists in every PID namespace and is never
 * in the recorder's tree). `pid_namespace foreign` reports every pid as a
 * host driver does to a container: shifted by SIM_FOREIGN_PID_OFFSET, so
 * it names no process here. Each process is reported with an equal share
 * of the GPU's `mem_used`.
 *
 * The protocol is NVML's: *infoCount in, the number of processes out;
 * NVML_ERROR_INSUFFICIENT_SIZE when they do not fit (infos may be NULL
 * when *infoCount is 0). The legacy build exports only the original
 * symbol, with the v1 layout, like a pre-R450 driver.
 */
#include "sim_internal.h"
#include "sim_procs.h"

#include <string.h>

#define SIM_PROCS_MAX 256   /* processes reported per GPU at most */

/* Fills pid[] and mem[] for GPU gpu at scenario time t; the count. Lock held. */
static unsigned list_procs(unsigned gpu, long long t, const unsigned *children, int nchildren,
                           unsigned *pid, unsigned long long *mem)
{
    const struct sim_reading *r = timeline_reading_at(&sim_scn, gpu, t);
    unsigned n = 0;
    if (r->compute & SIM_COMPUTE_CHILD)
        for (int i = 0; i < nchildren && n < SIM_PROCS_MAX - 1; i++)
            pid[n++] = children[i];
    if (r->compute & SIM_COMPUTE_TENANT)
        pid[n++] = sim_scn.tenant_pid;
    for (unsigned i = 0; i < n; i++) {
        if (sim_scn.foreign_pids)
            pid[i] += SIM_FOREIGN_PID_OFFSET;
        mem[i] = (unsigned long long)r->mem_used_mib * 1048576ULL / n;
    }
    return n;
}

/* v2: 0 for the v1 layout, 1 for v2/v3. */
static nvmlReturn_t compute_procs(nvmlDevice_t device, unsigned int *count, void *infos, int v2)
{
    /* The /proc scan happens before the lock is taken: it reads files. */
    unsigned children[SIM_PROCS_MAX];
    int nchildren = sim_descendant_pids(children, SIM_PROCS_MAX);
    unsigned gpu;
    long long t;
    nvmlReturn_t rc = sim_device_query(device, count, SIM_FN_PROCS, &gpu, &t);
    if (rc != NVML_SUCCESS)
        return rc;
    unsigned pid[SIM_PROCS_MAX];
    unsigned long long mem[SIM_PROCS_MAX];
    unsigned n = list_procs(gpu, t, children, nchildren, pid, mem);
    if (*count < n) {
        rc = NVML_ERROR_INSUFFICIENT_SIZE;
    } else if (n > 0 && !infos) {
        rc = NVML_ERROR_INVALID_ARGUMENT;
    } else {
        for (unsigned i = 0; i < n; i++) {
            if (v2) {
                nvmlProcessInfo_v2_t *p = (nvmlProcessInfo_v2_t *)infos + i;
                p->pid = pid[i];
                p->usedGpuMemory = mem[i];
                p->gpuInstanceId = p->computeInstanceId = 0xFFFFFFFFu;
            } else {
                nvmlProcessInfo_v1_t *p = (nvmlProcessInfo_v1_t *)infos + i;
                p->pid = pid[i];
                p->usedGpuMemory = mem[i];
            }
        }
    }
    *count = n;
    pthread_mutex_unlock(&sim_lock);
    return rc;
}

#ifndef SIM_LEGACY_ABI
EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *count,
                                                            nvmlProcessInfo_v2_t *infos)
{
    return compute_procs(device, count, infos, 1);
}

EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device, unsigned int *count,
                                                            nvmlProcessInfo_v2_t *infos)
{
    return compute_procs(device, count, infos, 1);
}
#endif

EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device, unsigned int *count,
                                                         nvmlProcessInfo_v1_t *infos)
{
    return compute_procs(device, count, infos, 0);
}
