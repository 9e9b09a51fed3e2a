/* gpu_proc_util.c — per-process SM time of one GPU; see gpu_proc_util.h. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_proc_util.h"

#include "clock.h"
#include "diag.h"
#include "trace_event.h"

enum { WARN_REFUSED = 1, WARN_TOO_MANY = 2, WARN_UNSEEN = 4, WARN_ERROR = 8 };

int gpu_proc_util_enable(const struct nvml_lib *lib, struct gpu_proc_util *p, unsigned index,
                         int interval_ms)
{
    static int said_missing;
    memset(p, 0, sizeof *p);
    p->at = -1;
    if (!lib->process_util) {
        snprintf(p->off_why, sizeof p->off_why, "no nvmlDeviceGetProcessUtilization in this NVML");
        if (!said_missing++)
            diag_warn("this NVML has no nvmlDeviceGetProcessUtilization: gpu_proc_sm_pct and "
                      "gpu_other_sm_pct stay empty (which process used the GPU is unknown)");
        return -1;
    }
    p->buf = calloc(GPU_PROC_SAMPLES_MAX, sizeof *p->buf);
    if (!p->buf) {
        snprintf(p->off_why, sizeof p->off_why, "out of memory");
        diag_warn("GPU %u: out of memory for per-process samples; gpu_proc_sm_pct and "
                  "gpu_other_sm_pct stay empty", index);
        return -1;
    }
    int64_t n = ((int64_t)GPU_PROC_UTIL_MS + interval_ms / 2) / interval_ms;
    p->every = n < 1 ? 1 : n;
    p->phase = (int64_t)index % p->every;
    p->on = 1;
    return 0;
}

void gpu_proc_util_free(struct gpu_proc_util *p)
{
    free(p->buf);
    p->buf = NULL;
    p->on = 0;
}

int gpu_proc_util_off_label(const struct gpu_proc_util *p, unsigned index, char *buf, size_t len)
{
    if (!p->off_why[0] || p->off_written)
        return 0;
    snprintf(buf, len, EVENT_PROC_UTIL " gpu=%u why=\"%s\"", index, p->off_why);
    return 1;
}

int gpu_proc_util_due(struct gpu_proc_util *p, int64_t tick)
{
    if (!p->on || (p->at < 0 && tick < p->phase) ||
        !(p->at < 0 || tick - p->at >= p->every || tick < p->at))
        return 0;
    p->at = tick;
    return 1;
}

static int in_tree(const struct gpu_proc_util *p, unsigned pid)
{
    int lo = 0, hi = p->ntree;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if ((unsigned)p->tree[mid] == pid)
            return 1;
        if ((unsigned)p->tree[mid] < pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

static int cmp_ull(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return (x > y) - (x < y);
}

/* NVML may report PIDs of another PID namespace (a container sees the
 * host's): such a pid is not in /proc here, and if it is the traced job's
 * its time would count as another process's. Said once, while no sample
 * of the tree has been seen on this GPU. */
static void check_visible(struct gpu_proc_util *p, unsigned index, unsigned pid)
{
    if (p->tree_seen || (p->warned & WARN_UNSEEN) || pid == 0)
        return;
    if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
        return;
    p->warned |= WARN_UNSEEN;
    diag_warn("GPU %u: NVML reports pid %u, which this PID namespace does not show (a container "
              "seeing host PIDs, or a process that just exited): its SM time counts in "
              "gpu_other_sm_pct, wrongly if it is the traced job's", index, pid);
}

/* The samples of one successful call into the two readings. */
static void summarize(struct gpu_proc_util *p, unsigned index, unsigned n, struct proc_util_reading *out)
{
    unsigned long long ts[GPU_PROC_SAMPLES_MAX], proc = 0, other = 0, newest = 0;
    unsigned m = 0;
    for (unsigned i = 0; i < n; i++) {
        const nvmlProcessUtilizationSample_t *s = &p->buf[i];
        if (s->timeStamp <= p->last_seen_us)   /* not newer: not ours to count again */
            continue;
        unsigned sm = s->smUtil > 100 ? 100 : s->smUtil;
        if (in_tree(p, s->pid)) {
            proc += sm;
            p->tree_seen = 1;
        } else {
            other += sm;
            if (sm)
                check_visible(p, index, s->pid);
        }
        ts[m++] = s->timeStamp;
        if (s->timeStamp > newest)
            newest = s->timeStamp;
    }
    if (m == 0)
        return;
    qsort(ts, m, sizeof ts[0], cmp_ull);
    unsigned periods = 1;
    for (unsigned i = 1; i < m; i++)
        periods += ts[i] != ts[i - 1];
    out->ok = 1;
    out->proc_pct = (unsigned)((proc + periods / 2) / periods);
    out->other_pct = (unsigned)((other + periods / 2) / periods);
    if (out->proc_pct > 100)
        out->proc_pct = 100;
    if (out->other_pct > 100)
        out->other_pct = 100;
    out->ts_us = newest;
    p->last_seen_us = newest;
}

/* A refusal that will not change during the recording switches reading off. */
static void refused(struct gpu_proc_util *p, const struct nvml_lib *lib, unsigned index,
                    nvmlReturn_t rc)
{
    p->on = 0;
    snprintf(p->off_why, sizeof p->off_why, "nvmlDeviceGetProcessUtilization: %s",
             nvml_strerror(lib, rc));
    for (char *c = p->off_why; *c; c++)   /* a quoted EVENT value holds no quote */
        if (*c == '"' || (unsigned char)*c < 0x20)
            *c = '\'';
    if (!(p->warned & WARN_REFUSED)) {
        p->warned |= WARN_REFUSED;
        diag_warn("GPU %u: per-process utilization (nvmlDeviceGetProcessUtilization): %s; "
                  "gpu_proc_sm_pct and gpu_other_sm_pct stay empty", index, nvml_strerror(lib, rc));
    }
}

int gpu_proc_util_read(const struct nvml_lib *lib, struct gpu_proc_util *p, nvmlDevice_t handle,
                       unsigned index, struct proc_util_reading *out)
{
    memset(out, 0, sizeof *out);
    if (!p->on)
        return 0;
    uint64_t now_us = (uint64_t)wall_ns() / 1000;
    if (p->last_seen_us == 0)      /* the first read covers the period before it */
        p->last_seen_us = now_us - (uint64_t)GPU_PROC_UTIL_MS * 1000;
    unsigned n = GPU_PROC_SAMPLES_MAX;
    nvmlReturn_t rc = lib->process_util(handle, p->buf, &n, p->last_seen_us);
    switch (rc) {
    case NVML_SUCCESS:
        summarize(p, index, n < GPU_PROC_SAMPLES_MAX ? n : GPU_PROC_SAMPLES_MAX, out);
        return 0;
    case NVML_ERROR_NOT_FOUND:     /* no sample newer than the last one: no reading */
        return 0;
    case NVML_ERROR_GPU_IS_LOST:
        return 1;
    case NVML_ERROR_INSUFFICIENT_SIZE:
        /* more samples than the buffer holds: skip them, say so once */
        if (!(p->warned & WARN_TOO_MANY)) {
            p->warned |= WARN_TOO_MANY;
            diag_warn("GPU %u: %u per-process samples since the last read, more than the %d "
                      "read; those reads leave gpu_proc_sm_pct and gpu_other_sm_pct empty",
                      index, n, GPU_PROC_SAMPLES_MAX);
        }
        p->last_seen_us = now_us;
        return 0;
    case NVML_ERROR_NOT_SUPPORTED:
    case NVML_ERROR_NO_PERMISSION:
    case NVML_ERROR_FUNCTION_NOT_FOUND:
        refused(p, lib, index, rc);
        return 0;
    default:
        if (!(p->warned & WARN_ERROR)) {
            p->warned |= WARN_ERROR;
            diag_warn("GPU %u: per-process utilization failed: %s; leaving it empty", index,
                      nvml_strerror(lib, rc));
        }
        return 0;
    }
}
