/*
 * breakdown_gpu.c — the breakdown's per-instant "is this GPU busy"
 * decision: one GPU's readings fused into a busy/idle timeline
 * (breakdown_internal.h).
 *
 * Each signal of a GPU is a list of readings, each deciding busy, idle or
 * "no opinion" about the moment it describes: instantaneous power busy at or
 * above compute_frac of the GPU's busy range and idle at or below idle_frac
 * (between: memory-bound kernels and partial load draw moderate power, so
 * power alone cannot tell); utilization busy at >= 50% and idle at <= 5%;
 * SM activity (GPM: the share of SMs busy over a ~200 ms span, in windows
 * that hold two spans whole, gpm_evidence.h) the same; the GpuIdle reason
 * bit idle when set. A reading describes an earlier moment than its stamp
 * when its sensor averages or refreshes slowly: it is placed at the centre
 * of the span it may cover (struct sensor_cadence). Between two readings of
 * one signal that disagree the change is put half way, and that edge is
 * known to within half the distance plus the sensor's own smear: that is
 * the edge's resolution.
 *
 * The fused decision at an instant: the strong signals (power, utilization,
 * SM activity) decide when they agree or only one has an opinion; when they
 * conflict, the GpuIdle bit settles it, else power (it reacts fastest on
 * ideal sensors). With no strong opinion: GpuIdle, then the 1 s average
 * power, then the SM clock (high clocks linger after work, so it is last).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "breakdown_internal.h"

enum { SIG_POWER, SIG_UTIL, SIG_SMACT, SIG_IDLEBIT, SIG_AVERAGE, SIG_CLOCK, SIG_N };

/* One signal's readings: tau (ms from window start, shifted) and state. */
struct signal {
    long n;
    double *tau;
    unsigned char *st;
    double smear_ms;          /* added to every edge's resolution */
};

/* A signal's state at x: the nearer reading's (half way between two);
 * *res: how well that is known there (half the distance between the two
 * readings around x plus the sensor's smear). */
static unsigned char sig_at_res(const struct signal *s, double x, double *res)
{
    *res = INFINITY;
    if (s->n == 0)
        return ST_NONE;
    long lo = 0, hi = s->n;              /* first tau > x */
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (s->tau[mid] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return s->st[0];
    if (lo == s->n)
        return s->st[s->n - 1];
    *res = (s->tau[lo] - s->tau[lo - 1]) / 2 + s->smear_ms;
    return x < (s->tau[lo - 1] + s->tau[lo]) / 2 ? s->st[lo - 1] : s->st[lo];
}
static unsigned char fuse(const struct signal *sig, double x)
{
    unsigned char s[SIG_N];
    double res[SIG_N];
    for (int k = 0; k < SIG_N; k++)
        s[k] = sig_at_res(&sig[k], x, &res[k]);
    int busy = 0, idle = 0;
    for (int k = SIG_POWER; k <= SIG_IDLEBIT; k++) {
        busy += s[k] == ST_BUSY;
        idle += s[k] == ST_IDLE;
    }
    if (busy && idle) {
        /* Near an edge the sensors disagree until the slower ones catch up:
         * the signal read most finely around x decides; at equal fineness
         * GpuIdle, a current state, before the averaged ones. */
        static const int order[4] = { SIG_IDLEBIT, SIG_POWER, SIG_SMACT, SIG_UTIL };
        int best = -1;
        for (int i = 0; i < 4; i++) {
            int k = order[i];
            if (s[k] != ST_NONE && (best < 0 || res[k] < res[best]))
                best = k;
        }
        return s[best];
    }
    if (busy || idle)
        return busy ? ST_BUSY : ST_IDLE;
    for (int k = SIG_AVERAGE; k < SIG_N; k++)
        if (s[k] != ST_NONE)
            return s[k];
    return ST_NONE;
}

/* The sensors seldom agree on where an edge is: a slow one (utilization
 * over 1/6 s, power refreshed every 100 ms) turns later than a quick one
 * (GpuIdle), and one whose cadence the trace does not show (a quantity
 * that held still between steps) is taken as ideal, so its own +- may be
 * too small. Each signal's own edge in the same direction, between the
 * fused edges around this one, is a witness that the truth lies within its
 * x +- res; the fused edge's resolution widens to cover every witness, so
 * that it holds as long as one witness is right. */
static void widen_by_disagreement(struct timeline *tl, const struct edge *e, long ne)
{
    for (int k = 1; k < tl->n; k++) {
        int dir = tl->st[k] == ST_BUSY && tl->st[k - 1] != ST_BUSY ? 1
                  : tl->st[k] != ST_BUSY && tl->st[k - 1] == ST_BUSY ? -1 : 0;
        if (!dir)
            continue;
        double lo = tl->x[k - 1], hi = tl->x[k + 1], x = tl->x[k];
        for (long i = 0; i < ne; i++)
            if (e[i].dir == dir && e[i].x > lo && e[i].x < hi)
                tl->res[k] = fmax(tl->res[k], fabs(e[i].x - x) + e[i].res);
    }
}

static double frac_of(double w, double idle, double busy)
{
    return (w - idle) / (busy - idle);
}

static double nz(double v)
{
    return isnan(v) ? 0 : v;
}

/* See breakdown_internal.h. */
int breakdown_gpu_timeline(const struct analysis_options *o, const struct window_gpu *g,
                           const struct gpu_sample *smp, long n, int medium_every_tick,
                           int idle_bit_live, double t0,
                           double d, const struct sensor_cadence *cad, struct timeline *out,
                           double *base_res)
{
    struct signal sig[SIG_N];
    memset(sig, 0, sizeof sig);
    double maxclock = 0, maxspan = 0;
    for (long i = 0; i < n; i++) {
        if (!isnan(smp[i].sm_clock_mhz) && smp[i].sm_clock_mhz > maxclock)
            maxclock = smp[i].sm_clock_mhz;
        if (!isnan(smp[i].sm_active_pct) && smp[i].gpm_span_ms > maxspan)
            maxspan = smp[i].gpm_span_ms;
    }
    /* Power: the mean over a window W ending at the last refresh, every R:
     * centred R/2 + W/2 before its stamp, anywhere within R of that (W, when
     * unknown, is taken as at most R). Utilization: the busy fraction over
     * the period R ending at the last refresh, busy at >= 50 %: the change
     * lies R/2 before the refresh, R earlier than the stamp on average,
     * within R/2. */
    double pr = nz(cad ? cad->power_refresh_ms : NAN), pw = nz(cad ? cad->power_window_ms : NAN);
    double ur = nz(cad ? cad->util_period_ms : NAN);
    double shift[SIG_N] = { pr / 2 + pw / 2, ur, 0, 0, 500, 0 };
    sig[SIG_POWER].smear_ms = isnan(cad ? cad->power_window_ms : NAN) ? pr : pr / 2 + pw / 2;
    sig[SIG_UTIL].smear_ms = ur / 2;
    sig[SIG_AVERAGE].smear_ms = 500;
    /* SM activity (GPM): the mean over the span ending at its stamp, placed
     * at the span's centre, anywhere within half the span of that. */
    sig[SIG_SMACT].smear_ms = maxspan / 2;
    int rc = 0;
    for (int k = 0; k < SIG_N && rc == 0; k++) {
        sig[k].tau = malloc(sizeof(double) * (size_t)(n ? n : 1));
        sig[k].st = malloc((size_t)(n ? n : 1));
        if (!sig[k].tau || !sig[k].st)
            rc = -1;
    }
    int levels = isfinite(frac_of(g->idle_w + 1, g->idle_w, g->busy_w));
    for (long i = 0; i < n && rc == 0; i++) {
        const struct gpu_sample *p = &smp[i];
        double x = ((double)p->t - t0) / 1e6;
        unsigned char st[SIG_N] = { ST_NONE, ST_NONE, ST_NONE, ST_NONE, ST_NONE, ST_NONE };
        if (levels && !isnan(p->power_instant_w)) {
            double f = frac_of(p->power_instant_w, g->idle_w, g->busy_w);
            st[SIG_POWER] = f >= o->compute_frac ? ST_BUSY : f <= o->idle_frac ? ST_IDLE : 0;
            st[SIG_POWER] |= 0x80;             /* known, even without an opinion */
        }
        /* utilization, clock and reasons only where read, not repeated */
        int fresh_util = p->medium_fresh || (medium_every_tick & EVERY_TICK_UTIL);
        int fresh_reasons = p->medium_fresh || (medium_every_tick & EVERY_TICK_REASONS);
        int fresh_clock = p->medium_fresh || (medium_every_tick & EVERY_TICK_CLOCK);
        if (fresh_util && !isnan(p->util_pct))
            st[SIG_UTIL] = 0x80 | (p->util_pct >= 50 ? ST_BUSY : p->util_pct <= 5 ? ST_IDLE : 0);
        if (!isnan(p->sm_active_pct))
            st[SIG_SMACT] = 0x80 | (p->sm_active_pct >= 50 ? ST_BUSY : p->sm_active_pct <= 5 ? ST_IDLE : 0);
        if (idle_bit_live && fresh_reasons && p->idle_bit >= 0)
            st[SIG_IDLEBIT] = 0x80 | (p->idle_bit ? ST_IDLE : ST_BUSY);
        if (levels && !isnan(p->power_average_w)) {
            double f = frac_of(p->power_average_w, g->idle_w, g->busy_w);
            st[SIG_AVERAGE] = 0x80 | (f >= o->compute_frac ? ST_BUSY : f <= o->idle_frac ? ST_IDLE : 0);
        }
        if (fresh_clock && !isnan(p->sm_clock_mhz) && maxclock > 0)
            st[SIG_CLOCK] = 0x80 | (p->sm_clock_mhz >= 0.75 * maxclock ? ST_BUSY
                                    : p->sm_clock_mhz <= 0.35 * maxclock ? ST_IDLE : 0);
        for (int k = 0; k < SIG_N; k++) {
            if (!st[k])
                continue;
            struct signal *s = &sig[k];
            s->tau[s->n] = x - shift[k] - (k == SIG_SMACT ? nz(p->gpm_span_ms) / 2 : 0);
            s->st[s->n] = st[k] & 0x7f;
            s->n++;
        }
    }
    /* Clock only counts without power and utilization: it stays up after work. */
    if (sig[SIG_POWER].n || sig[SIG_UTIL].n)
        sig[SIG_CLOCK].n = 0;
    if (sig[SIG_POWER].n || sig[SIG_UTIL].n || sig[SIG_SMACT].n)
        sig[SIG_AVERAGE].n = 0;
    /* Edges: every signal's half-way points between readings that differ. */
    struct edge *e = NULL;
    long ne = 0, cap = 0;
    *base_res = INFINITY;
    /* SM activity (GPM) is an opinion where it is read, but its edges,
     * known to a span (~200 ms), neither cut the timeline nor widen the
     * finer signals' edges where those exist. */
    int smact_edges = !(sig[SIG_POWER].n || sig[SIG_UTIL].n || sig[SIG_IDLEBIT].n);
    for (int k = 0; k < SIG_N && rc == 0; k++) {
        const struct signal *s = &sig[k];
        double maxgap = 0;
        if (k == SIG_SMACT && !smact_edges)
            continue;
        for (long i = 1; i < s->n; i++) {
            double lo = s->tau[i - 1], hi = s->tau[i];
            if (hi <= 0 || lo >= d)
                continue;
            double gap = hi - lo;
            if (gap > maxgap)
                maxgap = gap;
            if (s->st[i] == s->st[i - 1])
                continue;
            if (ne == cap) {
                long ncap = cap ? cap * 2 : 64;
                struct edge *ne2 = realloc(e, sizeof *e * (size_t)ncap);
                if (!ne2) {
                    rc = -1;
                    break;
                }
                e = ne2;
                cap = ncap;
            }
            e[ne].x = (lo + hi) / 2;
            e[ne].res = gap / 2 + s->smear_ms;
            e[ne].dir = s->st[i] == ST_BUSY && s->st[i - 1] == ST_IDLE ? 1
                        : s->st[i] == ST_IDLE && s->st[i - 1] == ST_BUSY ? -1 : 0;
            ne++;
        }
        if (s->n >= 2 && k <= SIG_IDLEBIT && maxgap / 2 + s->smear_ms < *base_res)
            *base_res = maxgap / 2 + s->smear_ms;
    }
    if (!isfinite(*base_res)) {
        for (int k = SIG_AVERAGE; k < SIG_N; k++)
            if (sig[k].n)
                *base_res = fmin(*base_res, sig[k].smear_ms + d);
    }
    if (rc == 0) {
        if (ne > 1)                /* qsort(NULL, 0, ...) is undefined (clang's UBSan) */
            qsort(e, (size_t)ne, sizeof *e, cmp_edge);
        struct edge_walk ew = { e, ne, 0, 0, 0 };
        double next, next_res;
        while (rc == 0 && edge_next(&ew, d, &next, &next_res)) {
            rc = tl_push(out, ew.prev, ew.prev_res, fuse(sig, (ew.prev + next) / 2));
            ew.prev = next;
            ew.prev_res = next_res;
        }
        tl_close(out, d);
        widen_by_disagreement(out, e, ne);
    }
    free(e);
    for (int k = 0; k < SIG_N; k++) {
        free(sig[k].tau);
        free(sig[k].st);
    }
    return rc;
}
