/*
 * recorder_rows.c — the rows the recorder writes besides samples: MARK
 * rows (`begin`, `end`, and the FIFO's marks, on the FIFO thread), the
 * CUDA bridge's lines and EVENT rows, the identity rows after `begin`, the
 * cgroup's counters, and any other EVENT. recorder.c decides when.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "gpu_identity.h"
#include "recorder_internal.h"

/* The last mark's label, written on the FIFO thread, read by the status
 * line on the main thread. */
static pthread_mutex_t last_mark_lock = PTHREAD_MUTEX_INITIALIZER;

void recorder_last_mark(struct recorder *r, char *buf, size_t size)
{
    pthread_mutex_lock(&last_mark_lock);
    snprintf(buf, size, "%s", r->last_mark);
    pthread_mutex_unlock(&last_mark_lock);
}

/* The marks callback, on the FIFO thread. A client-stamped mark keeps the
 * client's CLOCK_MONOTONIC time; its wall time is shifted by the same
 * amount so the two clocks of the row agree. */
void recorder_on_mark(void *ctx, const struct mark_line *m, int64_t arrival_ns)
{
    struct recorder *r = ctx;
    int64_t t = m->has_stamp ? m->stamp_ns : arrival_ns;
    int64_t wall = wall_ns() - (mono_ns() - t);
    struct trace_row row;
    if (m->has_attrs && m->attrs.has_dropped) {     /* a client's report, not a mark */
        char label[MARK_LABEL_MAX + 64];
        snprintf(label, sizeof label, "marks_dropped count=%lld %s", m->attrs.dropped, m->label);
        trace_row_init(&row, r->ncols, t, wall, ROW_EVENT);
        trace_row_label(&row, label);
    } else {
        trace_row_init(&row, r->ncols, t, wall, ROW_MARK);
        trace_row_label(&row, m->label);
        trace_row_attrs(&row, &m->attrs);
        linger_note_mark(&r->linger, m->label, t);
        pthread_mutex_lock(&last_mark_lock);
        snprintf(r->last_mark, sizeof r->last_mark, "%s", m->label);
        pthread_mutex_unlock(&last_mark_lock);
    }
    trace_row_int(&row, COL_ARRIVAL_MONO_NS, arrival_ns);
    trace_row_write(&row, &r->csv);
}

/* --cuda: libflinch_cuda.so's lines (reader thread) and the EVENT rows
 * they ask for (cuda_off; writer thread, after `begin`). */
int recorder_on_cuda_line(void *ctx, const char *payload, size_t len, char *event, size_t size)
{
    struct recorder *r = ctx;
    return kernels_out_line(&r->kernels, payload, len, event, size);
}

void recorder_on_cuda_event(void *ctx, const char *label, int64_t arrival_ns)
{
    struct recorder *r = ctx;
    struct trace_row row;
    trace_row_init(&row, r->ncols, arrival_ns, wall_ns() - (mono_ns() - arrival_ns), ROW_EVENT);
    trace_row_label(&row, label);
    trace_row_write(&row, &r->csv);
}

int recorder_write_mark(struct recorder *r, const char *label, int64_t t)
{
    struct trace_row row;
    trace_row_init(&row, r->ncols, t, wall_ns() - (mono_ns() - t), ROW_MARK);
    trace_row_label(&row, label);
    return trace_row_write(&row, &r->csv);
}

void recorder_write_event(struct recorder *r, const char *label, int gpu_col, long long gpu,
                        pid_t pid)
{
    struct trace_row row;
    trace_row_init(&row, r->ncols, mono_ns(), wall_ns(), ROW_EVENT);
    trace_row_label(&row, label);
    if (gpu_col)
        trace_row_int(&row, COL_GPU_INDEX, gpu);
    if (pid)
        trace_row_int(&row, COL_PROC_PID, pid);
    trace_row_write(&row, &r->csv);
}

/* The trace says what it recorded: one flinch_host row, one flinch_gpu row
 * per GPU, right after `begin` (gpu_identity.h). */
void recorder_write_identity(struct recorder *r)
{
    char label[MARK_LABEL_MAX + 64];
    host_identity_label(&r->nvml, r->o->interval_ms, r->o->gpu_spec, label, sizeof label);
    recorder_write_event(r, label, 0, 0, 0);
    for (int i = 0; i < r->ngpu; i++) {
        gpu_identity_label(&r->ids[i], r->gpus[i].index, label, sizeof label);
        recorder_write_event(r, label, 1, r->gpus[i].index, 0);
    }
}

/* The cgroup's CPU counters as an EVENT row at t (cgroup_cpu.h): FIRST
 * names the cgroup and its limit, and is stamped with `begin` (it was read
 * just before), so that a mark that arrived while `begin` was written
 * already finds a reading. */
void recorder_write_cgroup(struct recorder *r, int first, int64_t t)
{
    char label[768];
    cgroup_cpu_label(&r->cgroup, first, label, sizeof label);
    struct trace_row row;
    trace_row_init(&row, r->ncols, t, wall_ns() - (mono_ns() - t), ROW_EVENT);
    trace_row_label(&row, label);
    trace_row_int(&row, COL_PROC_PID, r->proc.pid);
    trace_row_write(&row, &r->csv);
}
