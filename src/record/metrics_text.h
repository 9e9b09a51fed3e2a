/*
 * metrics_text.h — what `flinch record --metrics` exposes, and the
 * Prometheus text exposition format (version 0.0.4) it is written in.
 *
 * Owns: the metric state (plain values, updated only by the live hub's
 * thread from the rows it reads), the metric names, units, types and HELP
 * text, label escaping, and rendering the whole state as one text. Label
 * values come only from the configuration (window names, GPU index and
 * UUID, version, host name), never from MARK labels, so the number of
 * series is fixed by the configuration (README, "For the fleet").
 */
#ifndef FLINCH_METRICS_TEXT_H
#define FLINCH_METRICS_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"

#define METRICS_MAX_GPUS 64
#define METRICS_MAX_WINDOWS 16
#define METRICS_NAME_MAX 64
#define METRICS_UUID_MAX 96
#define METRICS_BUCKETS 16   /* duration histogram bounds, +Inf excluded */

struct metrics_gpu {
    int index;
    char uuid[METRICS_UUID_MAX];   /* "" when the driver gave none */
    /* latest readings, NAN when never read */
    double power_w, power_instant_w, util_pct, sm_clock_mhz, energy_mj;
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
    long long samples;                  /* SAMPLE rows */
    long long marks_received;           /* MARK rows that came through the FIFO */
    long long marks_rejected;           /* lines the FIFO refused */
    long long ticks_skipped;            /* ticks the schedule skipped (tick column gaps) */
    long long live_rows_dropped;        /* rows the live analysis never saw */
    int64_t last_tick;                  /* -1 before the first */
    int nwin;
    struct metrics_window win[METRICS_MAX_WINDOWS];
};

extern const double metrics_bucket_bounds[METRICS_BUCKETS];

void metrics_state_init(struct metrics_state *s, const char *host);
/* The GPU with this index, added on first sight (NULL when full). */
struct metrics_gpu *metrics_gpu(struct metrics_state *s, int index);
/* Counts one finished window of window definition `win`. */
void metrics_add_window(struct metrics_state *s, int win, const struct window *w);

/* Escapes a label value (\\, \", \n) into out; truncates to cap. */
void metrics_escape_label(char *out, size_t cap, const char *value);

/* The whole exposition, malloc'd (*len bytes, NUL-terminated). NULL when
 * out of memory. */
char *metrics_render(const struct metrics_state *s, size_t *len);

#endif
