/*
 * integrate.c — see integrate.h.
 *
 * Snapshot k (k = 0, 1, ... counting every sample ever added) lives in ring
 * slot k % cap. Each quantity's state time only moves forward, so a binary
 * search over the ring finds the first snapshot whose state is at or after
 * a given instant; that state and the one before it bracket the instant.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "integrate.h"
#include "search_back.h"

int integ_init(struct integrator *ig, int nq, const enum quantity_kind *kinds, int cap)
{
    memset(ig, 0, sizeof *ig);
    if (nq > INTEG_MAX_Q || cap < 4)
        return -1;
    ig->nq = nq;
    ig->cap = cap;
    ig->mask = (cap & (cap - 1)) == 0 ? cap - 1 : 0;
    memcpy(ig->kind, kinds, sizeof *kinds * (size_t)nq);
    ig->t = malloc(sizeof *ig->t * (size_t)cap);
    ig->q = malloc(sizeof *ig->q * (size_t)cap * (size_t)(nq ? nq : 1));
    ig->reasons = malloc(sizeof *ig->reasons * (size_t)cap * INTEG_REASON_BITS);
    ig->step_hist = calloc(INTEG_STEP_BINS, sizeof *ig->step_hist);
    if (!ig->t || !ig->q || !ig->reasons || !ig->step_hist) {
        integ_free(ig);
        return -1;
    }
    ig->extrapolate_floor_ns = INT64_MIN;
    for (int i = 0; i < nq; i++) {
        ig->cur[i].t = INT64_MIN;
        ig->last_obs_t[i] = INT64_MIN;
    }
    return 0;
}

void integ_free(struct integrator *ig)
{
    free(ig->t);
    free(ig->q);
    free(ig->reasons);
    free(ig->step_hist);
    ig->t = NULL;
    ig->q = NULL;
    ig->reasons = NULL;
    ig->step_hist = NULL;
}

static long oldest(const struct integrator *ig)
{
    return ig->count > ig->cap ? ig->count - ig->cap : 0;
}

/* Snapshot k's place in the rings: a power-of-two ring (the default
 * 4096) by a mask, as the energy estimator's; a division per snapshot
 * read was a tenth of a window edge's searches. */
static size_t slot_of(const struct integrator *ig, long k)
{
    return (size_t)(ig->mask ? k & ig->mask : k % ig->cap);
}

static const struct qstate *qs(const struct integrator *ig, long k, int q)
{
    return &ig->q[slot_of(ig, k) * (size_t)ig->nq + (size_t)q];
}

static int64_t ts(const struct integrator *ig, long k) { return ig->t[slot_of(ig, k)]; }

static const uint32_t *rs(const struct integrator *ig, long k)
{
    return &ig->reasons[slot_of(ig, k) * INTEG_REASON_BITS];
}

/* A stepped counter's new reading: a knot where it changed. */
static void add_stepped(struct integrator *ig, int q, int64_t t, double v)
{
    struct qstate *cur = &ig->cur[q];
    if (ig->last_obs_t[q] == INT64_MIN) {
        *cur = (struct qstate){ t, v, v };
        ig->last_obs_changed[q] = 1;
    } else if (v == ig->last_obs_v[q]) {
        ig->last_obs_changed[q] = 0;
    } else {
        if (v < ig->last_obs_v[q])      /* counter reset: no energy lost or invented */
            ig->offset[q] += ig->last_obs_v[q] - v;
        int64_t knot = ig->last_obs_changed[q] ? t : ig->last_obs_t[q] + (t - ig->last_obs_t[q]) / 2;
        if (knot <= cur->t)
            knot = t;
        /* the first reading is not a change: intervals count from the first change */
        double dt_ms = (double)(knot - cur->t) / 1e6;
        long bin = (long)(dt_ms * 4);
        if (ig->changes[q]++ > 0 && bin >= 0 && bin < INTEG_STEP_BINS) {
            ig->step_hist[bin]++;
            ig->step_n++;
        }
        *cur = (struct qstate){ knot, v, v + ig->offset[q] };
        ig->last_obs_changed[q] = 1;
    }
    ig->last_obs_t[q] = t;
    ig->last_obs_v[q] = v;
}

int integ_add(struct integrator *ig, int64_t t, const double *values, uint64_t reasons,
              int64_t *gap_t0, int64_t *gap_t1)
{
    for (int q = 0; q < ig->nq; q++) {
        double v = values[q];
        if (isnan(v))
            continue;
        struct qstate *cur = &ig->cur[q];
        if (ig->kind[q] == Q_STEPPED) {
            add_stepped(ig, q, t, v);
            continue;
        }
        if (cur->t == INT64_MIN) {
            *cur = (struct qstate){ t, v, ig->kind[q] == Q_CUMULATIVE ? v : 0 };
            continue;
        }
        double dt = (double)(t - cur->t) / 1e9;
        if (ig->kind[q] == Q_TRAPEZOID) {
            cur->c += dt * (cur->v + v) / 2;
        } else if (ig->kind[q] == Q_STEP_BACK) {
            cur->c += dt * v;
        } else {
            if (v + ig->offset[q] < cur->c)
                ig->offset[q] = cur->c - v;
            cur->c = v + ig->offset[q];
        }
        cur->t = t;
        cur->v = v;
    }
    /* the set bits only (most rows: one or none) */
    for (uint64_t r = reasons & ((1ull << INTEG_REASON_BITS) - 1); r; r &= r - 1)
        ig->cur_reasons[__builtin_ctzll(r)]++;

    int evicted = 0;
    if (ig->count >= ig->cap) {
        *gap_t0 = ts(ig, ig->count - ig->cap);
        *gap_t1 = ts(ig, ig->count - ig->cap + 1);
        evicted = 1;
    }
    long slot = (long)slot_of(ig, ig->count);
    ig->t[slot] = t;
    memcpy(&ig->q[(size_t)slot * (size_t)ig->nq], ig->cur, sizeof *ig->cur * (size_t)ig->nq);
    memcpy(&ig->reasons[(size_t)slot * INTEG_REASON_BITS], ig->cur_reasons, sizeof ig->cur_reasons);
    ig->count++;
    return evicted;
}

void integ_finish(struct integrator *ig)
{
    if (ig->count == 0)
        return;
    long last = ig->count - 1;
    for (int q = 0; q < ig->nq; q++) {
        if (ig->kind[q] != Q_STEPPED || ig->last_obs_t[q] <= ig->cur[q].t)
            continue;
        double v = ig->last_obs_v[q];
        ig->cur[q] = (struct qstate){ ig->last_obs_t[q], v, v + ig->offset[q] };
        ig->q[slot_of(ig, last) * (size_t)ig->nq + (size_t)q] = ig->cur[q];
    }
}

int64_t integ_last_time(const struct integrator *ig, int q) { return ig->cur[q].t; }

int64_t integ_latest_sample(const struct integrator *ig)
{
    return ig->count ? ts(ig, ig->count - 1) : INT64_MIN;
}

/* An instant shortly before a quantity's first reading (a "begin" mark
 * written just before the first sample): the first reading held back for a
 * trapezoid, the first interval's slope extended back for the others. */
static enum integ_status before_first(const struct integrator *ig, int q, long k, int64_t t,
                                      double *cum)
{
    const struct qstate *s1 = qs(ig, k, q);
    if (s1->t - t > INTEG_EXTRAPOLATE_NS || t < ig->extrapolate_floor_ns)
        return INTEG_NO_DATA;
    if (ig->kind[q] == Q_TRAPEZOID) {
        *cum = s1->c - (double)(s1->t - t) / 1e9 * s1->v;
        return INTEG_OK;
    }
    long j = k + 1;
    while (j < ig->count && qs(ig, j, q)->t == s1->t)
        j++;
    if (j == ig->count)
        return INTEG_PENDING;
    const struct qstate *s2 = qs(ig, j, q);
    *cum = s1->c - (s2->c - s1->c) * (double)(s1->t - t) / (double)(s2->t - s1->t);
    return INTEG_OK;
}

struct q_at_or_after { const struct integrator *ig; int q; int64_t t; };

static int q_at_or_after(const void *arg, long k)
{
    const struct q_at_or_after *a = arg;
    return qs(a->ig, k, a->q)->t >= a->t;
}

enum integ_status integ_cum_at(const struct integrator *ig, int q, int64_t t, double *cum)
{
    if (ig->cur[q].t == INT64_MIN || t > ig->cur[q].t)
        return INTEG_PENDING;
    /* the first snapshot of q at or after t: the newest one is */
    struct q_at_or_after arg = { ig, q, t };
    long lo = search_back(oldest(ig), ig->count - 1, q_at_or_after, &arg);
    const struct qstate *s1 = qs(ig, lo, q);
    if (s1->t == t) {
        *cum = s1->c;
        return INTEG_OK;
    }
    if (lo == oldest(ig) && lo > 0)
        return INTEG_TOO_OLD;
    const struct qstate *s0 = lo > 0 ? qs(ig, lo - 1, q) : NULL;
    if (!s0 || s0->t == INT64_MIN)
        return before_first(ig, q, lo, t, cum);
    double f = (double)(t - s0->t) / (double)(s1->t - s0->t);
    if (ig->kind[q] == Q_TRAPEZOID) {
        double v = s0->v + (s1->v - s0->v) * f;
        *cum = s0->c + (double)(t - s0->t) / 1e9 * (s0->v + v) / 2;
    } else {
        *cum = s0->c + (s1->c - s0->c) * f;
    }
    return INTEG_OK;
}

enum integ_status integ_cum_after_end(const struct integrator *ig, int q, int64_t t, double *cum)
{
    const struct qstate *s1 = &ig->cur[q];
    if (s1->t == INT64_MIN || t - s1->t > INTEG_EXTRAPOLATE_NS)
        return INTEG_NO_DATA;
    if (t <= s1->t)
        return integ_cum_at(ig, q, t, cum);
    if (ig->kind[q] == Q_TRAPEZOID) {
        *cum = s1->c + (double)(t - s1->t) / 1e9 * s1->v;
        return INTEG_OK;
    }
    long j = ig->count - 1;
    while (j > oldest(ig) && qs(ig, j, q)->t == s1->t)
        j--;
    const struct qstate *s0 = qs(ig, j, q);
    if (s0->t == INT64_MIN || s0->t == s1->t)
        return INTEG_NO_DATA;
    *cum = s1->c + (s1->c - s0->c) * (double)(t - s1->t) / (double)(s1->t - s0->t);
    return INTEG_OK;
}

/* First snapshot index with time >= t (inclusive == 0) or > t (inclusive). */
struct snapshot_after { const struct integrator *ig; int64_t t; int inclusive; };

static int snapshot_after(const void *arg, long k)
{
    const struct snapshot_after *a = arg;
    int64_t tm = ts(a->ig, k);
    return a->inclusive ? tm > a->t : tm >= a->t;
}

static long first_after(const struct integrator *ig, int64_t t, int inclusive)
{
    struct snapshot_after arg = { ig, t, inclusive };
    return search_back(oldest(ig), ig->count, snapshot_after, &arg);
}

enum integ_status integ_count_before(const struct integrator *ig, int64_t t, int inclusive,
                                     long *samples, uint32_t reasons[INTEG_REASON_BITS])
{
    long k = first_after(ig, t, inclusive);
    if (k == ig->count)
        return INTEG_PENDING;
    if (k == oldest(ig) && k > 0)
        return INTEG_TOO_OLD;
    *samples = k;
    for (int i = 0; i < INTEG_REASON_BITS; i++)
        reasons[i] = k > 0 ? rs(ig, k - 1)[i] : 0;
    return INTEG_OK;
}

double integ_max_gap_s(const struct integrator *ig, int64_t t0, int64_t t1)
{
    int64_t best = 0;
    for (long k = first_after(ig, t0, 1); k < ig->count; k++) {
        if (k == oldest(ig))
            continue;
        if (ts(ig, k - 1) >= t1)
            break;
        int64_t g = ts(ig, k) - ts(ig, k - 1);
        if (g > best)
            best = g;
    }
    return (double)best / 1e9;
}

double integ_counter_step_s(const struct integrator *ig)
{
    if (ig->step_n == 0)
        return NAN;
    long half = (ig->step_n + 1) / 2, seen = 0;
    for (long b = 0; b < INTEG_STEP_BINS; b++) {
        seen += ig->step_hist[b];
        if (seen >= half)
            return (b + 0.5) / 4 / 1e3;
    }
    return NAN;
}
