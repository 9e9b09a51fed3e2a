/*
 * energy_estimator.c — see energy_estimator.h.
 *
 * Reasoning. The energy counter is exact at its own update instants: the
 * difference between two of its values is the energy between the two
 * updates, to a millijoule, however long the span. What it does not say is
 * (a) when exactly it updated, since it is only seen at the samples, and
 * (b) how the energy of one update step (up to ~100 ms on H100-class GPUs)
 * is spread inside the step. A window edge falls inside one such step, so
 * the window's energy is exact except for the part of the two edge steps
 * on the wrong side of the marks.
 *
 * (a) Update instants: a change seen between samples a and b happened in
 * (a, b] (a and b are the instants the readings held: reading_instant.h).
 * The counter updates on a grid (period P, phase phi) with a jitter of up
 * to J per update, so the changes near the edge are fitted together: every
 * (P, phi) that puts each change's grid point within J of its interval is
 * a grid the data allows. Those periods form one range, exact from the
 * intervals taken two at a time; the knots are placed on the grid in its
 * middle, with phi in the middle of the intersection of every interval
 * shifted back by its k * P. With a dithered sampler (record --dither) or
 * a period incommensurate with the interval, the intervals fall at
 * different offsets and that intersection is far narrower than a tick.
 * A knot's uncertainty is its own jitter J plus how far the grids at the
 * two ends of the range move it: nothing at the middle of the changes
 * used, most at a trace's last edge, which has only the few updates the
 * recorder lingered for after it and whose knots are an extrapolation of
 * the period. The data alone cannot resolve the jitter (the line through
 * the intervals absorbs most of it), so J is assumed: 1 ms, as in the
 * simulator's h100 preset, or the least that lets one grid through every
 * interval when the data shows more. It is never worse than its interval
 * allows. Before this bound, a last window under a busy host read 2.4 J
 * off under a stated +-1.6 J: its 16 earlier updates fitted a period 0.3%
 * short, and the grid, exact in their middle, was 3.6 ms off at the edge.
 * A counter that changes at every sample may be continuous (knots at the
 * samples) or update once per sample interval, which looks the same: knots
 * at the samples, to half a sample interval.
 *
 * (b) Shape inside the step holding the edge: the power is taken to move
 * at most once inside one counter step, from the level of the step before
 * (Lb) to the level of the step after (La). The step's exact energy T then
 * fixes where: T = Lb * d + La * (D - d). This is the case of a kernel
 * burst starting or ending inside the step. When the levels agree, or T is
 * not between them (a spike shorter than a step), the step is taken as
 * uniform, with the bound of every profile in [min, max] of the three
 * levels that has the step's energy as its uncertainty.
 *
 * Uncertainty, added linearly: each knot's placement times the power next
 * to it; for a two-level step, a tenth of its difference from the uniform
 * split plus the level difference over 2 ms (a transition is a ramp of a
 * few ms, not a jump); the levels themselves are trusted only as far as
 * the step beyond each agrees with it (Lb against the step before it, La
 * against the step after it), and the split is recomputed with each level
 * moved by that disagreement: the largest change is added. That is what
 * keeps the estimate honest when the power keeps moving around the edge.
 * Finally the counter's 1 mJ resolution at both knots. Assumptions: the counter
 * reports the exact integral up to its update instant (NVML documents mJ
 * since driver load); its updates lie on a grid with jitter below half the
 * period; the host clock and the GPU's do not drift apart by more than a
 * fraction of a millisecond over the ~3 s of updates used near an edge.
 * What the instantaneous and averaged power add is not used here: they
 * sample 25% of each step (arXiv 2312.02741) and a 1 s window, and the
 * counter's steps already bound the energy that matters.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "energy_estimator.h"
#include "fminmax.h"
#include "search_back.h"
#include "sort_doubles.h"

#define EST_SIDE 16              /* changes used on each side of the instant */
#define EST_NEED_AFTER (EST_EDGE_UPDATES - 1) /* changes after the step that holds t */
#define EST_WAIT_NS (3 * 1000000000LL)
#define EST_KNOT_FLOOR_S 0.001   /* the jitter assumed at least (see above) */
#define EST_RAMP_S 0.002

int est_init(struct energy_estimator *e, long cap)
{
    memset(e, 0, sizeof *e);
    e->cap = cap;
    e->mask = cap > 0 && (cap & (cap - 1)) == 0 ? cap - 1 : 0;
    e->last_t = INT64_MIN;
    e->ring = malloc(sizeof *e->ring * (size_t)cap);
    return e->ring ? 0 : -1;
}

void est_free(struct energy_estimator *e)
{
    free(e->ring);
    e->ring = NULL;
}

void est_add(struct energy_estimator *e, int64_t t, double mj)
{
    if (isnan(mj) || t < e->last_t)
        return;
    if (e->count && mj + e->offset_mj < e->last_mj)   /* reset: keep it monotone */
        e->offset_mj = e->last_mj - mj;
    if (e->count && mj + e->offset_mj != e->last_mj)
        e->changes++;
    e->last_mj = mj + e->offset_mj;
    e->last_t = t;
    e->ring[e->mask ? e->count & e->mask : e->count % e->cap] = (struct est_obs){ t, e->last_mj, e->changes };
    e->count++;
}

static long oldest(const struct energy_estimator *e)
{
    return e->count > e->cap ? e->count - e->cap : 0;
}

/* A power-of-two ring (the default 4096) is indexed by a mask: a division
 * per reading was most of a pending edge's cost. */
static const struct est_obs *obs(const struct energy_estimator *e, long k)
{
    return &e->ring[e->mask ? k & e->mask : k % e->cap];
}


struct obs_at_or_after { const struct energy_estimator *e; int64_t t; };

static int obs_at_or_after(const void *arg, long k)
{
    const struct obs_at_or_after *a = arg;
    return obs(a->e, k)->t >= a->t;
}

/* First observation with time >= t. */
static long first_at(const struct energy_estimator *e, int64_t t)
{
    struct obs_at_or_after arg = { e, t };
    return search_back(oldest(e), e->count, obs_at_or_after, &arg);
}

static inline int is_change(const struct energy_estimator *e, long i)
{
    return i > oldest(e) && obs(e, i)->mj != obs(e, i - 1)->mj;
}

/* How many i in [i0, count) are is_change: est_add counted a change for
 * every reading that differed from the one before, which is is_change but
 * for the oldest reading in the ring (its predecessor is gone). */
static long changes_from(const struct energy_estimator *e, long i0)
{
    if (i0 >= e->count)
        return 0;
    if (i0 > oldest(e))
        return e->changes - obs(e, i0 - 1)->changes;
    return e->changes - obs(e, i0)->changes;
}

int est_changes_after(const struct energy_estimator *e, int64_t t)
{
    int n = 0;
    for (long i = first_at(e, t) + 1; i < e->count && n < EST_EDGE_UPDATES; i++)
        n += is_change(e, i);
    return n;
}

/* A change's interval in seconds after the first change's early end:
 * the loops below subtract these, not int64 nanoseconds converted at every
 * use. */
struct rel_interval { double a, b; };

/* The periods P for which one phase puts every change's grid point
 * (phase + k[j] * P) within `jitter` of its interval: [*pmin, *pmax], empty
 * when *pmin > *pmax. Two changes i < j hold (k[j] - k[i]) * P between the
 * gap from i's late end to j's early end and the gap from i's early end to
 * j's late end, each widened by the jitter of both. inv[d] is 1 / d for
 * the update counts d < EST_INV_MAX apart (a multiplication where a pair
 * would divide: these pairs were the estimator's largest cost). No value
 * here is NAN, so plain comparisons stand in for fmin and fmax, without
 * even fminmax.h's NAN test in this, the fit's innermost loop. */
#define EST_INV_MAX 64
static void feasible_periods(const struct rel_interval *r, const double *k, const double *inv,
                             int n, double jitter, double *pmin, double *pmax)
{
    double lo = 0, hi = INFINITY;
    for (int j = 1; j < n; j++)
        for (int i = 0; i < j; i++) {
            double dk = k[j] - k[i], f = dk < EST_INV_MAX ? inv[(int)dk] : 1 / dk;
            double l = (r[j].a - r[i].b - 2 * jitter) * f, h = (r[j].b - r[i].a + 2 * jitter) * f;
            lo = l > lo ? l : lo;
            hi = h < hi ? h : hi;
        }
    *pmin = lo;
    *pmax = hi;
}

/* At period p, the middle of the phases (relative to m0) that put every
 * grid point inside its interval, and, when width is not NULL, the width
 * of that intersection (negative: by how much the intervals miss one
 * grid). */
static double grid_phase(const struct rel_interval *r, const double *k, int n, double m0, double p,
                         double *width)
{
    double l = -INFINITY, h = INFINITY;
    for (int j = 0; j < n; j++) {
        double lj = r[j].a - m0 - k[j] * p, hj = r[j].b - m0 - k[j] * p;
        l = lj > l ? lj : l;
        h = hj < h ? hj : h;
    }
    if (width)
        *width = h - l;
    return (l + h) / 2;
}

/* See energy_estimator.h. */
void est_place_knots(struct est_change *c, int n)
{
    int consecutive = 0;
    for (int j = 0; j < n; j++)
        consecutive += c[j].consecutive;
    if (consecutive * 5 >= n * 4) {          /* changes at every sample: at the samples */
        for (int j = 0; j < n; j++) {
            c[j].u = (double)c[j].b / 1e9;
            c[j].unc = (double)(c[j].b - c[j].a) / 2e9;
        }
        return;
    }
    struct rel_interval r[2 * EST_SIDE + 4];
    for (int j = 0; j < n; j++)
        r[j] = (struct rel_interval){ (double)(c[j].a - c[0].a) / 1e9, (double)(c[j].b - c[0].a) / 1e9 };
    double d[2 * EST_SIDE + 4];
    for (int j = 1; j < n; j++)
        d[j - 1] = (r[j].a + r[j].b - r[j - 1].a - r[j - 1].b) / 2;
    sort_doubles(d, n - 1);
    double p0 = d[(n - 1) / 2];
    /* The median step is only good to a few percent (the midpoints scatter
     * by up to a sample interval), enough to number the updates one gap at
     * a time. */
    double base = (double)c[0].a / 1e9, m0 = r[0].b / 2;
    double k[2 * EST_SIDE + 4];
    k[0] = 0;
    for (int j = 1; j < n; j++) {
        /* No change was seen between the two intervals, so no update
         * happened there (the counter moves at every update): an interval
         * shorter than a period holds exactly the next update, whatever the
         * midpoints say. Only a longer one may hold several. */
        double gap = (r[j].a + r[j].b - r[j - 1].a - r[j - 1].b) / 2;
        double width = r[j].b - r[j].a;
        k[j] = k[j - 1] + (width < p0 ? 1 : fmax_inline(1, round(gap / p0)));
    }
    double inv[EST_INV_MAX];
    int span = (int)fmin_inline(k[n - 1] - k[0] + 1, EST_INV_MAX);
    for (int dk = 1; dk < span; dk++)
        inv[dk] = 1.0 / dk;
    /* Every grid the data allows (see the top, (a)): the jitter assumed,
     * or the least that lets one grid through every interval when the data
     * shows more (found to within a sixteenth by doubling, then halving
     * the step). No grid within half a period: not a grid, each update
     * anywhere in its interval. */
    double jitter = EST_KNOT_FLOOR_S, pmin, pmax;
    feasible_periods(r, k, inv, n, jitter, &pmin, &pmax);
    if (pmin > pmax) {
        double bad = jitter, good = 2 * jitter;
        feasible_periods(r, k, inv, n, good, &pmin, &pmax);
        while (pmin > pmax && good < p0 / 2) {
            bad = good;
            good *= 2;
            feasible_periods(r, k, inv, n, good, &pmin, &pmax);
        }
        for (int halving = 0; halving < 4 && pmin <= pmax; halving++) {
            double mid = (bad + good) / 2, mid_pmin, mid_pmax;
            feasible_periods(r, k, inv, n, mid, &mid_pmin, &mid_pmax);
            if (mid_pmin <= mid_pmax)
                good = mid;
            else
                bad = mid;
        }
        jitter = good;
        feasible_periods(r, k, inv, n, jitter, &pmin, &pmax);
    }
    if (pmin > pmax) {
        for (int j = 0; j < n; j++) {
            c[j].u = ((double)c[j].a + (double)c[j].b) / 2e9;
            c[j].unc = (double)(c[j].b - c[j].a) / 2e9;
        }
        return;
    }
    /* The grid in the middle of the periods allowed is the one least wrong
     * whichever of them is true: the knots are placed on it. The two ends
     * are the grids tilted furthest from it: each knot's uncertainty is how
     * far they move its grid point, plus its own jitter, or the width of
     * the middle grid's intersection when that is more (an undithered
     * sampler whose intervals all fall at the same offset), and never more
     * than its own interval allows. */
    double p = (pmin + pmax) / 2, width;
    double phi = grid_phase(r, k, n, m0, p, &width);
    double phi_lo = grid_phase(r, k, n, m0, pmin, NULL), phi_hi = grid_phase(r, k, n, m0, pmax, NULL);
    for (int j = 0; j < n; j++) {
        double a = r[j].a, b = r[j].b;
        /* the reading at b holds the last update at or before b: when a
         * long sample gap spans several updates, that one, not the middle */
        double u = m0 + phi + floor((b - m0 - phi) / p) * p;
        if (u <= a)                      /* no grid point inside: jitter, the nearer edge */
            u = a - u < u + p - b ? a : b;
        u = fmin_inline(fmax_inline(u, a), b);
        double here = phi + k[j] * p;
        double tilt = fmax_inline(fabs(phi_lo + k[j] * pmin - here), fabs(phi_hi + k[j] * pmax - here));
        c[j].unc = fmin_inline(fmax_inline(fabs(width), jitter + tilt), fmax_inline(u - a, b - u));
        c[j].u = base + u;
        /* two updates clamped onto one sample boundary (a poor fit on an
         * irregular sampler): keep the steps ordered, and say so */
        if (j > 0 && c[j].u <= c[j - 1].u + 1e-6) {
            c[j].u = c[j - 1].u + 1e-6;
            c[j].unc = fmax_inline(c[j].unc, (b - a) / 2);
        }
    }
}

/* Energy (J) of step (u0, u1] with total T that lies in (u1 - x, u1], and
 * the model's own uncertainty; *two set when the two-level split applied. */
static double split_step(double T, double D, double x, double lb, double la, double *model_unc,
                         int *two)
{
    double eu = T * x / D;
    double dl = la - lb, tol = fmax_inline(2.0, 0.02 * fmax_inline(fabs(la), fabs(lb)));
    *two = 0;
    if (fabs(dl) > tol && T >= fmin_inline(lb, la) * D && T <= fmax_inline(lb, la) * D) {
        double d1 = (la * D - T) / dl;           /* time at level lb from the step's start */
        double e2 = D - x >= d1 ? la * x : la * (D - d1) + lb * (d1 - (D - x));
        *model_unc = 0.1 * fabs(e2 - eu) + fabs(dl) * EST_RAMP_S;
        *two = 1;
        return e2;
    }
    double pmin = fmin_inline(fmin_inline(lb, la), T / D), pmax = fmax_inline(fmax_inline(lb, la), T / D);
    double elo = fmax_inline(pmin * x, T - pmax * (D - x)), ehi = fmin_inline(pmax * x, T - pmin * (D - x));
    *model_unc = fmax_inline(fmax_inline(eu - elo, ehi - eu), 0);
    return eu;
}

/* est_cum_at's pending answer depends on the changes after t (new ones come
 * only as e->changes grows) and on last_t - t against EST_WAIT_NS / 3 and
 * EST_WAIT_NS; nothing else it reads moves while t's readings stay in the
 * ring. Its two pending answers wait for too few changes to answer at all,
 * then too few to fit the grid on; the changes it counts after t grow by
 * at most one per change read, so that many more must come first. Before
 * EST_WAIT_NS / 3 has passed both hold, and it stays pending until
 * EST_SIDE changes: one wake for both (two had each edge asked once more
 * only to answer pending again, 2 of the 8 times a window was walked). */
int est_pending_wake(const struct energy_estimator *e, int64_t t, struct est_wake *w)
{
    if (e->count == 0)
        return 0;
    long na_all = changes_from(e, first_at(e, t));
    /* the span of last_t over which last_t - t keeps its side of both
     * waits (t itself may be after last_t: none of either has passed) */
    int64_t third = t > INT64_MAX - EST_WAIT_NS / 3 ? INT64_MAX : t + EST_WAIT_NS / 3;
    int64_t whole = t > INT64_MAX - EST_WAIT_NS ? INT64_MAX : t + EST_WAIT_NS;
    long need = na_all < EST_NEED_AFTER + 1 ? EST_NEED_AFTER + 1 - na_all
                : na_all < EST_SIDE ? EST_SIDE - na_all : 1;
    if (e->last_t < third) {
        need = na_all < EST_SIDE ? EST_SIDE - na_all : 1;
        w->lo_t = INT64_MIN;
        w->hi_t = third - 1;
    } else if (e->last_t < whole) {
        w->lo_t = third;
        w->hi_t = whole - 1;
    } else {
        w->lo_t = whole;
        w->hi_t = INT64_MAX;
    }
    w->changes = e->changes + need;
    return 1;
}

enum integ_status est_cum_at(const struct energy_estimator *e, int64_t t, int eof,
                             struct est_result *r)
{
    if (e->count == 0)
        return eof ? INTEG_NO_DATA : INTEG_PENDING;
    long i0 = first_at(e, t);
    struct est_change c[2 * EST_SIDE + 4];
    int nb = 0, na = 0;
    /* The changes at or after i0 first, counted without a walk: while they
     * are too few the answer is pending whatever came before t, and a
     * pending edge is asked again at every new change (~EST_SIDE times).
     * The walk below finds the same changes, min(na_all, EST_SIDE) of them. */
    long na_all = changes_from(e, i0);
    if (na_all < EST_NEED_AFTER + 1) {
        if (!eof && e->last_t - t < EST_WAIT_NS)
            return INTEG_PENDING;
        return INTEG_NO_DATA;
    }
    if (!eof && na_all < EST_SIDE && e->last_t - t < EST_WAIT_NS / 3)
        return INTEG_PENDING;            /* a few more updates to fit the grid on */
    struct est_change after[EST_SIDE];
    for (long i = i0; i < e->count && na < EST_SIDE; i++)
        if (is_change(e, i))
            after[na++] = (struct est_change){ obs(e, i - 1)->t, obs(e, i)->t, obs(e, i)->mj,
                                           is_change(e, i - 1), 0, 0 };
    /* changes at or before i0 - 1 (b < t), newest first, then reversed */
    struct est_change before[EST_SIDE];
    for (long i = i0 - 1; i > oldest(e) && nb < EST_SIDE; i--)
        if (is_change(e, i))
            before[nb++] = (struct est_change){ obs(e, i - 1)->t, obs(e, i)->t, obs(e, i)->mj,
                                            is_change(e, i - 1), 0, 0 };
    if (nb < 3)
        return INTEG_NO_DATA;
    for (int j = 0; j < nb; j++)
        c[j] = before[nb - 1 - j];
    for (int j = 0; j < na; j++)
        c[nb + j] = after[j];
    int n = nb + na;
    est_place_knots(c, n);
    double ts = (double)t / 1e9;
    int m = -1;
    for (int j = 0; j < n; j++)
        if (c[j].u >= ts) {
            m = j;
            break;
        }
    if (m < 3 || m + 2 >= n)
        return INTEG_NO_DATA;
    double D = c[m].u - c[m - 1].u;
    double db = c[m - 1].u - c[m - 2].u, da = c[m + 1].u - c[m].u;
    double db2 = c[m - 2].u - c[m - 3].u, da2 = c[m + 2].u - c[m + 1].u;
    if (D <= 0 || db <= 0 || da <= 0 || db2 <= 0 || da2 <= 0)
        return INTEG_NO_DATA;
    double T = (c[m].mj - c[m - 1].mj) / 1000;
    double lb = (c[m - 1].mj - c[m - 2].mj) / 1000 / db;
    double la = (c[m + 1].mj - c[m].mj) / 1000 / da;
    /* how far each level is to be trusted: as far as the step beyond agrees */
    double dlb = fabs((c[m - 2].mj - c[m - 3].mj) / 1000 / db2 - lb);
    double dla = fabs((c[m + 2].mj - c[m + 1].mj) / 1000 / da2 - la);
    double x = c[m].u - ts, model_unc;
    int two;
    double E = split_step(T, D, x, lb, la, &model_unc, &two);
    double spread = 0;
    for (int corner = 0; corner < 4; corner++) {
        double mu;
        int t2;
        double ec = split_step(T, D, x, fmax_inline(lb + (corner & 1 ? dlb : -dlb), 0),
                               fmax_inline(la + (corner & 2 ? dla : -dla), 0), &mu, &t2);
        spread = fmax_inline(spread, fabs(ec - E) + mu);
    }
    model_unc = fmax_inline(model_unc, spread);
    double pm = T / D;
    /* a knot placed eps late moves the split by eps at the power next to
     * it; in a uniform step the two knots share the step's power */
    double timing = two ? c[m].unc * fmax_inline(la, pm) + c[m - 1].unc * fmax_inline(lb, pm)
                        : pm * (c[m].unc * (D - x) / D + c[m - 1].unc * x / D);
    r->cum_j = c[m].mj / 1000 - E;
    r->unc_j = timing + model_unc + 0.002;
    r->knot_unc_s = fmax_inline(c[m].unc, c[m - 1].unc);
    r->model = two;
    return INTEG_OK;
}
