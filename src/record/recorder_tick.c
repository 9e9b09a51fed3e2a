/*
 * recorder_tick.c — one tick of `flinch record`: the GPUs read (one after
 * another, or on gpu_pool's threads once that gets slow), then the cells
 * every GPU's row shares (schedule, host CPU, RAPL, the watched process
 * tree and its cgroup), then one SAMPLE row per GPU (a host-only row while
 * --gpu auto has found none). recorder.c owns the schedule that calls it.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "diag.h"
#include "gpu_row.h"
#include "recorder_internal.h"

/* A tick's serial GPU reads taking longer than this switch to parallel reads. */
#define PARALLEL_AFTER_NS (1 * NS_PER_MS)

/* Per-tick cells shared by every GPU's row: schedule, host CPU, RAPL and
 * the watched process (read before the GPUs, see recorder_sample_tick). Notes a
 * process exit with an EVENT row. */
static void sample_tick_cells(struct recorder *r, struct trace_row *base, int64_t tick,
                              int64_t late_ns)
{
    trace_row_init(base, r->ncols, 0, 0, ROW_SAMPLE);
    trace_row_int(base, COL_TICK, tick);
    trace_row_int(base, COL_LATE_NS, late_ns);
    double pct;
    if (host_cpu_read(&r->host, mono_ns(), &pct) == 0)
        trace_row_pct1(base, COL_HOST_CPU_BUSY_PCT, pct);
    if (!r->o->no_rapl) {
        unsigned long long uj;
        if (rapl_read_raw(&r->rapl, &uj) == 0)
            trace_row_uint(base, COL_RAPL_ENERGY_UJ, uj);
        rapl_sample(&r->rapl);
        for (int i = 0; i < r->rapl.ndom; i++)
            if (r->rapl.dom[i].have_value)
                trace_row_uint(base, COL_COUNT + i, r->rapl.dom[i].cum_uj);
    }
    if (r->watching) {
        trace_row_int(base, COL_PROC_PID, r->proc.pid);
        if (r->proc_rc >= 0) {
            trace_row_int(base, COL_PROC_CPU_NS, r->proc_cpu_ns);
            trace_row_char(base, COL_PROC_STATE, r->proc_state);
        }
        if (r->have_tree) {
            trace_row_int(base, COL_PROC_TREE_CPU_NS, r->tree_cpu_ns);
            trace_row_int(base, COL_PROC_TREE_PROCS, r->tree_procs);
            if (r->runq_rc == 1)
                trace_row_int(base, COL_PROC_TREE_RUNQ_NS, r->runq_ns);
            proc_tree_slow(&r->tree, mono_ns());
            if (r->have_cgroup && cgroup_cpu_read(&r->cgroup) == 1)
                recorder_write_cgroup(r, 0, mono_ns());
            if (!isnan(r->tree.top_cores)) {
                trace_row_milli(base, COL_PROC_TOP_THREAD_CORES,
                                (unsigned long long)llround(fmax(r->tree.top_cores, 0) * 1000));
                trace_row_text(base, COL_PROC_TOP_THREAD, r->tree.top_name);
            }
        }
        if (r->proc_rc == 1 && !r->proc_was_exited && !r->have_child) {
            char label[64];
            snprintf(label, sizeof label, "proc_exit pid=%d", (int)r->proc.pid);
            recorder_write_event(r, label, 0, 0, r->proc.pid);
        }
    }
}


/* VALUE then UNIT into the status line's power text; no snprintf, as this
 * runs once per sample (a cell is < TRACE_CELL_MAX bytes, so both fit). */
static void power_text(char *dst, const char *value, const char *unit)
{
    size_t n = strlen(value), u = strlen(unit);
    memcpy(dst, value, n);
    memcpy(dst + n, unit, u + 1);
}

/* The power the live status line shows: instantaneous where the GPU has
 * it (gpu_power_W is a 1 s trailing average on Ampere and newer: 464 W
 * while the GPU draws 612 W), else the average, marked as such. */
static void note_power(struct recorder *r, const struct trace_row *row)
{
    _Static_assert(sizeof r->last_power >= TRACE_CELL_MAX + sizeof " W (1 s avg)" - 1,
                   "last_power holds a cell and its unit");
    if (row->set[COL_GPU_POWER_INSTANT_W])
        power_text(r->last_power, row->text[COL_GPU_POWER_INSTANT_W], " W");
    else if (row->set[COL_GPU_POWER_W])
        power_text(r->last_power, row->text[COL_GPU_POWER_W], " W (1 s avg)");
    else
        power_text(r->last_power, "", "-");
}

/* The thread sampler follows the tree this watcher finds (one tree
 * enumeration for both). */
static void feed_thread_sampler(struct recorder *r)
{
    pid_t pids[PROC_TREE_MAX];
    for (int i = 0; i < r->tree.nmember; i++)
        pids[i] = r->tree.member[i].pid;
    thread_sampler_set_tree(r->threads, pids, r->tree.nmember);
}

/* The tree's run-queue delay, over the members the tree read just found
 * (proc_runq.h: a pass is skipped when the last one was too recent for its
 * cost, and the column is then left empty on this row). */
static void read_runq(struct recorder *r)
{
    pid_t pids[PROC_TREE_MAX];
    for (int i = 0; i < r->tree.nmember; i++)
        pids[i] = r->tree.member[i].pid;
    r->runq_rc = proc_runq_read(&r->runq, pids, r->tree.nmember, mono_ns(), &r->runq_ns);
}

/* See recorder_internal.h.
 *
 * The GPUs are read first, right after the wake-up, and only then the host
 * cells and the writes: a slow /proc read or a write that waits on the disk
 * then delays no GPU reading, so the GPU samples keep their schedule.
 *
 * Several GPUs are read one after another while that is quick, and in
 * parallel, one gpu_pool thread each, once a tick's reads take longer than
 * PARALLEL_AFTER_NS: a sample is about 9 NVML queries, of 100-300 us each
 * on a busy multi-GPU host, so in a row 8 GPUs would take longer than a
 * 10 ms tick and GPU 7 would be stamped milliseconds after GPU 0. While
 * the driver answers in microseconds the threads would only add their
 * wake-ups (tens of us of CPU each), so they start only when needed, and
 * then stay. A lost GPU ends the recording: the rows of every GPU that was
 * read whole are still written, in GPU order, and the first lost GPU is
 * the one reported. */
int recorder_sample_tick(struct recorder *r, int64_t tick, int64_t late_ns)
{
    struct gpu_reading *readings = r->readings;
    nvmlReturn_t rc[TRACE_MAX_GPUS];
    int lost = 0;
    /* The process's CPU clock is read just before the GPUs (a syscall and a
     * small /proc read), so its rate over t_mono_ns is not jittered by how
     * long the GPU reads took. */
    if (r->watching) {
        r->proc_was_exited = r->proc.exited;
        r->proc_rc = proc_watch_read(&r->proc, &r->proc_cpu_ns, &r->proc_state);
        if (r->have_tree)
            proc_tree_read(&r->tree, mono_ns(), &r->tree_cpu_ns, &r->tree_procs);
        if (r->have_tree)
            read_runq(r);
        if (r->have_tree && r->threads)
            feed_thread_sampler(r);
        recorder_share_tree_pids(r);
    }
    for (int i = 0; i < r->ngpu; i++)
        r->gpus[i].tick = tick;
    if (r->pool.n > 0) {
        gpu_pool_sample(&r->pool, rc);
    } else {
        for (int i = 0; i < r->ngpu; i++)
            rc[i] = gpu_sample(&r->nvml, &r->gpus[i], &readings[i]);
        if (r->ngpu > 1 && !r->pool_failed && mono_ns() - readings[0].t_mono_ns > PARALLEL_AFTER_NS &&
            gpu_pool_start(&r->pool, &r->nvml, r->gpus, r->readings, r->ngpu) != 0) {
            diag_warn("reading the GPUs one after another from now on");
            r->pool_failed = 1;
        }
    }
    struct trace_row base, row;
    int64_t host_t = mono_ns();
    sample_tick_cells(r, &base, tick, late_ns);
    if (r->ngpu == 0) {
        /* --gpu auto before a GPU joined: the host's cells alone, no gpu_index */
        trace_row_int(&base, COL_T_MONO_NS, host_t);
        trace_row_int(&base, COL_T_WALL_NS, wall_ns() - (mono_ns() - host_t));
        trace_row_write(&base, &r->csv);
        return 0;
    }
    for (int i = 0; i < r->ngpu; i++) {
        if (rc[i] == NVML_ERROR_GPU_IS_LOST) {
            if (!lost)
                lost = i + 1;
            continue;
        }
        row = base;
        gpu_row_fill(&row, &r->gpus[i], &readings[i]);
        if (trace_row_write(&row, &r->csv) != 0)
            return 0;
        linger_note_reading(&r->linger, i, &readings[i]);
        if (i == 0)
            note_power(r, &row);
    }
    return lost;
}
