/*
 * breakdown_gpu.c — the breakdown's per-instant "is this GPU busy"
 * decision: one GPU's readings fused into a busy/idle timeline
 * (breakdown_internal.h), each signal trusted only for what it can know.
 *
 * Each signal's readings say busy, idle or nothing (between its
 * thresholds): instantaneous power busy at or above compute_frac of the
 * GPU's busy range and idle at or below idle_frac; utilization busy at
 * >= 50 % and idle at <= 5 %; SM activity (GPM, in windows that hold two
 * spans whole, gpm_evidence.h) the same; the GpuIdle reason bit idle when
 * set; the energy counter's steps by their mean power, like instantaneous
 * power. The SM clock decides nothing: a clock ramping up from idle is
 * compute, and high clocks linger after work.
 *
 * What a reading can know. A reading stamped t describes the mean over
 * [r - W, r] for its sensor's last refresh r in (t - R, t] (R: refresh
 * period, W: averaging window; sensor_figures.h when the trace cannot show
 * them): nothing after r, which may be R before its stamp. So between the
 * last reading in one state (stamped a) and the first in another (stamped
 * b) the change lies in [a - R - W, b], and a run of readings in one state
 * makes that state known only from its first stamp to R + W before its
 * last. The GpuIdle bit reports its state up to a lag L late (R = L,
 * W = 0). The energy counter is exact at its updates, which lie between
 * the samples around each change: a step's mean power is known, a step
 * between an idle and a busy one holds the change, and its energy places
 * it (the two-level split the energy estimator makes, energy_estimator.c)
 * to within what the update instants and the neighbouring levels allow.
 *
 * Fusion: at each instant, the signals that know their state there decide;
 * where they disagree (a sensor off its assumptions) the order GpuIdle,
 * counter, power, SM activity, utilization settles it. Where none knows,
 * the change lies somewhere in that span: the edge is put at its middle,
 * known to half its length. That is the intersection of what every signal
 * allows, so the printed resolution holds as long as each signal's
 * assumptions do; where known states disagree next to an edge, the edge's
 * resolution widens over the disagreement. The 1 s average power counts
 * only when the trace has none of the others.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "array_grow.h"
#include "breakdown_internal.h"
#include "energy_estimator.h"
#include "fminmax.h"
#include "gpu_spin.h"
#include "sensor_figures.h"
#include "sort_doubles.h"

/* In conflict order (see above). */
enum { SIG_IDLEBIT, SIG_COUNTER, SIG_POWER, SIG_SMACT, SIG_UTIL, SIG_AVERAGE, SIG_N };

#define ST_UNKNOWN 4             /* fused: no signal knows */
#define COUNTER_RAMP_MS 2.0      /* a change is a ramp of a few ms, not a jump */
#define COUNTER_NOISE_FRAC 0.05  /* an end step this close to a level is at it */

/* Where one signal knows the GPU's state: sorted, disjoint spans. */
struct span { double lo, hi; unsigned char st; };
struct known {
    long n, cap;
    struct span *s;
    double half_width;           /* a typical edge's resolution from this signal alone */
    double *pt;                  /* where it places changes exactly (counter splits), sorted */
    long npt, cappt;
};

static int point_push(struct known *k, double x)
{
    if (array_grow((void **)&k->pt, &k->cappt, k->npt + 1, sizeof *k->pt) != 0)
        return -1;
    k->pt[k->npt++] = x;
    return 0;
}

static inline int span_push(struct known *k, double lo, double hi, unsigned char st)
{
    if (!(lo < hi))
        return 0;
    if (k->n && k->s[k->n - 1].st == st && lo <= k->s[k->n - 1].hi) {
        k->s[k->n - 1].hi = fmax_inline(k->s[k->n - 1].hi, hi);
        return 0;
    }
    if (k->n && lo < k->s[k->n - 1].hi)          /* keep them disjoint */
        lo = k->s[k->n - 1].hi;
    if (!(lo < hi))
        return 0;
    if (array_grow((void **)&k->s, &k->cap, k->n + 1, sizeof *k->s) != 0)
        return -1;
    k->s[k->n++] = (struct span){ lo, hi, st };
    return 0;
}

/* span_push for spans that come one after another, the last held back
 * while the next may still extend it: a run of clear counter steps in one
 * state merges in registers, not through the array's last entry on every
 * step. Flushed, it gives k what span_push would have given it. */
struct span_held { double lo, hi; unsigned char st, held; };

static inline int held_flush(struct known *k, struct span_held *h)
{
    int rc = h->held ? span_push(k, h->lo, h->hi, h->st) : 0;
    h->held = 0;
    return rc;
}

static inline int held_push(struct known *k, struct span_held *h, double lo, double hi, unsigned char st)
{
    if (!(lo < hi))
        return 0;
    if (h->held && h->st == st && lo <= h->hi) {
        h->hi = fmax_inline(h->hi, hi);
        return 0;
    }
    int rc = held_flush(k, h);
    *h = (struct span_held){ lo, hi, st, 1 };
    return rc;
}

/* The state signal k knows at x, ST_NONE when it does not. */
static unsigned char known_at(const struct known *k, double x)
{
    long lo = 0, hi = k->n;                       /* first span with lo > x */
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (k->s[mid].lo <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && x < k->s[lo - 1].hi ? k->s[lo - 1].st : ST_NONE;
}

/* Spans from the readings of a sensor refreshed every R ms (see the top),
 * made as the readings come (stamp t in ms from the window start, the
 * window w each averages over, the state read): a run of one state is
 * known from its first stamp (the first run reaches back without bound:
 * what came before the first reading is taken as its state) to R + w
 * before its last. half_width: the widest gap inside [0, d] plus R and
 * the widest w, halved. The readings were once kept and walked twice;
 * made as they come they cost a third less. */
struct runs {
    double R, d;
    long n;                      /* readings so far */
    double maxgap, maxw;
    double run_lo, last_t, last_w;
    unsigned char run_st;
};

static void runs_start(struct runs *r, double R, double d)
{
    memset(r, 0, sizeof *r);
    r->R = R;
    r->d = d;
}

/* The run that just ended, onto k; 0 or -1 when out of memory. */
static inline int runs_close(const struct runs *r, struct known *k)
{
    if (r->n && (r->run_st == ST_BUSY || r->run_st == ST_IDLE))
        return span_push(k, r->run_lo, r->last_t - r->R - r->last_w, r->run_st);
    return 0;
}

static inline int runs_add(struct runs *r, struct known *k, double t, double w, unsigned char st)
{
    int rc = 0;
    if (r->n == 0) {
        r->maxw = fmax_inline(0, w);
        r->run_lo = -INFINITY;
        r->run_st = st;
    } else {
        if (t > 0 && r->last_t < r->d && t - r->last_t > r->maxgap)
            r->maxgap = t - r->last_t;
        r->maxw = fmax_inline(r->maxw, w);
        if (st != r->run_st) {
            rc = runs_close(r, k);
            r->run_lo = t;
            r->run_st = st;
        }
    }
    r->last_t = t;
    r->last_w = w;
    r->n++;
    return rc;
}

/* The widest gap t[q] - t[q - 1] (t[-1] being last) whose reading lies
 * after 0 and whose predecessor before d, and at least maxgap: runs_add's
 * widest gap over these readings. Every time is finite and maxgap is not
 * negative, so the order in which they are compared does not matter, and
 * two at a time with SSE2 give the same double. */
static double widest_gap(const double *t, long m, double last, double d, double maxgap)
{
    long q = 0;
    for (; q < m && q < 1; q++) {
        double g = t[q] - last;
        maxgap = t[q] > 0 && last < d && g > maxgap ? g : maxgap;
    }
#ifdef __SSE2__
    __m128d best = _mm_set1_pd(maxgap), zero = _mm_setzero_pd(), end = _mm_set1_pd(d);
    for (; q + 2 <= m; q += 2) {
        __m128d now = _mm_loadu_pd(t + q), before = _mm_loadu_pd(t + q - 1);
        __m128d counts = _mm_and_pd(_mm_cmpgt_pd(now, zero), _mm_cmplt_pd(before, end));
        best = _mm_max_pd(best, _mm_and_pd(counts, _mm_sub_pd(now, before)));   /* else +0 */
    }
    double lane[2];
    _mm_storeu_pd(lane, best);
    maxgap = lane[0] > lane[1] ? lane[0] : lane[1];
#endif
    for (; q < m; q++) {
        double g = t[q] - t[q - 1];
        maxgap = t[q] > 0 && t[q - 1] < d && g > maxgap ? g : maxgap;
    }
    return maxgap;
}

/* The first q in [q, m) with st[q] != run, m when none: eight states a
 * word where the bytes' order lets the lowest set bit name the first. */
static long next_change(const unsigned char *st, long q, long m, unsigned char run)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t all = run * UINT64_C(0x0101010101010101);
    for (; q + 8 <= m; q += 8) {
        uint64_t word;
        memcpy(&word, st + q, sizeof word);
        if (word != all)
            return q + __builtin_ctzll(word ^ all) / 8;
    }
#endif
    while (q < m && st[q] == run)
        q++;
    return q;
}

/* runs_add for m readings at once: their stamps t and states st, all
 * averaging over the same w. The same runs, spans and figures: the widest
 * gap taken over them all at once, then only the changes of state walked,
 * a word of states at a time (a window's readings hold a few changes
 * between long runs; runs_add's bookkeeping per reading was a third of the
 * timeline's time). */
static int runs_scan(struct runs *r, struct known *k, const double *t, const unsigned char *st, long m,
                     double w)
{
    long q = 0;
    int rc = 0;
    if (m > 0 && r->n == 0)
        rc = runs_add(r, k, t[q++], w, st[0]);
    if (q >= m || rc != 0)
        return rc;
    long from = q;
    r->maxw = fmax_inline(r->maxw, w);     /* the same w each time: once is enough */
    r->maxgap = widest_gap(t + from, m - from, r->last_t, r->d, r->maxgap);
    double before = r->last_t;             /* the reading before `from` */
    for (q = next_change(st, from, m, r->run_st); q < m; q = next_change(st, q + 1, m, r->run_st)) {
        r->last_t = q > from ? t[q - 1] : before;
        r->last_w = w;
        rc = runs_close(r, k);
        if (rc != 0)
            return rc;
        r->run_lo = t[q];
        r->run_st = st[q];
    }
    r->n += m - from;
    r->last_t = t[m - 1];
    r->last_w = w;
    return 0;
}

/* The last run onto k, and k's half width; 0 or -1. */
static int runs_end(const struct runs *r, struct known *k)
{
    k->half_width = r->n >= 2 ? (r->maxgap + r->R + r->maxw) / 2 : INFINITY;
    return runs_close(r, k);
}

static double frac_of(double w, double idle, double busy)
{
    return (w - idle) / (busy - idle);
}

/* ST_BUSY at or above busy_at, else ST_IDLE at or below idle_at, else
 * ST_NONE (NAN too), without a branch: the loops that call it per reading
 * or per counter step waited on a division to learn which way to go. */
static inline unsigned char level_of(double f, double busy_at, double idle_at)
{
    int busy = f >= busy_at, idle = !busy & (f <= idle_at);
    return (unsigned char)(busy * ST_BUSY + idle * ST_IDLE);
}

static unsigned char level_state(const struct analysis_options *o, double f)
{
    return level_of(f, o->compute_frac, o->idle_frac);
}

/* One step of the energy counter: (a, b] between two updates placed at a
 * and b, each to +- da / db, with mean power p (W) and energy e (mJ). */
struct cstep { double a, b, da, db, p, e; unsigned char st, partial; };

/* A piece of the fused timeline. */
struct piece { double lo, hi; unsigned char st, conflict; };

/* What one GPU's timeline is worked out in, kept from window to window:
 * a window's breakdown allocated and freed two dozen arrays, a sixth of
 * its time with 10,000 windows. Each array only grows (array_grow). */
struct gpu_timeline_work {
    struct known k[SIG_N];       /* each signal's spans (n reset per GPU, capacity kept) */
    struct cstep *steps;         /* the energy counter's steps */
    struct est_change *changes;  /* and changes */
    long cap_steps, cap_changes;
    double *x;                   /* each sample's time, ms from the window start */
    long cap_x;
    double *rx[3];               /* the idle bit's, power's and utilization's readings:
                                    their times */
    unsigned char *rs[3];        /* and states (runs_scan) */
    long cap_rx[3], cap_rs[3];
    double *bounds;              /* the fused timeline's span bounds */
    struct piece *pieces;        /* and pieces */
    long cap_bounds, cap_pieces;
};

struct gpu_timeline_work *gpu_timeline_work_new(void)
{
    return calloc(1, sizeof(struct gpu_timeline_work));
}

static void work_release(struct gpu_timeline_work *work)
{
    for (int s = 0; s < SIG_N; s++) {
        free(work->k[s].s);
        free(work->k[s].pt);
    }
    free(work->steps);
    free(work->changes);
    free(work->x);
    for (int s = 0; s < 3; s++) {
        free(work->rx[s]);
        free(work->rs[s]);
    }
    free(work->bounds);
    free(work->pieces);
}

void gpu_timeline_work_free(struct gpu_timeline_work *work)
{
    if (!work)
        return;
    work_release(work);
    free(work);
}

/* Where a change inside step s lies, between levels lb before and la after:
 * lb * (x - a) + la * (b - x) = e. */
static double split_at(const struct cstep *s, double lb, double la)
{
    return (la * s->b - lb * s->a - s->e) / (la - lb);
}

/* The energy counter's spans (see the top). A change seen between samples
 * i - 1 and i is an update in (t[i-1], t[i]]; the updates are placed on
 * the counter's fitted grid, as the energy estimator places them
 * (est_place_knots: to ~1-2 ms with a dithered sampler, more at a block's
 * ends), in blocks of at most EST_KNOTS_MAX changes. The instants are the
 * rows' stamps, not the driver's timestamps the estimator uses
 * (reading_instant.h): the held samples keep one time per row, so on a
 * busy host an edge here can move by as much as a read was late (a few
 * ms). bench/busy_host.sh measures it: beside three busy loops every
 * window's true waiting time stayed inside its printed edges, using at most
 * half of them. */
static int counter_spans(const struct analysis_options *o, const struct window_gpu *g,
                         const struct gpu_sample *smp, long n, double t0, double d, struct known *k,
                         struct gpu_timeline_work *work)
{
    k->half_width = INFINITY;
    if (array_grow((void **)&work->steps, &work->cap_steps, n ? n : 1, sizeof *work->steps) != 0
        || array_grow((void **)&work->changes, &work->cap_changes, n ? n : 1, sizeof *work->changes) != 0)
        return -1;
    struct cstep *s = work->steps;
    struct est_change *c = work->changes;
    long nc = 0;
    for (long i = 1; i < n; i++) {
        double m0 = smp[i - 1].energy_mj, m1 = smp[i].energy_mj;
        if (isnan(m0) || isnan(m1) || m1 == m0)
            continue;
        int consecutive = i >= 2 && !isnan(smp[i - 2].energy_mj) && smp[i - 2].energy_mj != m0;
        c[nc++] = (struct est_change){ smp[i - 1].t, smp[i].t, m1, consecutive, 0, 0 };
    }
    /* fewer than 4 changes: each at its interval's middle; else the
     * blocks (the last one shifted back to end at nc) place every one */
    for (long i = 0; nc < 4 && i < nc; i++) {
        c[i].u = ((double)c[i].a + (double)c[i].b) / 2e9;
        c[i].unc = (double)(c[i].b - c[i].a) / 2e9;
    }
    for (long b0 = 0; nc >= 4 && b0 < nc; b0 += EST_KNOTS_MAX) {
        long from = b0 + EST_KNOTS_MAX <= nc ? b0 : nc - EST_KNOTS_MAX > 0 ? nc - EST_KNOTS_MAX : 0;
        est_place_knots(c + from, (int)(nc - from < EST_KNOTS_MAX ? nc - from : EST_KNOTS_MAX));
    }
    long ns = 0;
    double maxdu = 0, t0_ms = t0 / 1e6, b = nc ? c[0].u * 1e3 - t0_ms : 0;
    for (long i = 1; i < nc; i++) {
        double a = b;                 /* the previous update's place */
        b = c[i].u * 1e3 - t0_ms;
        double da = c[i - 1].unc * 1e3, db = c[i].unc * 1e3, e = c[i].mj - c[i - 1].mj;
        if (!(b > a) || !(e > 0))
            continue;
        struct cstep *st = &s[ns++];
        *st = (struct cstep){ a, b, da, db, e / (b - a), e, ST_NONE, 0 };
        st->st = level_state(o, frac_of(st->p, g->idle_w, g->busy_w));
        if (b > 0 && a < d)
            maxdu = fmax_inline(maxdu, fmax_inline(da, db));
    }
    /* A step between two of different states whose power lies between
     * theirs holds the change, whatever its own threshold says (a busy
     * step that ends idle a fifth of the way through still reads busy, an
     * idle one with 3 ms of compute still reads idle): it is split, not
     * taken whole. One that is merely noisy splits near its end, and the
     * levels' own disagreement (below) keeps that edge honest. */
    for (long i = 1; i + 1 < ns; i++) {
        const struct cstep *l = &s[i - 1], *r = &s[i + 1];
        /* one side may be a moderate level (memory-bound decode at 30 %
         * of the range): the split still places the change */
        if (l->st == r->st)
            continue;
        s[i].partial = (s[i].p - l->p) * (s[i].p - r->p) < 0;
    }
    /* The first and last steps have no neighbour to compare with: known
     * only at a level itself (a step that is a tenth busy reads idle) */
    for (long i = 0; i < ns; i += ns - 1 > 0 ? ns - 1 : 1) {
        double f = frac_of(s[i].p, g->idle_w, g->busy_w);
        if (s[i].st != ST_NONE && f > COUNTER_NOISE_FRAC && f < 1 - COUNTER_NOISE_FRAC)
            s[i].st = ST_NONE;
    }
    int rc = 0;
    struct span_held held = { 0, 0, 0, 0 };
    for (long i = 0; i < ns && rc == 0; i++) {
        const struct cstep *cs = &s[i];
        if (cs->st != ST_NONE && !cs->partial) {
            /* a clear step: known inside its placed updates, and across an
             * update into a neighbour of the same state */
            double lo = i > 0 && s[i - 1].st == cs->st && !s[i - 1].partial ? cs->a : cs->a + cs->da;
            double hi = i + 1 < ns && s[i + 1].st == cs->st && !s[i + 1].partial ? cs->b : cs->b - cs->db;
            rc = held_push(k, &held, lo, hi, cs->st);
            continue;
        }
        /* a step between two clear steps of different states holds the change */
        if (!cs->partial)
            continue;
        double lb = s[i - 1].p, la = s[i + 1].p;
        double x = split_at(cs, lb, la);
        if (!(x > cs->a && x < cs->b))
            continue;
        /* the update instants move x by their placement times the levels;
         * each level is trusted as far as the step beyond it agrees */
        double res = (cs->da * fabs(lb) + cs->db * fabs(la)) / fabs(la - lb) + COUNTER_RAMP_MS;
        double dlb = i >= 2 && s[i - 2].st == s[i - 1].st ? fabs(s[i - 2].p - lb) : 0.1 * fabs(la - lb);
        double dla = i + 2 < ns && s[i + 2].st == s[i + 1].st ? fabs(s[i + 2].p - la) : 0.1 * fabs(la - lb);
        double worst = 0;
        for (int corner = 0; corner < 4; corner++) {
            double xb = lb + (corner & 1 ? dlb : -dlb), xa = la + (corner & 2 ? dla : -dla);
            if (xa != xb)
                worst = fmax_inline(worst, fabs(fmin_inline(fmax_inline(split_at(cs, xb, xa), cs->a), cs->b) - x));
        }
        res += worst;
        rc = held_flush(k, &held);
        if (rc == 0)
            rc = point_push(k, x);
        if (rc == 0 && s[i - 1].st != ST_NONE)
            rc = span_push(k, cs->a, x - res, s[i - 1].st);
        if (rc == 0 && s[i + 1].st != ST_NONE)
            rc = span_push(k, x + res, cs->b, s[i + 1].st);
    }
    if (rc == 0)
        rc = held_flush(k, &held);
    if (ns >= 2 && g->busy_w > g->idle_w)
        k->half_width = maxdu * (fabs(g->busy_w) + fabs(g->idle_w)) / (g->busy_w - g->idle_w)
                        + COUNTER_RAMP_MS;
    return rc;
}

/* The fused state at x: known states agreeing, else the first in conflict
 * order (*conflict set), else ST_UNKNOWN. */
static unsigned char fuse_at(const struct known *k, const int *use, double x, unsigned char *conflict)
{
    unsigned char first = ST_UNKNOWN;
    *conflict = 0;
    for (int s = 0; s < SIG_N; s++) {
        if (!use[s])
            continue;
        unsigned char st = known_at(&k[s], x);
        if (st == ST_NONE)
            continue;
        if (first == ST_UNKNOWN)
            first = st;
        else if (st != first)
            *conflict = 1;
    }
    return first;
}

/* The fused timeline from the signals' spans, onto [0, d] in out. */
static int fuse_timeline(const struct known *k, const int *use, double d, struct timeline *out,
                         struct gpu_timeline_work *work)
{
    long nb = 2;
    for (int s = 0; s < SIG_N; s++)
        if (use[s])
            nb += 2 * k[s].n;
    if (array_grow((void **)&work->bounds, &work->cap_bounds, nb, sizeof *work->bounds) != 0
        || array_grow((void **)&work->pieces, &work->cap_pieces, nb + 1, sizeof *work->pieces) != 0)
        return -1;
    double *b = work->bounds;
    struct piece *p = work->pieces;
    long m = 0;
    b[m++] = 0;
    b[m++] = d;
    for (int s = 0; s < SIG_N; s++)
        for (long i = 0; use[s] && i < k[s].n; i++) {
            if (isfinite(k[s].s[i].lo))
                b[m++] = k[s].s[i].lo;
            if (isfinite(k[s].s[i].hi))
                b[m++] = k[s].s[i].hi;
        }
    sort_doubles(b, m);     /* finite, a few dozen, each signal's in order */
    /* pieces: (-inf, b0), [b0, b1), ..., [b_last, inf), equal ones merged */
    long np = 0;
    for (long i = 0; i <= m; i++) {
        double lo = i ? b[i - 1] : -INFINITY, hi = i < m ? b[i] : INFINITY;
        if (i && i < m && !(hi > lo))
            continue;
        double x = !isfinite(lo) ? hi - 1 : !isfinite(hi) ? lo + 1 : (lo + hi) / 2;
        unsigned char conflict, st = fuse_at(k, use, x, &conflict);
        if (np && p[np - 1].st == st && p[np - 1].conflict == conflict) {
            p[np - 1].hi = hi;
            continue;
        }
        p[np++] = (struct piece){ lo, hi, st, conflict };
    }
    /* unknown runs: an edge in the middle between two different states,
     * else the state around them; edges: (x, res) into the timeline */
    int rc = 0;
    int any_known = 0;
    for (long i = 0; i < np; i++)
        any_known |= p[i].st != ST_UNKNOWN;
    if (!any_known) {
        tl_close(out, d);
        return 0;
    }
    for (long i = 0; i < np && rc == 0; i++) {
        if (p[i].st == ST_UNKNOWN)
            continue;
        /* the known piece i, and the unknown run before it (from the last known piece) */
        long j = i - 1;
        while (j >= 0 && p[j].st == ST_UNKNOWN)
            j--;
        double x = p[i].lo, res = 0;
        if (j < 0) {
            x = -INFINITY;                       /* the first known state reaches back */
        } else if (p[j].st == p[i].st) {
            continue;                            /* the same state across the run */
        } else if (j + 1 < i) {
            double lo = p[j + 1].lo, hi = p[i - 1].hi;
            x = (lo + hi) / 2;
            res = (hi - lo) / 2;
            /* a counter split inside the span is where the change is, the
             * span's ends what every signal allows */
            const struct known *c = &k[SIG_COUNTER];
            for (long q = 0; use[SIG_COUNTER] && q < c->npt; q++)
                if (c->pt[q] > lo && c->pt[q] < hi) {
                    x = c->pt[q];
                    res = fmax_inline(x - lo, hi - x);
                    break;
                }
        }
        /* known states in conflict next to the edge: it may lie anywhere in them */
        for (long q = i; q < np && p[q].conflict && p[q].st != ST_UNKNOWN; q++)
            res = fmax_inline(res, fmin_inline(p[q].hi, x + 1000) - x);
        for (long q = j; q >= 0 && p[q].conflict && p[q].st != ST_UNKNOWN; q--)
            res = fmax_inline(res, x - fmax_inline(p[q].lo, x - 1000));
        if (x >= d)
            break;
        rc = tl_push(out, fmax_inline(x, 0), x > 0 ? res : 0, p[i].st);
    }
    tl_close(out, d);
    return rc;
}

static double nz(double v, double dflt)
{
    return isnan(v) ? dflt : v;
}

/* See breakdown_internal.h. */
int breakdown_gpu_timeline(const struct analysis_options *o, const struct window_gpu *g,
                           const struct gpu_sample *smp, long n, int medium_every_tick,
                           int idle_bit_live, double t0,
                           double d, const struct sensor_cadence *cad, struct timeline *out,
                           double *base_res, struct gpu_timeline_work *work)
{
    struct gpu_timeline_work own;      /* without a caller's: this call's alone */
    if (!work) {
        memset(&own, 0, sizeof own);
        work = &own;
    }
    struct sensor_cadence fig = { NAN, NAN, NAN, NAN, NAN, NAN };
    if (cad)
        fig = *cad;
    sensor_figures_settle(&fig, NULL);
    double R[SIG_N] = { 0 };
    R[SIG_IDLEBIT] = fig.event_lag_ms;
    R[SIG_POWER] = fig.power_refresh_ms;
    R[SIG_UTIL] = fig.util_period_ms;
    R[SIG_AVERAGE] = fig.average_refresh_ms;
    /* GPM samples hold the counters of their last refresh (>= 100 ms apart) */
    R[SIG_SMACT] = 100;
    struct runs rd[SIG_N];
    struct known *k = work->k;
    for (int s = 0; s < SIG_N; s++) {
        k[s].n = k[s].npt = 0;
        k[s].half_width = 0;
        runs_start(&rd[s], R[s], d);
    }
    int rc = 0;
    int levels = isfinite(frac_of(g->idle_w + 1, g->idle_w, g->busy_w));
    /* SM activity only in a window that holds enough GPM spans whole
     * (gpm_window judged them, g->gpm) */
    int smact = g->gpm.status == GPM_OK;
    /* Each signal's readings go into its runs in a pass of their own
     * (SIG_COUNTER has none: counter_spans reads the samples), its runs a
     * local the compiler keeps in registers. One pass feeding all four
     * kept them in memory and mispredicted on which signals each sample
     * held: a fifth of a window's breakdown with a window every second. */
    if (array_grow((void **)&work->x, &work->cap_x, n ? n : 1, sizeof *work->x) != 0)
        rc = -1;
    for (int s = 0; s < 3 && rc == 0; s++)
        if (array_grow((void **)&work->rx[s], &work->cap_rx[s], n ? n : 1, sizeof *work->rx[s]) != 0
            || array_grow((void **)&work->rs[s], &work->cap_rs[s], n ? n : 1, sizeof *work->rs[s]) != 0)
            rc = -1;
    if (rc == 0) {
        /* One pass over the samples gathers the idle bit's, power's and
         * utilization's readings (every sample written to each, a count
         * moved on only past a reading: no branch on which samples hold
         * one); each signal's are then scanned as one (runs_scan). The
         * reasons and utilization only where read, not repeated. */
        int every_reason = (medium_every_tick & EVERY_TICK_REASONS) != 0;
        int every_util = (medium_every_tick & EVERY_TICK_UTIL) != 0;
        double idle = g->idle_w, range = g->busy_w - g->idle_w;
        double busy_at = o->compute_frac, idle_at = o->idle_frac;
        double *x = work->x, *bx = work->rx[0], *px = work->rx[1], *ux = work->rx[2];
        unsigned char *bs = work->rs[0], *ps = work->rs[1], *us = work->rs[2];
        long mb = 0, mp = 0, mu = 0;
        for (long i = 0; i < n; i++) {
            const struct gpu_sample *p = &smp[i];
            double xi = ((double)p->t - t0) / 1e6;
            x[i] = xi;
            bx[mb] = xi;
            bs[mb] = p->idle_bit ? ST_IDLE : ST_BUSY;
            mb += (p->medium_fresh || every_reason) && p->idle_bit >= 0;
            px[mp] = xi;
            ps[mp] = level_of((p->power_instant_w - idle) / range, busy_at, idle_at);  /* frac_of */
            mp += !isnan(p->power_instant_w);
            ux[mu] = xi;
            us[mu] = level_of(p->util_pct, 50, 5);
            mu += (p->medium_fresh || every_util) && !isnan(p->util_pct);
        }
        if (idle_bit_live)
            rc = runs_scan(&rd[SIG_IDLEBIT], &k[SIG_IDLEBIT], bx, bs, mb, 0);
        if (levels && rc == 0)
            rc = runs_scan(&rd[SIG_POWER], &k[SIG_POWER], px, ps, mp, fig.power_window_ms);
        if (rc == 0)
            rc = runs_scan(&rd[SIG_UTIL], &k[SIG_UTIL], ux, us, mu, fig.util_period_ms);
    }
    double *x = work->x;
    if (smact && rc == 0) {
        struct runs r = rd[SIG_SMACT];
        for (long i = 0; i < n && rc == 0; i++) {
            const struct gpu_sample *p = &smp[i];
            if (!isnan(p->sm_active_pct))
                rc = runs_add(&r, &k[SIG_SMACT], x[i], nz(p->gpm_span_ms, 0),
                              p->sm_active_pct >= 50 ? ST_BUSY : p->sm_active_pct <= 5 ? ST_IDLE : 0);
        }
        rd[SIG_SMACT] = r;
    }
    /* the average power's only where no stronger signal read (below) */
    for (int s = 0; s < SIG_N && rc == 0; s++)
        if (s != SIG_COUNTER && s != SIG_AVERAGE)
            rc = runs_end(&rd[s], &k[s]);
    if (rc == 0 && levels)
        rc = counter_spans(o, g, smp, n, t0, d, &k[SIG_COUNTER], work);
    else
        k[SIG_COUNTER].half_width = INFINITY;
    int use[SIG_N] = { 0 };
    int strong = 0;
    for (int s = 0; s < SIG_N; s++) {
        use[s] = s == SIG_COUNTER ? k[s].n > 0 : rd[s].n > 0;
        strong |= s != SIG_AVERAGE && use[s];
    }
    /* the 1 s average's readings only now, where it counts (almost no
     * trace: its division per sample was wasted on every window) */
    for (long i = 0; !strong && levels && i < n && rc == 0; i++) {
        const struct gpu_sample *p = &smp[i];
        if (!isnan(p->power_average_w))
            rc = runs_add(&rd[SIG_AVERAGE], &k[SIG_AVERAGE], ((double)p->t - t0) / 1e6,
                          fig.average_window_ms,
                          level_state(o, frac_of(p->power_average_w, g->idle_w, g->busy_w)));
    }
    use[SIG_AVERAGE] = !strong && rd[SIG_AVERAGE].n > 0;
    if (rc == 0 && use[SIG_AVERAGE])
        rc = runs_end(&rd[SIG_AVERAGE], &k[SIG_AVERAGE]);
    *base_res = INFINITY;
    for (int s = 0; s < SIG_N; s++)
        if (use[s] && s != SIG_AVERAGE)
            *base_res = fmin_inline(*base_res, k[s].half_width);
    if (use[SIG_AVERAGE])
        *base_res = k[SIG_AVERAGE].half_width + d;
    if (rc == 0)
        rc = fuse_timeline(k, use, d, out, work);
    if (rc == 0 && smact)
        rc = gpu_spin_mark(smp, n, t0, d, R[SIG_UTIL], out);
    if (work == &own)
        work_release(&own);
    return rc;
}
