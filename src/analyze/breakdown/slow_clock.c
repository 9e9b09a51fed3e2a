/* slow_clock.c — see slow_clock.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "breakdown_internal.h"
#include "slow_clock.h"

static double ms_of(const struct gpu_sample *s, double t0)
{
    return ((double)s->t - t0) / 1e6;
}

/* Whether the GPU was idle just before its busy interval p began: inside
 * the window, an idle stretch longer than the resolution before it; at the
 * window's start (or after a sliver of idle there, an edge placed a little
 * late), the last reading before the window that says (GpuIdle, else
 * utilization <= 5 %). */
static int idle_before(const struct timeline *tl, int p, const struct gpu_sample *smp, long n,
                       int every_tick, double t0, double res)
{
    if (p > 0 && tl->st[p - 1] != ST_IDLE)
        return 0;
    if (p > 0 && (tl->x[p] - tl->x[p - 1] > res || p > 1))
        return tl->x[p] - tl->x[p - 1] > res;
    for (long i = n - 1; i >= 0; i--) {
        const struct gpu_sample *s = &smp[i];
        if (ms_of(s, t0) >= tl->x[0])
            continue;
        if ((s->medium_fresh || (every_tick & EVERY_TICK_REASONS)) && s->idle_bit >= 0)
            return s->idle_bit == 1;
        if ((s->medium_fresh || (every_tick & EVERY_TICK_UTIL)) && !isnan(s->util_pct))
            return s->util_pct <= 5;
    }
    return 0;
}

/* The first stretch of tl that ends after x (tl->n when none). */
static int first_ending_after(const struct timeline *tl, double x)
{
    int lo = 0, hi = tl->n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (tl->x[mid + 1] > x)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* The slow stretch [lo, hi] (one run of slow readings) against the busy
 * intervals of tl: groups of busy time with no gap longer than res between
 * them; a group holding more than res is slow compute. Only the stretches
 * that meet [lo, hi] are walked (a window over a whole run has thousands
 * of runs and of stretches), then the last group is closed. */
static void count_run(const struct timeline *tl, double lo, double hi, const struct gpu_sample *smp,
                      long n, int every_tick, double t0, double res, struct window_gpu *g)
{
    double group = 0, group_from = NAN, last_end = NAN;
    int group_idle = 0;
    for (int p = first_ending_after(tl, lo); p <= tl->n; p++) {
        if (p < tl->n && tl->x[p] >= hi)
            p = tl->n;                   /* the rest lie past the run */
        double a = p < tl->n ? fmax(tl->x[p], lo) : INFINITY, b = p < tl->n ? fmin(tl->x[p + 1], hi) : INFINITY;
        int busy = p < tl->n && tl->st[p] == ST_BUSY && b > a;
        /* a group ends at a gap longer than res, or after the last interval */
        if (group > 0 && (p == tl->n || (busy && a - last_end > res))) {
            if (group > res) {
                g->slow_clock_ms += group;
                if (isnan(g->slow_clock_from_ms) || group_from < g->slow_clock_from_ms)
                    g->slow_clock_from_ms = group_from;
                g->slow_clock_after_idle |= group_idle;
            }
            group = 0;
        }
        if (!busy)
            continue;
        if (group == 0) {
            group_from = a;
            /* the run covers this busy stretch from its own start */
            group_idle = a == tl->x[p] && idle_before(tl, p, smp, n, every_tick, t0, res);
        }
        group += b - a;
        last_end = b;
    }
}

void slow_clock_gpu(const struct timeline *tl, const struct gpu_sample *smp, long n, int every_tick,
                    double t0, double d, struct window_gpu *g)
{
    g->slow_clock_ms = g->slow_clock_res_ms = g->slow_clock_from_ms = NAN;
    g->slow_clock_after_idle = 0;
    if (!(g->max_sm_clock_mhz > 0) || tl->n < 1)
        return;
    double *x = malloc(sizeof *x * (size_t)(n ? n : 1));
    unsigned char *slow = malloc((size_t)(n ? n : 1));
    long m = 0;
    for (long i = 0; x && slow && i < n; i++) {
        const struct gpu_sample *s = &smp[i];
        if (isnan(s->sm_clock_mhz) || !(s->medium_fresh || (every_tick & EVERY_TICK_CLOCK)))
            continue;
        x[m] = ms_of(s, t0);
        slow[m++] = s->sm_clock_mhz < SLOW_CLOCK_FRAC * g->max_sm_clock_mhz;
    }
    if (m >= 2) {
        double gap = 0;
        for (long j = 1; j < m; j++)
            if (x[j] > 0 && x[j - 1] < d)
                gap = fmax(gap, x[j] - x[j - 1]);
        g->slow_clock_res_ms = gap / 2;
        g->slow_clock_ms = 0;
        /* each reading stands for the time from the midpoint with its
         * predecessor to the one with its successor (the ends: half the
         * gap beyond) */
        for (long j = 0; j < m;) {
            if (!slow[j]) {
                j++;
                continue;
            }
            long k = j;
            while (k + 1 < m && slow[k + 1])
                k++;
            double lo = j == 0 ? x[0] - (x[1] - x[0]) / 2 : (x[j - 1] + x[j]) / 2;
            double hi = k == m - 1 ? x[k] + (x[k] - x[k - 1]) / 2 : (x[k] + x[k + 1]) / 2;
            count_run(tl, fmax(lo, 0), fmin(hi, d), smp, n, every_tick, t0, g->slow_clock_res_ms, g);
            j = k + 1;
        }
    }
    free(x);
    free(slow);
}

int slow_clock_top(const struct window *w)
{
    int top = -1;
    for (int i = 0; i < w->ngpu; i++)
        if (w->gpu[i].slow_clock_ms > 0 && (top < 0 || w->gpu[i].slow_clock_ms > w->gpu[top].slow_clock_ms))
            top = i;
    return top;
}

size_t slow_clock_evidence(const struct window *w, char *buf, size_t cap, size_t len)
{
    int top = slow_clock_top(w);
    if (top < 0 || len >= cap)
        return len;
    const struct window_gpu *g = &w->gpu[top];
    char who[24] = "";
    if (w->ngpu > 1)
        snprintf(who, sizeof who, "gpu %d ", g->gpu);
    int k = snprintf(buf + len, cap - len, "; %sclocks below half of max for %.0f ms (+-%.0f ms)%s", who,
                     g->slow_clock_ms, g->slow_clock_res_ms,
                     g->slow_clock_after_idle ? ": the first request after idle" : "");
    return k > 0 ? len + (size_t)k : len;
}

void slow_clock_evidence_append(struct window *w)
{
    size_t len = strlen(w->evidence);
    slow_clock_evidence(w, w->evidence, EVIDENCE_MAX, len);
}
