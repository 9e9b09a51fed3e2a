/* gpu_auto.c — --gpu auto's GPU discovery; see gpu_auto.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "gpu_auto.h"
#include "proc_watch.h"

#define NSPID_MAX 32   /* nested PID namespaces: the kernel allows 32 levels */

int gpu_auto_open(struct gpu_auto *a, const struct nvml_lib *lib, unsigned count)
{
    memset(a, 0, sizeof *a);
    if (!lib->compute_procs_symbol) {
        diag_error("--gpu auto: this NVML has no nvmlDeviceGetComputeRunningProcesses, so it "
                   "cannot tell which GPUs the command uses: name them (--gpu cuda, an index, "
                   "a UUID)");
        return -1;
    }
    a->count = count < TRACE_MAX_GPUS ? count : TRACE_MAX_GPUS;
    if (count > TRACE_MAX_GPUS)
        diag_warn("--gpu auto: %u GPUs; watching the first %d (the most one trace holds)", count,
                  TRACE_MAX_GPUS);
    return 0;
}

/* The pids of /proc/PID/status's NSpid line: n values, [0] in the
 * namespace of that /proc, then one per nested namespace. */
static int read_nspid(const char *proc_root, pid_t pid, unsigned *ns, int max)
{
    char path[300], buf[4096];
    snprintf(path, sizeof path, "%s/%d/status", proc_root, (int)pid);
    if (proc_read_small_file(AT_FDCWD, path, buf, sizeof buf) <= 0)
        return 0;
    char *p = strstr(buf, "\nNSpid:");
    if (!p)
        return 0;
    p += 7;
    int n = 0;
    while (n < max) {
        char *end;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p)
            break;
        ns[n++] = (unsigned)v;
        p = end;
        if (*p == '\n')
            break;
    }
    return n;
}

static int exists_here(const char *proc_root, unsigned pid)
{
    char path[300];
    snprintf(path, sizeof path, "%s/%u", proc_root, pid);
    return access(path, F_OK) == 0;
}

int gpu_auto_match(unsigned nvml_pid, const pid_t *tree, int ntree, const char *proc_root,
                   pid_t *ours, int *via_nspid)
{
    *via_nspid = 0;
    for (int i = 0; i < ntree; i++)
        if ((unsigned)tree[i] == nvml_pid) {
            *ours = tree[i];
            return 1;
        }
    if (exists_here(proc_root, nvml_pid))
        return 0;
    /* Not a pid here: maybe a tree process's pid in a nested namespace
     * (one process, or the match means nothing). */
    int hits = 0;
    for (int i = 0; i < ntree; i++) {
        unsigned ns[NSPID_MAX];
        int n = read_nspid(proc_root, tree[i], ns, NSPID_MAX);
        for (int k = 1; k < n; k++)
            if (ns[k] == nvml_pid) {
                *ours = tree[i];
                hits++;
                break;
            }
    }
    if (hits == 1) {
        *via_nspid = 1;
        return 1;
    }
    return -1;
}

/* One GPU's processes into a->buf: the count, or -1 with *rc. Grows the
 * buffer (up to GPU_AUTO_PROCS_MAX) and asks again once on
 * NVML_ERROR_INSUFFICIENT_SIZE: a second call only when more processes
 * appeared than ever before. */
static int list_procs(struct gpu_auto *a, const struct nvml_lib *lib, unsigned g, nvmlReturn_t *rc)
{
    size_t size = lib->compute_procs ? sizeof(nvmlProcessInfo_v2_t) : sizeof(nvmlProcessInfo_v1_t);
    for (int attempt = 0; attempt < 2; attempt++) {
        unsigned n = a->cap;
        a->calls++;
        *rc = lib->compute_procs ? lib->compute_procs(a->handle[g], &n, a->buf)
                                 : lib->compute_procs_v1(a->handle[g], &n, a->buf);
        if (*rc == NVML_SUCCESS)
            return (int)(n < a->cap ? n : a->cap);
        if (*rc != NVML_ERROR_INSUFFICIENT_SIZE || attempt == 1)
            return -1;
        if (n > GPU_AUTO_PROCS_MAX) {
            diag_warn("--gpu auto: GPU %u lists %u processes; more than the %d flinch reads",
                      g, n, GPU_AUTO_PROCS_MAX);
            return -1;
        }
        unsigned cap = n + 8 < GPU_AUTO_PROCS_MAX ? n + 8 : GPU_AUTO_PROCS_MAX;
        void *nb = realloc(a->buf, cap * size);
        if (!nb) {
            *rc = NVML_ERROR_UNKNOWN;
            return -1;
        }
        a->buf = nb;
        a->cap = cap;
    }
    return -1;
}

static unsigned pid_at(const struct nvml_lib *lib, const void *buf, int i)
{
    return lib->compute_procs ? ((const nvmlProcessInfo_v2_t *)buf)[i].pid
                              : ((const nvmlProcessInfo_v1_t *)buf)[i].pid;
}

static int was_suspect(const struct gpu_auto *a, unsigned g, unsigned pid)
{
    for (int i = 0; i < a->nsuspect[g]; i++)
        if (a->suspect[g][i] == pid)
            return 1;
    return 0;
}

/* Asks GPU g once; updates its state and the news. */
static void poll_gpu(struct gpu_auto *a, const struct nvml_lib *lib, unsigned g, const pid_t *tree,
                     int ntree, struct gpu_auto_news *news)
{
    nvmlReturn_t rc = NVML_SUCCESS;
    if (!a->have_handle[g]) {
        rc = lib->device_by_index(g, &a->handle[g]);
        a->calls++;
        a->have_handle[g] = rc == NVML_SUCCESS;
    }
    int n = rc == NVML_SUCCESS ? list_procs(a, lib, g, &rc) : -1;
    if (n < 0) {
        a->state[g] = GPU_AUTO_REFUSED;
        a->refused_rc[g] = rc;
        news->refused[news->nrefused++] = g;
        return;
    }
    unsigned unknown[GPU_AUTO_SUSPECTS];
    int nunknown = 0;
    for (int i = 0; i < n; i++) {
        unsigned pid = pid_at(lib, a->buf, i);
        pid_t ours;
        int via;
        int m = gpu_auto_match(pid, tree, ntree, "/proc", &ours, &via);
        if (m == 1) {
            a->state[g] = GPU_AUTO_FOUND;
            news->joined[news->njoined] = g;
            news->joined_pid[news->njoined] = ours;
            news->joined_nvml_pid[news->njoined++] = pid;
            return;
        }
        if (m < 0 && nunknown < GPU_AUTO_SUSPECTS) {
            if (was_suspect(a, g, pid) && !a->foreign_seen) {
                a->foreign_seen = 1;
                news->foreign = 1;
                news->foreign_gpu = g;
                news->foreign_pid = pid;
            }
            unknown[nunknown++] = pid;
        }
    }
    memcpy(a->suspect[g], unknown, sizeof unknown[0] * (size_t)nunknown);
    a->nsuspect[g] = nunknown;
}

int gpu_auto_poll(struct gpu_auto *a, const struct nvml_lib *lib, const pid_t *tree, int ntree,
                  int64_t now_ns, struct gpu_auto_news *news)
{
    memset(news, 0, sizeof *news);
    if (now_ns < a->next_poll_ns || !gpu_auto_waiting(a))
        return 0;
    a->next_poll_ns = now_ns + GPU_AUTO_POLL_NS;
    if (!a->buf) {
        size_t size = lib->compute_procs ? sizeof(nvmlProcessInfo_v2_t) : sizeof(nvmlProcessInfo_v1_t);
        a->buf = calloc(16, size);
        if (!a->buf)
            return 0;
        a->cap = 16;
    }
    for (unsigned g = 0; g < a->count; g++)
        if (a->state[g] == GPU_AUTO_WAITING)
            poll_gpu(a, lib, g, tree, ntree, news);
    return news->njoined || news->nrefused || news->foreign;
}

int gpu_auto_waiting(const struct gpu_auto *a)
{
    int n = 0;
    for (unsigned g = 0; g < a->count; g++)
        n += a->state[g] == GPU_AUTO_WAITING;
    return n;
}

void gpu_auto_close(struct gpu_auto *a)
{
    free(a->buf);
    a->buf = NULL;
    a->cap = 0;
}
