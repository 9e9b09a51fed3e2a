/*
 * metrics_text.h — what `flinch record --metrics` exposes, and the formats
 * it is written in: the Prometheus text format 0.0.4 and OpenMetrics 1.0.0.
 *
 * Owns: the metric state (plain values, updated only by the live hub's
 * thread from the rows it reads), the metric names, units, types and HELP
 * text, label escaping, and rendering the whole state as one text in
 * either format. Label values come from the configuration (window names, GPU index and UUID,
 * version, host name) and, for the per-range metrics, from range names:
 * the first METRICS_RANGES_DEFAULT (--metrics-ranges N) distinct names
 * each get a `range` label value, every later one is counted under
 * range="other", and a name is made a safe label value first (valid UTF-8,
 * at most METRICS_NAME_MAX - 1 bytes). So the number of series is bounded
 * by the configuration whatever the application sends (README, "For the
 * fleet"). Free-form MARK labels (plain marks) never become label values.
 */
#ifndef FLINCH_METRICS_TEXT_H
#define FLINCH_METRICS_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "metrics_format.h"

#define METRICS_MAX_GPUS 64
#define METRICS_MAX_WINDOWS 16
#define METRICS_NAME_MAX 64
#define METRICS_UUID_MAX 96
#define METRICS_BUCKETS 16   /* duration histogram bounds, +Inf excluded */
#define METRICS_RANGES_DEFAULT 32
#define METRICS_RANGES_MAX 1000
#define METRICS_RANGE_OTHER "other"

struct metrics_gpu {
    int index;
    char uuid[METRICS_UUID_MAX];   /* "" when the driver gave none */
    /* latest readings, NAN when never read */
    double power_w, power_instant_w, util_pct, sm_clock_mhz, energy_mj;
    /* the latest value of those the trace holds only on some rows, kept
     * until the next: GPM SM activity (until GPM stops), the per-process
     * SM split (traced job, other processes) */
    double sm_active_pct, proc_sm_pct, other_sm_pct;
};

struct metrics_window {
    char name[METRICS_NAME_MAX];
    uint64_t bucket[METRICS_BUCKETS];   /* count with duration <= bound (cumulative) */
    uint64_t count;
    double duration_sum_s;
    double energy_j;                    /* windows with a finite energy */
    double compute_s, host_cpu_s, waiting_s;
    uint64_t by_verdict[VERDICT_COUNT];
};

struct metrics_state {
    char version[32];
    char host[256];
    int ngpu;
    struct metrics_gpu gpu[METRICS_MAX_GPUS];
    /* the trace's own counts (live_counts.h), set before each render */
    long long samples;                  /* SAMPLE rows */
    long long marks_received;           /* MARK rows that came through the FIFO */
    long long marks_rejected;           /* lines the FIFO refused */
    long long ticks_skipped;            /* ticks the schedule skipped (tick column gaps) */
    long long live_rows_dropped;        /* rows the live analysis never saw */
    long long windows_abandoned;        /* windows dropped unfinished (live_windows.h) */
    int nwin;
    struct metrics_window win[METRICS_MAX_WINDOWS];
    int range_cap;                      /* names with their own series; 0: no range metrics */
    int nrange;                         /* names given a series so far */
    int other_used;                     /* a range was counted under "other" */
    struct metrics_window *range;       /* range_cap + 1: the names, then "other" */
};

extern const double metrics_bucket_bounds[METRICS_BUCKETS];

void metrics_state_init(struct metrics_state *s, const char *host);
/* Turns the per-range metrics on with room for cap names (1..
 * METRICS_RANGES_MAX). 0, or -1 when out of memory. */
int metrics_state_ranges(struct metrics_state *s, int cap);
void metrics_state_free(struct metrics_state *s);
/* The name a range labelled `label` is counted under: a pointer into the
 * state that stays valid (its own series, or "other" once the cap is
 * reached, or when the label, made a label value, is "other"). NULL when
 * range metrics are off. Usable as a range_namer_fn (arg: the state). */
const char *metrics_range_name(void *state, const char *label);
/* Counts one finished range window; w->start_label is what
 * metrics_range_name returned. */
void metrics_add_range_window(struct metrics_state *s, const struct window *w);
/* The GPU with this index, added on first sight (NULL when full). */
struct metrics_gpu *metrics_gpu(struct metrics_state *s, int index);
/* Counts one finished window of window definition `win`. */
void metrics_add_window(struct metrics_state *s, int win, const struct window *w);

/* A window or range name as a label value, in out[METRICS_NAME_MAX]: valid
 * UTF-8 (a byte that is not, or a control character, becomes U+FFFD), cut
 * at a character boundary to at most METRICS_NAME_MAX - 1 bytes, ending in
 * "..." when cut. */
void metrics_label_value(char *out, const char *name);

/* Escapes a label value (\\, \", \n) into out; truncates to cap. */
void metrics_escape_label(char *out, size_t cap, const char *value);

/* The whole exposition, malloc'd (*len bytes, NUL-terminated). NULL when
 * out of memory. */
char *metrics_render(const struct metrics_state *s, enum metrics_format fmt, size_t *len);

#endif
