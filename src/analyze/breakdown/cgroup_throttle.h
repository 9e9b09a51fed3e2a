/*
 * cgroup_throttle.h — how long the traced command's cgroup was CPU
 * throttled inside each window, from the recorder's flinch_cgroup_cpu
 * EVENT rows (src/record/host/cgroup_cpu.h).
 *
 * Owns the step series of the cgroup's throttled_usec and nr_throttled
 * (each value holds from its EVENT row to the next; the recorder writes a
 * row whenever they move, checked every tick) and the throttled time of a
 * span. A recording that starts breaks the series: readings of an earlier
 * recording never count for a later one. Without those rows there is no
 * series (a->cgroup stays NULL) and every report reads as before.
 */
#ifndef FLINCH_CGROUP_THROTTLE_H
#define FLINCH_CGROUP_THROTTLE_H

#include <stdint.h>

#include "analysis.h"

struct cgroup_point {
    int64_t t_ns;
    double throttled_usec, nr_throttled;   /* NAN: a new recording starts here */
};

struct cgroup_series {
    struct cgroup_point *p;
    long n, cap;
    char path[256];               /* the cgroup, from the first row */
    char cpu_max[48];             /* "QUOTA/PERIOD", "max/PERIOD" or "" */
    double period_ms;             /* the quota period, NAN if unknown */
};

/* An EVENT row: a flinch_cgroup_cpu reading joins a->cgroup. EXIT_OK, or
 * EXIT_RUNTIME when out of memory. */
int cgroup_series_event(struct analysis *a, const struct trace_row *r);
/* A recording starts at t_ns: what came before no longer counts. */
void cgroup_series_break(struct analysis *a, int64_t t_ns);
/* The throttled time (ms) and throttled periods in [t0, t1]: 0 when the
 * series is known over the span, -1 (NAN in both) when not (no reading of
 * the recording t1 is in, at or before t1; a span that starts before that
 * recording's first reading counts from it). The kernel adds a period's throttled
 * time when the group is let run again, so an edge is uncertain by one
 * quota period plus the recorder's interval. */
int cgroup_throttled(const struct cgroup_series *s, int64_t t0, int64_t t1, double *ms,
                     double *periods);
void cgroup_series_free(struct cgroup_series *s);

#endif
