/*
 * plot_data.h — what flinch plot draws, gathered from a trace in bounded
 * memory.
 *
 * Owns: feeding every series into its downsampler from the rows of one
 * pass, whose reader the caller shares with the windows' analysis
 * (analysis_feed.h), and the reduction of MARKs to at most one per pixel
 * column. The downsamplers' range ends at the trace's latest row: it is
 * taken from the file's last lines (trace_tail.h) before the pass, and
 * checked after it; where that guess was wrong (a row later than the last
 * ones) the series are read again in a second pass, with the same result.
 * Times are seconds since the trace's first row. Host-wide cells (CPU busy,
 * the traced process) are copied onto every GPU's row by the recorder, so
 * they are taken from the first GPU's rows only. Values that hold over a
 * span (GPM, the per-process split) are drawn as steps over it.
 */
#ifndef FLINCH_PLOT_DATA_H
#define FLINCH_PLOT_DATA_H

#include <stdint.h>

#include "downsample.h"
#include "kernel_lanes.h"
#include "labels_seen.h"
#include "proc_rate.h"
#include "proc_share.h"
#include "trace_limits.h"
#include "thread_lanes.h"

#define PLOT_MAX_GPUS TRACE_MAX_GPUS
#define PLOT_MAX_BREAKS 1024       /* recordings in one file whose gaps are drawn */

/* A series of values that each hold over a span, fed at both ends of it
 * so that the line is a step. */
struct held_line {
    struct downsample ds;
    int open;                      /* a span was fed; it ended at end_s */
    double end_s;
};

struct plot_gpu {
    int id;                        /* gpu_index */
    struct downsample power_instant, power_avg, util;
    /* GPM's SM activity (over gpu_gpm_span_ns before its row) and the
     * traced job's share of SM time (over the span proc_share.c gives each
     * per-process reading) */
    struct held_line sm_active, job_sm;
    struct proc_share_log proc;    /* its newest reading only */
};

/* MARKs falling in one pixel column: the first one's label and time. */
struct plot_mark {
    double t;
    char *label;
    long count;                    /* 0: no mark in this column */
};

struct plot_data {
    const char *path;
    int64_t t0_ns;                 /* t_mono_ns of the first row: time 0 */
    double trace_s;                /* last row's time */
    double from_s, to_s;           /* the range drawn */
    int ngpu;
    struct plot_gpu gpu[PLOT_MAX_GPUS];
    struct downsample host_cpu;    /* host_cpu_busy_pct */
    struct downsample proc_cores;  /* d(proc_cpu_ns)/dt, in cores */
    int nmark_slots;
    struct plot_mark *marks;       /* nmark_slots columns */
    long marks_total;              /* MARK rows in [from, to] */
    long rows;
    int has_label_infer_start, has_label_first_token;
    /* where each recording after the first starts (trace_row.recording),
     * increasing: lines are broken there */
    double breaks[PLOT_MAX_BREAKS];
    int nbreaks;
    char *labels_seen[LABELS_SEEN_MAX];  /* distinct MARK labels, for the hint */
    int nlabels_seen;
    struct thread_lanes lanes;     /* the traced threads (TRACE.threads), if recorded */
    struct kernel_lanes klanes;    /* the traced kernels (TRACE.kernels), if recorded */
    /* private: the pass */
    int nbuckets;
    double want_from_s, want_to_s; /* as asked (NAN: the trace's start / end) */
    int64_t last_ns;               /* latest t_mono_ns so far */
    int64_t guess_last_ns;         /* from the file's end; valid when have_guess */
    int have_guess;
    int feeding;                   /* series set up for the guessed range: rows go in */
    double fed_from_s, fed_to_s;   /* that range */
    int feed_error;                /* FEED_*: an error met while feeding, said at the end */
    struct proc_rate rate;
    int host_gpu;
};

/* Opens PATH into TR (to be read by the caller, trace_reader_next, each
 * row given to plot_data_row; closed by the caller after plot_data_close).
 * FROM_S / TO_S: the range in seconds since the first row (NAN: the
 * trace's start / end). NBUCKETS: downsampling buckets per series (about
 * the plot width in pixels). 0, or an exit code from diag.h with the
 * message printed. */
int plot_data_open(struct plot_data *d, const char *path, double from_s, double to_s, int nbuckets,
                   struct trace_reader *tr);
void plot_data_row(struct plot_data *d, const struct trace_row *row);
/* After the last row, when the reader ended without an error: the range
 * checked (the series read again if it was guessed wrong) and the thread
 * lanes read. 0, or an exit code with the message printed. */
int plot_data_close(struct plot_data *d);
void plot_data_free(struct plot_data *d);

#endif
