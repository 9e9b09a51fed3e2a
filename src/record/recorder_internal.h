/*
 * recorder_internal.h — the recorder's state, shared by recorder.c (setup
 * and the schedule) and recorder_gpus.c (the set of GPUs and what is said
 * about each: --gpu auto joins, per-process use, GPM). Nothing outside
 * src/record/recorder*.c includes it.
 */
#ifndef FLINCH_RECORDER_INTERNAL_H
#define FLINCH_RECORDER_INTERNAL_H

#include <signal.h>
#include <sys/types.h>

#include "cgroup_cpu.h"
#include "child_cmd.h"
#include "csv_writer.h"
#include "gpu_auto.h"
#include "gpu_identity.h"
#include "gpu_pool.h"
#include "gpu_sampler.h"
#include "host_cpu.h"
#include "live_hub.h"
#include "mark_fifo.h"
#include "nvml_loader.h"
#include "proc_runq.h"
#include "proc_tree.h"
#include "proc_watch.h"
#include "rapl.h"
#include "recorder.h"
#include "recorder_linger.h"
#include "kernels_out.h"
#include "thread_sampler.h"
#include "ticker.h"
#include "trace_limits.h"
#include "trace_row.h"

struct recorder {
    const struct record_opts *o;
    struct nvml_lib nvml;
    struct gpu_dev gpus[TRACE_MAX_GPUS];
    struct gpu_identity ids[TRACE_MAX_GPUS]; /* read once, for the EVENT rows */
    int fields_written;      /* GPUs whose flinch_fields EVENT row is down (after their first tick) */
    struct gpu_reading readings[TRACE_MAX_GPUS]; /* this tick's, before they are written */
    int ngpu;
    int autogpu;             /* --gpu auto: GPUs join as the tree opens contexts */
    struct gpu_auto autosel;
    struct gpu_pool pool;    /* started once serial reads get slow (sample_tick) */
    int pool_failed;         /* could not start it: stay serial */
    int proc_rc, proc_was_exited; /* this tick's proc_watch_read */
    int64_t proc_cpu_ns;
    char proc_state;
    struct csv_out csv;
    int ncols;
    struct rapl rapl;
    struct host_cpu host;
    struct proc_watch proc;
    int watching;
    struct proc_tree tree;   /* the watched process and its descendants */
    int have_tree, tree_procs;
    int64_t tree_cpu_ns;
    struct proc_runq runq;   /* the tree's run-queue delay (proc_tree_runq_ns); runq_rc: last read's */
    int runq_rc; int64_t runq_ns;
    pid_t tree_pids[PROC_TREE_MAX]; /* this tick's tree pids, sorted (gpu_proc_util, --gpu auto) */
    int ntree_pids;
    struct mark_fifo fifo;
    int have_fifo;
    struct kernels_out kernels;   /* --cuda: OUT.kernels (fp NULL: none) */
    char private_dir[256];
    char fifo_path[4096];
    struct cgroup_cpu cgroup;     /* the watched process's cgroup v2 CPU throttling */
    int have_cgroup;
    struct thread_sampler *threads; /* thread states of the watched tree, on its own thread */
    struct child_cmd child;
    int have_child;
    int child_abandoned;     /* a second signal: exit without waiting for CMD */
    int forwarded;           /* a stop signal was passed on to CMD */
    int metrics_file_new;    /* --metrics-file did not exist: a failed start removes it */
    int show_status;
    int64_t start_ns;
    int64_t next_status_ns;
    char last_power[TRACE_CELL_MAX + 16];
    char last_mark[MARK_LABEL_MAX + 1]; /* the status line's last mark (last_mark_lock in recorder_rows.c) */
    char header[CSV_ROW_MAX];
    struct live_hub hub;     /* --live / --metrics: fed a copy of every row */
    struct ticker tk;        /* the schedule (run_loop, then the linger) */
    struct linger linger;    /* recorder_linger.h */
};

/* recorder_rows.c: the marks FIFO's callbacks (recorder_on_mark on the
 * FIFO thread; the CUDA bridge's lines and their EVENT rows), MARK rows
 * (`begin`, `end`) at T, the identity rows after `begin`, and the last
 * mark's label for the status line (copied under its lock). */
void recorder_on_mark(void *ctx, const struct mark_line *m, int64_t arrival_ns);
int recorder_on_cuda_line(void *ctx, const char *payload, size_t len, char *event, size_t size);
void recorder_on_cuda_event(void *ctx, const char *label, int64_t arrival_ns);
int recorder_write_mark(struct recorder *r, const char *label, int64_t t);
void recorder_write_identity(struct recorder *r);
void recorder_last_mark(struct recorder *r, char *buf, size_t size);

/* An EVENT row now: LABEL, with gpu_index GPU when GPU_COL, proc_pid PID when set. */
void recorder_write_event(struct recorder *r, const char *label, int gpu_col, long long gpu,
                          pid_t pid);

/* The watched tree's cgroup v2 CPU throttling counters as an EVENT row
 * (FIRST: the one at the start), stamped T. */
void recorder_write_cgroup(struct recorder *r, int first, int64_t t);

/* recorder_tick.c: one tick's rows. Returns 0, or the index+1 of a GPU
 * that was lost. */
int recorder_sample_tick(struct recorder *r, int64_t tick, int64_t late_ns);

/* recorder_gpus.c */
void recorder_share_tree_pids(struct recorder *r);
void recorder_enable_proc_util(struct recorder *r);
void recorder_note_proc_util_off(struct recorder *r);
void recorder_write_gpm_events(struct recorder *r);
void recorder_auto_poll(struct recorder *r);
void recorder_auto_none(struct recorder *r);

/* recorder_linger.c: after `end` is down, keeps the schedule going while
 * linger_needed says so, for at most --linger-ms, and not past a further
 * stop signal (STOP_COUNT grown beyond what it was on entry). */
void recorder_linger(struct recorder *r, volatile sig_atomic_t *stop_count);

#endif
