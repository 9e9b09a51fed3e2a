/*
 * sim_proc_util.c — the simulated nvmlDeviceGetProcessUtilization: which
 * process used how much of a GPU's SM time.
 *
 * Owns: the per-process samples and the driver's calling protocol. The
 * real driver keeps a buffer of per-process samples, one per process that
 * ran kernels and per sampling period (1/6 s to 1 s depending on the
 * product), each stamped with the CPU time of its period in us since 1970,
 * and a call returns those newer than the caller's lastSeenTimeStamp (0:
 * the whole buffer). Here a sample k lies at scenario time k * P (P =
 * `proc_util_period_us`, k >= 1), holds the mean `proc_child` / `proc_other`
 * over the period before it, rounded, and its timestamp is fixed by the
 * scenario time alone (sim_wall_at_zero_ns), so a sample is never returned
 * twice nor skipped by a caller that passes back the newest timestamp it saw.
 * The buffer holds the last SIM_PROC_KEPT periods. A process whose share
 * over a period is 0 has no sample for it (a caller reads its absence as
 * 0). `proc_child` belongs to the first of the loading process's
 * descendants (sim_procs.h: the command the recorder wraps; found again at
 * most every 100 ms); with none it
 * has no process and no sample. `proc_other` belongs to `tenant_pid`; with
 * `pid_namespace foreign` both pids are shifted out of this namespace, as a
 * host driver's are inside a container (sim/sim_compute.c does the same).
 *
 * Protocol (NVML reference, nvmlDeviceGetProcessUtilization): a NULL
 * buffer asks for the size: *count is set to the samples there are and the
 * call answers NVML_ERROR_INSUFFICIENT_SIZE; a buffer smaller than that gets
 * the same answer; no sample newer than lastSeenTimeStamp is
 * NVML_ERROR_NOT_FOUND with *count 0. The legacy build lacks the function.
 */
#include "sim_internal.h"
#include "sim_procs.h"

#include <pthread.h>
#include <stddef.h>
#include <time.h>

#define SIM_PROC_KEPT 30           /* periods the driver's buffer holds (5 s at 1/6 s) */
#define SIM_PROC_MAX (2 * SIM_PROC_KEPT)

#ifndef SIM_LEGACY_ABI
#define CHILD_RESCAN_NS 100000000LL  /* a /proc scan serves the calls of 100 ms */

/* The first descendant, from a /proc scan at most every CHILD_RESCAN_NS
 * of real time: a recorder reading 64 GPUs in one tick would otherwise
 * scan /proc 64 times (a cost of the simulator, not of a driver). */
static unsigned child_pid_cached(void)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static long long scanned_ns = -1;
    static unsigned pid;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    long long now = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
    pthread_mutex_lock(&mu);
    if (scanned_ns < 0 || now - scanned_ns >= CHILD_RESCAN_NS) {
        unsigned child[1];
        pid = sim_descendant_pids(child, 1) == 1 ? child[0] : 0;
        scanned_ns = now;
    }
    unsigned p = pid;
    pthread_mutex_unlock(&mu);
    return p;
}

/* The samples newer than last_seen_us at scenario time t_ns, oldest first.
 * Lock held. */
static int samples_at(unsigned gpu, long long t_ns, unsigned long long last_seen_us,
                      unsigned child_pid, nvmlProcessUtilizationSample_t *out)
{
    const struct sim_scenario *sc = &sim_scn;
    long long period = sc->proc_util_period_ns;
    long long newest = t_ns / period;
    int n = 0;
    for (long long k = newest - SIM_PROC_KEPT + 1; k <= newest; k++) {
        if (k < 1)
            continue;
        long long at = k * period;
        long long ts_ns = sim_wall_at_zero_ns + at;
        unsigned long long ts_us = ts_ns > 0 ? (unsigned long long)(ts_ns / 1000) : 0;
        if (ts_us <= last_seen_us)
            continue;
        const struct { unsigned pid; size_t off; } who[2] = {
            { child_pid, offsetof(struct sim_reading, proc_child_pct) },
            { sc->tenant_pid, offsetof(struct sim_reading, proc_other_pct) },
        };
        for (int i = 0; i < 2; i++) {
            double pct = timeline_mean_uint(sc, gpu, at - period, at, who[i].off);
            unsigned sm = (unsigned)(pct + 0.5);
            if (who[i].pid == 0 || sm == 0)
                continue;
            unsigned pid = who[i].pid + (sc->foreign_pids ? SIM_FOREIGN_PID_OFFSET : 0);
            out[n++] = (nvmlProcessUtilizationSample_t){ pid, ts_us, sm, 0, 0, 0 };
        }
    }
    return n;
}

EXPORT nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t device,
                                                    nvmlProcessUtilizationSample_t *utilization,
                                                    unsigned int *processSamplesCount,
                                                    unsigned long long lastSeenTimeStamp)
{
    /* the descendant first, outside the library's lock (a /proc scan) */
    unsigned child_pid = child_pid_cached();
    unsigned gpu;
    long long t;
    nvmlReturn_t rc = sim_device_query(device, processSamplesCount, SIM_FN_PROC_UTIL, &gpu, &t);
    if (rc != NVML_SUCCESS)
        return rc;
    nvmlProcessUtilizationSample_t s[SIM_PROC_MAX];
    unsigned n = (unsigned)samples_at(gpu, t, lastSeenTimeStamp, child_pid, s);
    if (n == 0) {
        *processSamplesCount = 0;
        rc = NVML_ERROR_NOT_FOUND;
    } else if (!utilization || *processSamplesCount < n) {
        *processSamplesCount = n;
        rc = NVML_ERROR_INSUFFICIENT_SIZE;
    } else {
        for (unsigned i = 0; i < n; i++)
            utilization[i] = s[i];
        *processSamplesCount = n;
    }
    pthread_mutex_unlock(&sim_lock);
    return rc;
}
#endif
