/*
 * recorder_gpus.c — the recorder's set of GPUs over time, and what the
 * trace says about each beyond its samples.
 *
 * Owns: the traced tree's pids handed to the GPU reads each tick
 * (per-process use, --gpu auto), --gpu auto's joins and the reasons it
 * found none, and the once-per-GPU EVENT rows that say why a GPU's GPM or
 * per-process columns are empty. recorder.c calls these from its schedule.
 */
#include <stdio.h>
#include <stdlib.h>

#include "clock.h"
#include "diag.h"
#include "recorder_internal.h"

static int cmp_pid(const void *a, const void *b)
{
    pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
    return (x > y) - (x < y);
}

/* The tree's pids as this tick's proc_tree_read found them (the watched
 * process alone without a tree), for per-process GPU use and --gpu auto.
 * Read by the GPU reads (gpu_pool's threads too), written only here,
 * before they start. */
void recorder_share_tree_pids(struct recorder *r)
{
    int n = 0;
    if (r->have_tree)
        for (int i = 0; i < r->tree.nmember && n < PROC_TREE_MAX; i++)
            r->tree_pids[n++] = r->tree.member[i].pid;
    else
        r->tree_pids[n++] = r->proc.pid;
    qsort(r->tree_pids, (size_t)n, sizeof r->tree_pids[0], cmp_pid);
    r->ntree_pids = n;
    for (int i = 0; i < r->ngpu; i++) {
        r->gpus[i].proc.tree = r->tree_pids;
        r->gpus[i].proc.ntree = n;
    }
}

/* Per-process GPU use needs a traced process: from the first tick on. */
void recorder_enable_proc_util(struct recorder *r)
{
    for (int i = 0; r->watching && i < r->ngpu; i++)
        if (gpu_proc_util_enable(&r->nvml, &r->gpus[i].proc, r->gpus[i].index,
                                 r->o->interval_ms) != 0 && !r->nvml.process_util)
            break;
}

/* --gpu auto: a GPU on which the tree has a compute context joins the
 * recording from the next tick on: its identity row, then `gpu_joined`
 * saying for which process (gpu_auto.h says how pids are matched). A
 * running reader pool is stopped, so the next tick reads the new set (and
 * starts the pool again if that is slow). */
static void auto_join(struct recorder *r, unsigned g, pid_t pid, unsigned nvml_pid)
{
    char label[MARK_LABEL_MAX + 64];
    if (r->ngpu == TRACE_MAX_GPUS)
        return;
    struct gpu_dev *d = &r->gpus[r->ngpu];
    nvmlReturn_t rc = gpu_dev_open(&r->nvml, d, g, r->o->interval_ms);
    if (rc != NVML_SUCCESS) {
        diag_warn("--gpu auto: pid %d has a compute context on GPU %u, but the GPU cannot be "
                  "read: %s", (int)pid, g, nvml_strerror(&r->nvml, rc));
        snprintf(label, sizeof label, "gpu_auto_unreadable gpu=%u pid=%d error=%d", g, (int)pid, rc);
        recorder_write_event(r, label, 1, g, pid);
        return;
    }
    gpu_identity_read(&r->nvml, d->handle, &r->ids[r->ngpu]);
    gpu_identity_label(&r->ids[r->ngpu], g, label, sizeof label);
    recorder_write_event(r, label, 1, g, 0);
    if (nvml_pid != (unsigned)pid)
        snprintf(label, sizeof label, "gpu_joined gpu=%u pid=%d nvml_pid=%u via=NSpid", g,
                 (int)pid, nvml_pid);
    else
        snprintf(label, sizeof label, "gpu_joined gpu=%u pid=%d", g, (int)pid);
    recorder_write_event(r, label, 1, g, pid);
    fprintf(stderr, "%s: --gpu auto: recording GPU %u from now on (pid %d has a compute "
            "context there)\n", diag_prog(), g, (int)pid);
    r->ngpu++;
    if (r->watching)
        gpu_proc_util_enable(&r->nvml, &d->proc, g, r->o->interval_ms);
    gpu_pool_stop(&r->pool);
}

void recorder_auto_poll(struct recorder *r)
{
    struct gpu_auto_news news;
    if (!gpu_auto_poll(&r->autosel, &r->nvml, r->tree_pids, r->ntree_pids, mono_ns(), &news))
        return;
    char label[MARK_LABEL_MAX + 64];
    for (int i = 0; i < news.nrefused; i++) {
        unsigned g = news.refused[i];
        nvmlReturn_t rc = r->autosel.refused_rc[g];
        diag_warn("--gpu auto: GPU %u does not list its compute processes (%s): whether the "
                  "command uses it is unknown", g, nvml_strerror(&r->nvml, rc));
        snprintf(label, sizeof label, "gpu_auto_refused gpu=%u error=%d", g, rc);
        recorder_write_event(r, label, 1, g, 0);
    }
    if (news.foreign) {
        diag_warn("--gpu auto: NVML reports pids from another PID namespace (GPU %u: pid %u is "
                  "no process here); --gpu auto cannot tell which are yours: use --gpu cuda or "
                  "a UUID", news.foreign_gpu, news.foreign_pid);
        snprintf(label, sizeof label, "gpu_auto_foreign_pids gpu=%u pid=%u", news.foreign_gpu,
                 news.foreign_pid);
        recorder_write_event(r, label, 1, news.foreign_gpu, 0);
    }
    for (int i = 0; i < news.njoined; i++)
        auto_join(r, news.joined[i], news.joined_pid[i], news.joined_nvml_pid[i]);
}

/* --gpu auto and no GPU joined: said on stderr and in the trace, with the
 * reason flinch knows. */
void recorder_auto_none(struct recorder *r)
{
    const struct gpu_auto *a = &r->autosel;
    int refused = 0;
    for (unsigned g = 0; g < a->count; g++)
        refused += a->state[g] == GPU_AUTO_REFUSED;
    double secs = (double)(mono_ns() - r->start_ns) / 1e9;
    if (refused == (int)a->count)
        diag_warn("--gpu auto: no GPU recorded: none of the %u GPUs lists its compute processes "
                  "to this user; use --gpu cuda or a UUID", a->count);
    else if (a->foreign_seen)
        diag_warn("--gpu auto: no GPU recorded in %.1f s: NVML's pids are from another PID "
                  "namespace; use --gpu cuda or a UUID", secs);
    else
        diag_warn("--gpu auto: no GPU recorded: the command opened no compute context on any of "
                  "the %u GPUs in %.1f s", a->count, secs);
    char label[MARK_LABEL_MAX + 64];
    snprintf(label, sizeof label, "gpu_auto_none gpus=%u refused=%d foreign=%d calls=%lld",
             a->count, refused, a->foreign_seen, a->calls);
    recorder_write_event(r, label, 0, 0, 0);
}

/* A flinch_gpm EVENT row per GPU after the first tick, and again when a
 * GPU's GPM stops (gpu_gpm.h): the trace says once why its GPM columns
 * are empty. */
void recorder_write_gpm_events(struct recorder *r)
{
    char label[MARK_LABEL_MAX + 64];
    for (int i = 0; i < r->ngpu; i++) {
        struct gpu_gpm *g = &r->gpus[i].gpm;
        if (!g->changed)
            continue;
        g->changed = 0;
        gpm_label(g, r->gpus[i].index, label, sizeof label);
        recorder_write_event(r, label, 1, r->gpus[i].index, 0);
    }
}

/* Per-process GPU use that stopped for good (or never started: no entry
 * point) is said in the trace too, once per GPU, for analyze to report. */
void recorder_note_proc_util_off(struct recorder *r)
{
    char label[MARK_LABEL_MAX];
    for (int i = 0; i < r->ngpu; i++)
        if (gpu_proc_util_off_label(&r->gpus[i].proc, r->gpus[i].index, label, sizeof label)) {
            recorder_write_event(r, label, 1, r->gpus[i].index, 0);
            r->gpus[i].proc.off_written = 1;
        }
}
