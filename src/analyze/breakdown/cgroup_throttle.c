/* cgroup_throttle.c — see cgroup_throttle.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup_throttle.h"
#include "diag.h"
#include "trace_event.h"

static int push(struct analysis *a, struct cgroup_point pt)
{
    struct cgroup_series *s = a->cgroup;
    if (!s) {
        s = a->cgroup = calloc(1, sizeof *s);
        if (!s)
            return -1;
        s->period_ms = NAN;
    }
    /* rows come in time order; a point out of order (a trace edited by
     * hand) is dropped rather than breaking the binary search */
    if (s->n > 0 && pt.t_ns < s->p[s->n - 1].t_ns)
        return 0;
    if (s->n == s->cap) {
        long cap = s->cap ? s->cap * 2 : 64;
        struct cgroup_point *p = realloc(s->p, (size_t)cap * sizeof *p);
        if (!p)
            return -1;
        s->p = p;
        s->cap = cap;
    }
    s->p[s->n++] = pt;
    return 0;
}

static double value(const char *label, const char *key)
{
    char v[32], *end;
    if (trace_event_value(label, key, v, sizeof v) != 0)
        return NAN;
    double d = strtod(v, &end);
    return *end || !isfinite(d) || d < 0 ? NAN : d;
}

int cgroup_series_event(struct analysis *a, const struct trace_row *r)
{
    if (!trace_event_is(r->label, EVENT_CGROUP_CPU))
        return EXIT_OK;
    struct cgroup_point pt = { r->t_mono_ns, value(r->label, "throttled_usec"),
                               value(r->label, "nr_throttled") };
    if (isnan(pt.throttled_usec) || isnan(pt.nr_throttled))
        return EXIT_OK;              /* not a reading: ignored, like any unknown EVENT */
    if (push(a, pt) != 0)
        return EXIT_RUNTIME;
    struct cgroup_series *s = a->cgroup;
    char max[48];
    if (trace_event_value(r->label, "path", s->path, sizeof s->path) == 0 &&
        trace_event_value(r->label, "cpu_max", max, sizeof max) == 0) {
        snprintf(s->cpu_max, sizeof s->cpu_max, "%s", max);
        const char *slash = strchr(max, '/');
        double period = slash ? strtod(slash + 1, NULL) : NAN;
        s->period_ms = period > 0 && isfinite(period) ? period / 1e3 : NAN;
    }
    return EXIT_OK;
}

void cgroup_series_break(struct analysis *a, int64_t t_ns)
{
    if (a->cgroup && a->cgroup->n > 0)
        push(a, (struct cgroup_point){ t_ns, NAN, NAN });
}

/* The last point at or before t, or -1. */
static long at(const struct cgroup_series *s, int64_t t)
{
    long lo = 0, hi = s->n;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (s->p[mid].t_ns <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

int cgroup_throttled(const struct cgroup_series *s, int64_t t0, int64_t t1, double *ms,
                     double *periods)
{
    *ms = *periods = NAN;
    if (!s || t1 < t0)
        return -1;
    /* The recording the window ends in: from its first reading (after the
     * last break before t1) on. A window that starts before that reading
     * (a mark that arrived while `begin` was being written; the command
     * runs before it) counts from it. */
    long i1 = at(s, t1);
    if (i1 < 0 || isnan(s->p[i1].throttled_usec))
        return -1;
    long first = i1;
    while (first > 0 && !isnan(s->p[first - 1].throttled_usec))
        first--;
    long i0 = at(s, t0);
    if (i0 < first)
        i0 = first;
    *ms = fmax(0, s->p[i1].throttled_usec - s->p[i0].throttled_usec) / 1e3;
    *periods = fmax(0, s->p[i1].nr_throttled - s->p[i0].nr_throttled);
    return 0;
}

void cgroup_series_free(struct cgroup_series *s)
{
    if (!s)
        return;
    free(s->p);
    free(s);
}
