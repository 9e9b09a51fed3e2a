/* gpu_spin.c — see gpu_spin.h.
 *
 * A window over a whole run holds a million samples and a timeline of
 * thousands of stretches: the rule is applied span by span (each GPM span
 * counts for the few stretches it overlaps, found by a search), and the
 * utilization readings about a span are found by a search too where the
 * samples' times go forward. Done stretch by stretch, each over every
 * sample, a 10,000 s window took 15 s here. */
#include <math.h>
#include <stdlib.h>

#include "gpu_spin.h"

const char gpu_spin_reason[] = "gpu-spin";

static double ms_of(const struct gpu_sample *s, double t0)
{
    return ((double)s->t - t0) / 1e6;
}

/* The first sample in [lo, hi) whose time is over x ms (hi when none);
 * the samples' times go forward. */
static long first_after(const struct gpu_sample *smp, long lo, long hi, double t0, double x)
{
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (ms_of(&smp[mid], t0) > x)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* The mean utilization read inside (a, b] ms, NAN when none: over the
 * samples in stamp order where their times go forward (in_order), the
 * same ones in the same order as a walk over all of them. */
static double util_in(const struct gpu_sample *smp, long n, int in_order, double t0, double a, double b)
{
    long i = 0, end = n;
    if (in_order) {
        i = first_after(smp, 0, n, t0, a);
        end = first_after(smp, i, n, t0, b);
    }
    double sum = 0;
    long k = 0;
    for (; i < end; i++) {
        double x = ms_of(&smp[i], t0);
        if (x > a && x <= b && !isnan(smp[i].util_pct)) {
            sum += smp[i].util_pct;
            k++;
        }
    }
    return k ? sum / (double)k : NAN;
}

int gpu_spin_mark(const struct gpu_sample *smp, long n, double t0, double d, double util_lag_ms,
                  struct timeline *tl)
{
    long first = 0;
    while (first < n && (!(smp[first].gpm_span_ms > 0) || isnan(smp[first].sm_active_pct)))
        first++;
    if (first == n || tl->n == 0)
        return 0;                        /* no GPM span: most traces */
    int *spans = calloc((size_t)tl->n * 2, sizeof *spans);
    if (!spans)
        return -1;
    int *spins = spans + tl->n;
    int in_order = 1;
    for (long i = 1; i < n && in_order; i++)
        in_order = smp[i].t >= smp[i - 1].t;
    for (long i = first; i < n; i++) {
        const struct gpu_sample *s = &smp[i];
        if (!(s->gpm_span_ms > 0) || isnan(s->sm_active_pct))
            continue;
        double end = ms_of(s, t0), start = end - s->gpm_span_ms;
        /* whole inside the window */
        if (start < 0 || end > d)
            continue;
        int spin = -1;                   /* worked out once, for the first stretch it counts in */
        for (int p = tl_index_at(tl, start); p < tl->n && tl->x[p] < end; p++) {
            /* a busy stretch, or one the SMs' idleness already outvoted,
             * that holds the span for the most part */
            double lo = tl->x[p], hi = tl->x[p + 1];
            if ((tl->st[p] != ST_BUSY && tl->st[p] != ST_IDLE)
                || fmin(end, hi) - fmax(start, lo) < s->gpm_span_ms / 2)
                continue;
            if (spin < 0) {
                /* a utilization reading is the mean over its period ending
                 * at its last refresh, itself up to a period before the
                 * stamp: the readings wholly about the span come 2 periods
                 * after its start and up to one after its end */
                double ua = start + 2 * util_lag_ms, ub = end + util_lag_ms;
                double u = util_in(smp, n, in_order, t0, ua < ub ? ua : start + util_lag_ms, ub);
                if (isnan(u))
                    u = util_in(smp, n, in_order, t0, start, end);
                spin = u >= SPIN_UTIL_PCT && s->sm_active_pct <= SPIN_SM_ACTIVE_PCT
                       && !isnan(s->dram_bw_pct) && s->dram_bw_pct <= SPIN_DRAM_BW_PCT;
            }
            spans[p]++;
            spins[p] += spin;
        }
    }
    for (int p = 0; p < tl->n; p++)
        if (spans[p] > 0 && spins[p] == spans[p])
            tl->st[p] = ST_SPIN;
    free(spans);
    return 0;
}
