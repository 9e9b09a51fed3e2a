/*
 * proc_share.h — whose GPU time it was: the traced job's share of a GPU's
 * SM time against every other process's, per window, from the recorder's
 * per-process readings (gpu_proc_sm_pct, gpu_other_sm_pct,
 * gpu_proc_util_ts_us; README "Per-process GPU use").
 *
 * Owns: the readings of one GPU as the trace streams by, each placed on
 * the t_mono_ns axis over the span its samples cover (from the previous
 * reading's newest sample to its own; the first reading of a recording
 * covers the GPU_PROC_UTIL_MS before it); a window's split, the mean of the
 * readings weighted by how much of each overlaps the window; and what the
 * verdict does with it: a window the breakdown calls compute whose SM time
 * was mostly other processes' is reported mixed, never as the job
 * computing. The readings are coarse (about one a second, each the mean of
 * the driver's 1/6-1 s samples): the split is that of the seconds around a
 * window, and every output says over which span it was measured.
 */
#ifndef FLINCH_PROC_SHARE_H
#define FLINCH_PROC_SHARE_H

#include <stdint.h>

#include "analysis.h"
#include "trace_reader.h"

struct proc_reading {
    int64_t t0, t1;            /* t_mono_ns span its samples cover */
    float proc_pct, other_pct;
};

struct proc_share_log {
    struct proc_reading *r;
    long n, cap;
    int recording;             /* trace_row.recording of the last reading */
    long dropped;              /* readings beyond PROC_SHARE_MAX_READINGS */
};

#define PROC_SHARE_MAX_READINGS (1L << 22) /* ~48 days at one a second */

/* One SAMPLE row of this log's GPU (rows without a reading are ignored).
 * -1 when out of memory. */
int proc_share_add(struct proc_share_log *l, const struct trace_row *row);
void proc_share_free(struct proc_share_log *l);

/* For a consumer that streams the readings out (plot, export) rather than
 * keeping them: the reading this row adds, into *OUT, with the log kept to
 * that one reading (the next one links to it alone). 1 when the row added
 * one, 0 when not, -1 when out of memory. */
int proc_share_next(struct proc_share_log *l, const struct trace_row *row, struct proc_reading *out);

/* The split of [t0, t1] into g's proc_* fields (NAN when no reading
 * overlaps it). */
void proc_share_window(const struct proc_share_log *l, int64_t t0, int64_t t1,
                       struct window_gpu *g);

/* After verdict_window: the split in the evidence, and a compute verdict
 * that was mostly other processes' turned into mixed. */
void proc_share_verdict(struct window *w);

/* "SM busy 80%: the traced job 20%, other processes 60% (2 readings over
 * 1.2 s around the window)" into buf; "" when g has no split. */
const char *proc_share_text(const struct window_gpu *g, char *buf, size_t cap);

#endif
