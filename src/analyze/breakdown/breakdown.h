/*
 * breakdown.h — a window's time divided into compute, host-cpu and waiting,
 * instant by instant, from every GPU signal the trace has.
 *
 * Owns: the per-instant "is this GPU busy" decision (fusing instantaneous
 * power against the GPU's levels, utilization shifted for its trailing
 * period, the GpuIdle clock-event reason, SM activity when recorded, and,
 * when nothing better exists, the 1 s average power and the SM clock), the
 * "is the traced process tree busy on the CPU" decision, the segments and
 * their edge resolution, the multi-GPU pattern, and the busiest thread.
 * The verdict built on it lives in verdict.c.
 */
#ifndef FLINCH_BREAKDOWN_H
#define FLINCH_BREAKDOWN_H

#include "analysis.h"
#include "tape.h"

/* How a GPU's sensors report, as analyze knows it (NAN: unknown, settled to
 * a conservative figure by sensor_figures.h; 0: ideal, reads the instant it
 * is sampled). A reading taken at t describes the mean over
 * [r - window, r] for the latest refresh r in (t - refresh, t]. */
struct sensor_cadence {
    double power_refresh_ms, power_window_ms;   /* gpu_power_instant_W */
    double util_period_ms;                      /* gpu_util_pct (refresh = averaging period) */
    double average_refresh_ms, average_window_ms; /* gpu_power_W (1 s average on Ampere+) */
    double event_lag_ms;                        /* the GpuIdle reason reports t - lag, lag <= this */
};

/* Multi-GPU pattern of a window (ngpu >= 2). */
enum gpu_pattern { PATTERN_NONE, PATTERN_ALL_COMPUTE, PATTERN_ALL_WAITING, PATTERN_STRAGGLER,
                   PATTERN_UNEVEN };

/* The arrays a window's breakdown is worked out in (its GPUs' timelines
 * and theirs, the CPU side's, the edges), kept from one window's
 * breakdown to the next (breakdown.c); NULL when out of memory. */
struct breakdown_work;
struct breakdown_work *breakdown_work_new(void);
void breakdown_work_free(struct breakdown_work *work);

/* Fills w->bd and every w->gpu[i].bd from w->tape, using each GPU's levels
 * (w->gpu[i].idle_w/busy_w, set before) and cadence (cad, indexed like
 * w->gpu; NULL: all unknown). names: the thread names host samples point at.
 * work: see above (NULL: the window allocates its own). Also fills
 * w->top_thread_cores and w->top_thread. */
void breakdown_window(const struct analysis_options *o, struct window *w,
                      const struct sensor_cadence *cad, char (*names)[40], int nnames,
                      struct breakdown_work *work);

/* Frees bd's segments and zeroes it (a zeroed breakdown holds none). */
void breakdown_release(struct breakdown *bd);

/* Several hosts: rebuilds w->bd from its GPUs' own breakdowns (each made
 * against its host's CPU). */
void breakdown_merge_gpus(const struct analysis_options *o, struct window *w);

/* The pattern of a multi-GPU window, and the straggler's index into w->gpu. */
enum gpu_pattern breakdown_pattern(const struct analysis_options *o, const struct window *w,
                                   int *straggler);

/* The breakdown's reason as a whole (JSON and CSV "reason", the export's
 * window slice): the segments' reason holding the most time ("gpu-spin"),
 * the first in time on a tie; NULL when no segment has one. */
const char *breakdown_reason(const struct breakdown *bd);

/* "waiting 0-300 ms, then compute 300-724 ms" into buf (cap bytes); at most
 * max_shown segments, then ", ... N more". Returns buf. */
const char *breakdown_segments_text(const struct breakdown *bd, int max_shown, char *buf, size_t cap);

#endif
