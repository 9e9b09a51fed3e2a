/*
 * analysis_internal.h — the state of one analysis pass, shared by
 * analysis.c (rows in), analysis_samples.c (a SAMPLE row's readings),
 * analysis_edges.c (window edges resolved against the integrators) and
 * analysis_finish.c (levels, verdicts, summary). Not for other users: they
 * see analysis.h.
 */
#ifndef FLINCH_ANALYSIS_INTERNAL_H
#define FLINCH_ANALYSIS_INTERNAL_H

#include "analysis.h"
#include "partial_hold.h"
#include "pcie_counter.h"
#include "proc_share.h"
#include "energy_estimator.h"
#include "labels_seen.h"
#include "trace_limits.h"
#include "integrate.h"
#include "sensor_faults.h"
#include "tape.h"
#include "verdict.h"
#include "map_array.h"
#include "windows.h"

#define ANALYSIS_MAX_GPUS TRACE_MAX_GPUS
/* An edge still waiting for a quantity this long after its time gives up
 * on it (NAN): the column stopped being recorded. */
#define EDGE_STALE_NS (5 * 1000000000LL)

/* per GPU; the PCIe ones are pcie_counter.h's continuous counts (bytes), and
 * the resets seen so far (a window overlapping one has a lower bound) */
enum { QG_COUNTER, QG_INSTANT, QG_AVERAGE, QG_UTIL, QG_PCIE_TX, QG_PCIE_RX, QG_PCIE_RESETS, QG_N };
enum { QH_CPU, QH_PROC, QH_RAPL_RAW, QH_RAPL0 };                 /* host */

struct gap_stack { long *idx; int64_t *gap; long n, cap; };

struct gpu_stream {
    int id;                        /* gpu_index */
    struct integrator ig;
    struct energy_estimator est;   /* raw counter readings for the edge model */
    struct cadence_tracker *cadence;
    struct sensor_faults faults;
    struct power_hist *hist_instant, *hist_average;
    struct power_hist *quiet_instant, *quiet_average;  /* samples with utilization <= 5% or unknown */
    double power_limit_w;
    struct gap_stack gaps;         /* gaps that left the ring */
    struct tape tape;              /* gpu_sample: recent readings for the breakdown */
    struct partial_hold *hold_power, *hold_util;  /* refresh periods from partial readings */
    struct pcie_counter pcie[2];   /* TX, RX */
    int64_t pcie_last_t;           /* time of the last PCIe reading, INT64_MIN before one */
    double pcie_now;               /* TX + RX bytes so far (continuous), NAN when unknown */
    long pcie_wraps, pcie_resets;
    /* The recorder reads utilization, SM clock and reasons only every
     * GPU_MEDIUM_MS and repeats them in between (gpu_sampler.h): which
     * rows hold a fresh read follows from the tick numbers. */
    int64_t medium_last_tick, first_tick;
    int64_t first_t, medium_every;     /* 0: not known yet */
    int medium_every_tick;             /* EVERY_TICK_*: changed on a row that repeats: read every row */
    float last_util, last_clock;
    signed char last_idle_bit;
    unsigned idle_bit_seen;            /* bit 0: GpuIdle seen clear, bit 1: seen set (both: the flag is live) */
    struct proc_share_log procs;       /* per-process readings (proc_share.h) */
};

#define THREAD_NAMES_MAX 256

#define COUNT_DONE (1u << 30)

/* One window edge as seen by one stream. */
struct point {
    double cum[INTEG_MAX_Q];
    unsigned done;                 /* bit q: cum[q] known; COUNT_DONE: n known */
    unsigned nodata;               /* bit q: the edge is before q's first reading */
    unsigned late;                 /* bit q: gave up (end of trace, or stale) */
    long n;                        /* samples before the edge */
    int est_state;                 /* 0: pending, 1: est valid, 2: none (fallback) */
    int near_end;                  /* est_state 2 because the trace ended too soon after it */
    int est_waiting;               /* est_wake holds: the estimate is pending until then */
    struct est_wake est_wake;
    struct est_result est;
    uint32_t reasons[INTEG_REASON_BITS];
};

/* What the start mark said beyond its time and line: a range's category
 * and payload (allocated only when it has either). */
struct start_attrs {
    char category[MARK_CATEGORY_MAX + 1];
    char payload[MARK_PAYLOAD_MAX + 1];
};

/* A window whose edges are still being gathered. Its window record (2.7
 * KB) is made only once both edges are resolved (finish_window), and its
 * points are allocated per edge seen, the GPU ones per GPU in the trace so
 * far: an open start costs under 1 KB, not 37 KB (a point per possible
 * GPU and a window record each). */
struct active {
    int kind;                      /* 0: a window; 1: an --idle-window window */
    long id;
    int have[2];                   /* start / end mark seen */
    int pending;                   /* in ctx.pend */
    int dropped;                   /* over --max-open: freed when it leaves ctx.pend */
    int64_t t[2], wall[2];         /* t_mono_ns, t_wall_ns of the marks */
    long line[2];
    int interrupted;               /* the end mark has interrupted=WHY */
    int recording;                 /* 1-based, the start mark's (analysis.recordings + 1) */
    const char *label;             /* any range: the name the namer gave it; NULL: the pairing's */
    struct start_attrs *attrs;     /* NULL: none */
    struct point *gpu[2];          /* per GPU stream, ngpu_pts[which] of them */
    int ngpu_pts[2];
    struct point *host[2];         /* allocated with the edge */
    int complete_with[2];          /* the edge was complete with this many GPU streams,
                                      plus one (0: not yet): resolve_active passes it over */
    int gated;                     /* all it waits on is estimates' wakes (resolve_pending) */
    int gate_ngpu;                 /* GPU streams when it was found so */
};
void active_free(struct active *act);
#define ACTIVE_SPARE 8

/* One recording's power levels per GPU stream (ctx.gpu order), taken
 * from its samples alone when the next recording starts and at the end of
 * the trace (analysis_recordings.c), and its unmatched marks. */
struct recording_levels {
    double idle[ANALYSIS_MAX_GPUS], busy[ANALYSIS_MAX_GPUS];
    const char *origin[ANALYSIS_MAX_GPUS];
    int seen[ANALYSIS_MAX_GPUS];   /* the GPU has power readings in it */
    long unmatched_starts, unmatched_ends;
};

struct ctx {
    const struct analysis_options *opt;
    struct analysis *a;
    const char *path;
    struct trace_reader *tr;
    struct gpu_stream gpu[ANALYSIS_MAX_GPUS];   /* in order of appearance */
    int ngpu;
    /* SAMPLE rows by tick, this recording: the last row's tick and time,
     * and the time of the last row of an earlier tick (INT64_MIN: none).
     * A GPU whose first row comes after an earlier tick's rows joined late
     * (--gpu auto): its readings are not extended back before that. */
    double tick_now;
    int64_t tick_now_last_ns, prev_tick_last_ns;
    struct integrator host;
    int64_t latest_sample_ns;      /* latest SAMPLE row's time, INT64_MIN before one */
    int n_rapl;
    struct pairing pair[2];
    struct active **act_of[2];     /* by window id; NULL once finished (or dropped) */
    /* The finished windows' records in the order they finished, which
     * finish_trace puts in start-mark order where they lie: they become
     * a->windows and c->idle without a copy (map_array.h). Live windows
     * drop theirs as reported. */
    struct map_array wins[2];
    long nwins[2];
    long *win_of[2];               /* by window id: its record's place in wins once
                                      finished, else -1 (window_of) */
    long nids[2];                  /* ids given (a->nwindows, c->nidle until finish_trace) */
    long cap_act[2];
    long nactive;
    struct active *spare_act[ACTIVE_SPARE]; /* finished ones kept for the next (analysis_edges.c) */
    int nspare_act;
    struct active **pend;          /* actives with an unresolved edge */
    long npend, cap_pend;
    struct window *idle;           /* --idle-window windows */
    long nidle;
    struct map_array idle_map;     /* where c->idle lies (map_array.h) */
    struct tape host_tape;         /* host_sample */
    struct tape_scratch scratch;   /* one window's samples decoded for its breakdown */
    struct breakdown_work *breakdown_work; /* the breakdown's arrays, kept (breakdown.h) */
    char (*thread_names)[40];      /* proc_top_thread values seen, THREAD_NAMES_MAX at most */
    int nthread_names;
    double hold_power_ms[ANALYSIS_MAX_GPUS], hold_util_ms[ANALYSIS_MAX_GPUS]; /* by sorted GPU */
    int64_t proc_exit_ns;          /* first row where the traced process was gone ('X'), or INT64_MAX */
    int seen_start, seen_end;
    long first_start_line, last_end_line;
    struct recording_levels *rec_levels;  /* one per recording ended so far */
    int nrec_levels;
    /* Streaming users (live_windows.c): called when window `id` (kind 0)
     * has both edges resolved, after its active record is gone. An exit
     * code; EXIT_OK to go on. */
    int (*window_done)(struct ctx *c, long id);
    void *hook_arg;
    struct kernels_data *kernels;  /* PATH.kernels (--cuda), loaded at the first window; NULL: none */
    int kernels_loaded;
};

int open_window(struct ctx *c, int kind, const struct trace_row *r);
int set_edge(struct ctx *c, struct active *act, int which, const struct trace_row *r);
struct active *find_active(struct ctx *c, int kind, long id);
/* Frees the finished windows' active records kept for reuse (ctx.spare_act). */
void active_spares_free(struct ctx *c);
/* Past cap open windows (kind 0), drops the one open longest (pairing and
 * active record; its id then has no window): how many it dropped. */
long drop_open_over(struct ctx *c, long cap);
/* Window id's finished record (kind 0: windows, 1: idle windows), NULL
 * while it has none. Records move as more finish: not to be held. */
struct window *window_of(struct ctx *c, int kind, long id);
/* Frees what a window record owns (its GPUs, their and its breakdowns'
 * segments, its samples' ranges), not the record itself (NULL: nothing). */
void window_release(struct window *w);
void mark_all_pending(struct ctx *c);
/* Resolves what can be resolved; at eof, everything. An exit code. */
int resolve_pending(struct ctx *c, int eof);
int finish_trace(struct ctx *c);
void finish_analysis(struct ctx *c);
/* One window's energy total, uncertainty and verdict from the levels
 * known so far (the live answer); *levels_origin says where the first
 * GPU's levels came from. */
void finish_window_so_far(struct ctx *c, struct window *w, const char **levels_origin);
/* Streaming: analysis_run split in three. begin takes an open reader (for
 * its columns); row feeds one row; the caller ends with finish_trace,
 * finish_analysis (or not) and free_ctx. */
int analysis_begin(struct ctx *c, const struct analysis_options *o, const char *path,
                   struct trace_reader *tr, struct analysis *a);
int analysis_row(struct ctx *c, const struct trace_row *row);
/* After the last row (STATUS: EXIT_OK, or the failure so far): the windows
 * finished, analysed and their thread states read, as analysis_run ends;
 * frees c. An exit code, with the message printed. */
int analysis_end(struct ctx *c, int status);
/* A SAMPLE row into the GPU's and the host's state (analysis_samples.c);
 * an exit code. */
int analysis_on_sample(struct ctx *c, const struct trace_row *r);
void free_ctx(struct ctx *c);
/* analysis_recordings.c: the recording that ends (at the next one's start,
 * or at the end of the trace) keeps its levels; with restart, the power
 * histograms start again empty. 0, or -1 when out of memory. */
int recording_levels_take(struct ctx *c, int restart);
/* The levels of recording r (1-based) per GPU in gpu_ids order (order[i]:
 * its stream), with --idle-window's windows of that recording and
 * --idle-w/--busy-w applied. */
void recording_levels_get(struct ctx *c, int r, const int *order, double *idle, double *busy,
                          const char **origin);
/* With several recordings: a->by_recording, each one's levels and summary. */
void recordings_summarize(struct ctx *c, const int *order);
void recordings_free(struct analysis *a);
struct stat_summary stat_summarize(double *v, long n);
/* Keeps the samples a window may still need (see tape.h); 0 or -1. */
int tapes_push(struct ctx *c, struct gpu_stream *g, const struct trace_row *r);
/* Notes the range of the samples around [t0, t1] in w->samples (and pins
 * them); 0 or -1. */
int capture_window_tape(struct ctx *c, struct window *w, int64_t t0, int64_t t1);
/* w's samples decoded into c->scratch for its breakdown; NULL when it has
 * none (or out of memory). Valid until the next call. */
struct window_tape *window_tape_open(struct ctx *c, const struct window *w);
/* Unpins and frees w->samples (the breakdown is made). */
void window_samples_release(struct ctx *c, struct window *w);
int gap_push(struct gap_stack *s, long idx, int64_t gap);
double gap_max_since(const struct gap_stack *s, long idx);

#endif
