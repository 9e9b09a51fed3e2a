/*
 * breakdown.c — see breakdown.h.
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
 *
 * The CPU side: the traced process tree is busy over a sample interval when
 * its CPU time grew by >= proc_busy_cores per second; the whole host counts
 * only when saturated (host_cpu_busy_pct >= cpu_busy_pct, 90 by default).
 * At an instant the window is compute when any GPU is busy, else host-cpu
 * when the CPU side is busy, else waiting.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "breakdown.h"

enum { ST_NONE = 0, ST_BUSY = 1, ST_IDLE = 2 };
enum { SIG_POWER, SIG_UTIL, SIG_SMACT, SIG_IDLEBIT, SIG_AVERAGE, SIG_CLOCK, SIG_N };

/* One signal's readings: tau (ms from window start, shifted) and state. */
struct signal {
    long n;
    double *tau;
    unsigned char *st;
    double smear_ms;          /* added to every edge's resolution */
};

/* A piecewise-constant timeline over [0, D]: n intervals, x[0] = 0, x[n] = D. */
struct timeline {
    int n, cap;
    double *x, *res;          /* n + 1 boundaries and the resolution of each */
    unsigned char *st;
};

static int tl_push(struct timeline *tl, double x, double res, unsigned char st)
{
    if (tl->n + 2 > tl->cap) {
        int ncap = tl->cap ? tl->cap * 2 : 64;
        double *nx = realloc(tl->x, sizeof *nx * (size_t)ncap);
        if (!nx)
            return -1;
        tl->x = nx;
        double *nr = realloc(tl->res, sizeof *nr * (size_t)ncap);
        if (!nr)
            return -1;
        tl->res = nr;
        unsigned char *ns = realloc(tl->st, (size_t)ncap);
        if (!ns)
            return -1;
        tl->st = ns;
        tl->cap = ncap;
    }
    /* interval n starts at x; merge with the previous when equal */
    if (tl->n > 0 && tl->st[tl->n - 1] == st)
        return 0;
    if (tl->n > 0 && x <= tl->x[tl->n - 1]) {     /* zero-length: replace */
        tl->st[tl->n - 1] = st;
        if (tl->n > 1 && tl->st[tl->n - 2] == st)
            tl->n--;
        return 0;
    }
    tl->x[tl->n] = x;
    tl->res[tl->n] = res;
    tl->st[tl->n] = st;
    tl->n++;
    return 0;
}

static void tl_close(struct timeline *tl, double d)
{
    if (tl->n == 0) {
        tl_push(tl, 0, 0, ST_NONE);
    }
    tl->x[tl->n] = d;
    tl->res[tl->n] = 0;
}

static void tl_free(struct timeline *tl)
{
    free(tl->x);
    free(tl->res);
    free(tl->st);
    memset(tl, 0, sizeof *tl);
}

static unsigned char tl_at(const struct timeline *tl, double x)
{
    int lo = 0, hi = tl->n - 1;         /* last interval starting at or before x */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (tl->x[mid] <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    return tl->n ? tl->st[lo] : ST_NONE;
}

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

struct edge { double x, res; int dir; };   /* dir: +1 idle->busy, -1 busy->idle, 0 other */

static int cmp_edge(const void *a, const void *b)
{
    const struct edge *p = a, *q = b;
    return (p->x > q->x) - (p->x < q->x);
}

/* Walks sorted edges as the intervals they cut [0, d] into: each call
 * gives the end of the interval starting at prev (the next distinct edge
 * inside (prev, d), or d) and that edge's resolution (the finest of the
 * edges there). 0 once d has been given. */
struct edge_walk {
    const struct edge *e;
    long n, i;
    double prev, prev_res;
};

static int edge_next(struct edge_walk *w, double d, double *next, double *res)
{
    if (w->prev >= d && w->i > 0)
        return 0;
    while (w->i < w->n && w->e[w->i].x <= w->prev)
        w->i++;
    *next = d;
    *res = 0;
    if (w->i < w->n && w->e[w->i].x < d) {
        *next = w->e[w->i].x;
        *res = w->e[w->i].res;
        while (++w->i < w->n && w->e[w->i].x == *next)
            *res = fmin(*res, w->e[w->i].res);
    } else {
        w->i = w->n + 1;                 /* the last interval */
    }
    return 1;
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

/* The fused busy/idle timeline of one GPU; *base_res: the resolution an
 * edge would have with the best signal present. */
static int gpu_timeline(const struct analysis_options *o, const struct window_gpu *g,
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

/* The CPU side: busy over (t[j-1], t[j]] from the tree's CPU rate or a
 * saturated host. */
static int cpu_timeline(const struct analysis_options *o, const struct host_sample *h, long n,
                        double t0, double d, struct timeline *out)
{
    int rc = 0;
    for (long j = 1; j < n && rc == 0; j++) {
        double a = ((double)h[j - 1].t - t0) / 1e6, b = ((double)h[j].t - t0) / 1e6;
        if (b <= 0 && j + 1 < n)
            continue;
        double dt = (double)(h[j].t - h[j - 1].t) / 1e9;
        double rate = (h[j].proc_cpu_s - h[j - 1].proc_cpu_s) / dt;
        int busy = (!isnan(rate) && rate >= o->proc_busy_cores)
                   || (!isnan(h[j].host_cpu_pct) && h[j].host_cpu_pct >= o->cpu_busy_pct);
        rc = tl_push(out, out->n ? fmax(a, 0) : 0, (b - a) / 2, busy ? ST_BUSY : ST_IDLE);
        if (a >= d)
            break;
    }
    tl_close(out, d);
    return rc;
}

/* Segments of classes from GPU timelines (any busy: compute) and the CPU's. */
static int classify(struct timeline *gpus, int ng, const struct timeline *cpu, double d,
                    double base_res, struct breakdown *bd)
{
    long nx = cpu->n + 1;
    for (int i = 0; i < ng; i++)
        nx += gpus[i].n + 1;
    struct edge *x = malloc(sizeof *x * (size_t)nx);
    if (!x)
        return -1;
    long m = 0;
    for (int i = 0; i < ng; i++)
        for (int k = 1; k < gpus[i].n; k++)
            x[m++] = (struct edge){ gpus[i].x[k], gpus[i].res[k], 0 };
    for (int k = 1; k < cpu->n; k++)
        x[m++] = (struct edge){ cpu->x[k], cpu->res[k], 0 };
    qsort(x, (size_t)m, sizeof *x, cmp_edge);
    struct timeline cls = { 0 };
    struct edge_walk ew = { x, m, 0, 0, 0 };
    double next, next_res;
    int rc = 0;
    while (rc == 0 && edge_next(&ew, d, &next, &next_res)) {
        double mid = (ew.prev + next) / 2;
        int busy = 0;
        for (int g = 0; g < ng; g++)
            busy |= tl_at(&gpus[g], mid) == ST_BUSY;
        enum time_class c = busy ? CLASS_COMPUTE
                            : tl_at(cpu, mid) == ST_BUSY ? CLASS_HOST_CPU : CLASS_WAITING;
        rc = tl_push(&cls, ew.prev, ew.prev_res, (unsigned char)c);
        ew.prev = next;
        ew.prev_res = next_res;
    }
    free(x);
    if (rc != 0) {
        tl_free(&cls);
        return -1;
    }
    tl_close(&cls, d);
    /* A segment shorter than the edges' resolution cannot be told from
     * noise: it joins its predecessor (the first its successor). Too many segments (a flickering
     * signal): the same, doubling the length absorbed until they fit. */
    double shortest = isfinite(base_res) && base_res > 0 ? base_res : d / 1024;
    for (int pass = 0; pass == 0 || cls.n > BREAKDOWN_MAX_SEGMENTS; pass++, shortest *= 2) {
        int k = 0;
        for (int i = 0; i < cls.n; i++) {
            double len = cls.x[i + 1] - cls.x[i];
            if (len < shortest && (k > 0 || i + 1 < cls.n))
                continue;                          /* absorbed into the previous (the first: the next) */
            if (k > 0 && cls.st[k - 1] == cls.st[i])
                continue;
            cls.x[k] = k ? cls.x[i] : 0;
            cls.res[k] = cls.res[i];
            cls.st[k] = cls.st[i];
            k++;
        }
        cls.x[k] = d;
        cls.n = k;
    }
    memset(bd, 0, sizeof *bd);
    bd->valid = 1;
    bd->resolution_ms = 0;
    for (int i = 0; i < cls.n; i++) {
        struct segment *s = &bd->seg[bd->nseg++];
        s->start_ms = cls.x[i];
        s->end_ms = cls.x[i + 1];
        s->cls = (enum time_class)cls.st[i];
        bd->ms[s->cls] += s->end_ms - s->start_ms;
        if (i > 0 && cls.res[i] > bd->resolution_ms)
            bd->resolution_ms = cls.res[i];
    }
    if (cls.n <= 1 || base_res > bd->resolution_ms)
        bd->resolution_ms = cls.n <= 1 ? base_res : fmax(bd->resolution_ms, 0);
    tl_free(&cls);
    return 0;
}

static void top_thread(struct window *w, const struct host_sample *h, long n, double t0, double d,
                       char (*names)[40], int nnames)
{
    w->top_thread_cores = NAN;
    w->top_thread[0] = '\0';
    double sum = 0, weight = 0;
    double best_w = 0;
    int best = -1;
    double *by_name = calloc((size_t)(nnames > 0 ? nnames : 1), sizeof *by_name);
    for (long j = 1; j < n; j++) {
        double a = fmax(((double)h[j - 1].t - t0) / 1e6, 0), b = fmin(((double)h[j].t - t0) / 1e6, d);
        if (b <= a || isnan(h[j].top_thread_cores))
            continue;
        /* only the time no GPU computed: a busy thread behind a busy GPU is no bottleneck */
        double idle_ms = 0;
        for (int s = 0; s < w->bd.nseg; s++) {
            const struct segment *sg = &w->bd.seg[s];
            if (sg->cls != CLASS_COMPUTE)
                idle_ms += fmax(0, fmin(b, sg->end_ms) - fmax(a, sg->start_ms));
        }
        if (idle_ms <= 0)
            continue;
        sum += h[j].top_thread_cores * idle_ms;
        weight += idle_ms;
        int k = h[j].top_thread;
        if (by_name && k >= 0 && k < nnames) {
            by_name[k] += idle_ms;
            if (by_name[k] > best_w) {
                best_w = by_name[k];
                best = k;
            }
        }
    }
    free(by_name);
    if (weight > 0)
        w->top_thread_cores = sum / weight;
    if (best >= 0)
        snprintf(w->top_thread, sizeof w->top_thread, "%s", names[best]);
}

void breakdown_window(const struct analysis_options *o, struct window *w,
                      const struct sensor_cadence *cad, char (*names)[40], int nnames)
{
    memset(&w->bd, 0, sizeof w->bd);
    w->top_thread_cores = NAN;
    w->top_thread[0] = '\0';
    const struct window_tape *wt = w->tape;
    if (!wt)
        return;
    double t0 = (double)w->t_start_ns, d = w->duration_s * 1e3;
    if (!(d > 0))
        return;
    struct timeline cpu = { 0 };
    struct timeline *gtl = calloc((size_t)(w->ngpu ? w->ngpu : 1), sizeof *gtl);
    double *base = calloc((size_t)(w->ngpu ? w->ngpu : 1), sizeof *base);
    int ok = gtl && base && cpu_timeline(o, wt->host, wt->nhost, t0, d, &cpu) == 0;
    double window_base = 0;
    int any = 0;
    for (int i = 0; ok && i < w->ngpu; i++) {
        struct window_gpu *g = &w->gpu[i];
        memset(&g->bd, 0, sizeof g->bd);
        int k = 0;
        while (k < wt->ngpu && wt->gpu_id[k] != g->gpu)
            k++;
        if (k == wt->ngpu || wt->ngpu_samples[k] == 0) {
            tl_close(&gtl[i], d);          /* no samples: never busy */
            continue;
        }
        if (gpu_timeline(o, g, wt->gpu[k], wt->ngpu_samples[k], wt->medium_every_tick[k],
                         wt->idle_bit_live[k], t0, d,
                         cad ? &cad[i] : NULL,
                         &gtl[i], &base[i]) != 0 || classify(&gtl[i], 1, &cpu, d, base[i], &g->bd) != 0) {
            ok = 0;
            break;
        }
        if (!isfinite(base[i])) {
            g->bd.valid = 0;               /* no signal at all */
            continue;
        }
        window_base = fmax(window_base, base[i]);
        any = 1;
    }
    if (ok && any)
        ok = classify(gtl, w->ngpu, &cpu, d, window_base, &w->bd) == 0;
    if (ok && any)
        top_thread(w, wt->host, wt->nhost, t0, d, names, nnames);
    if (!ok || !any)
        memset(&w->bd, 0, sizeof w->bd);
    for (int i = 0; gtl && i < w->ngpu; i++)
        tl_free(&gtl[i]);
    free(gtl);
    free(base);
    tl_free(&cpu);
}

/* Several hosts: each GPU's breakdown was made on its own host, against
 * that host's CPU. The window's is rebuilt from them: compute when any GPU
 * computes, else host-cpu when any GPU's host was busy, else waiting. */
void breakdown_merge_gpus(const struct analysis_options *o, struct window *w)
{
    double d = w->duration_s * 1e3, base = 0;
    int any = 0;
    struct timeline *gtl = calloc((size_t)(w->ngpu ? w->ngpu : 1), sizeof *gtl);
    struct timeline cpu = { 0 };
    for (int i = 0; gtl && i < w->ngpu; i++) {
        const struct breakdown *b = &w->gpu[i].bd;
        if (!b->valid)
            continue;
        any = 1;
        base = fmax(base, b->resolution_ms);
        for (int k = 0; k < b->nseg; k++)
            tl_push(&gtl[i], b->seg[k].start_ms, b->resolution_ms,
                    b->seg[k].cls == CLASS_COMPUTE ? ST_BUSY : b->seg[k].cls == CLASS_HOST_CPU ? ST_NONE : ST_IDLE);
        tl_close(&gtl[i], d);
    }
    /* the CPU side: busy where any GPU's own breakdown said host-cpu */
    if (gtl && any) {
        struct edge *x = NULL;
        long m = 0, cap = 0;
        for (int i = 0; i < w->ngpu; i++)
            for (int k = 1; k < gtl[i].n; k++) {
                if (m == cap) {
                    cap = cap ? cap * 2 : 64;
                    struct edge *nx = realloc(x, sizeof *x * (size_t)cap);
                    if (!nx)
                        break;
                    x = nx;
                }
                x[m++] = (struct edge){ gtl[i].x[k], gtl[i].res[k], 0 };
            }
        if (x)
            qsort(x, (size_t)m, sizeof *x, cmp_edge);
        struct edge_walk ew = { x, m, 0, 0, 0 };
        double next, next_res;
        while (edge_next(&ew, d, &next, &next_res)) {
            double mid = (ew.prev + next) / 2;
            int host = 0;
            for (int i = 0; i < w->ngpu; i++)
                host |= w->gpu[i].bd.valid && tl_at(&gtl[i], mid) == ST_NONE;
            if (tl_push(&cpu, ew.prev, ew.prev_res, host ? ST_BUSY : ST_IDLE) != 0)
                break;
            ew.prev = next;
            ew.prev_res = next_res;
        }
        tl_close(&cpu, d);
        free(x);
        /* host-cpu marked ST_NONE above is "not busy" for the GPU side */
        struct breakdown bd;
        if (classify(gtl, w->ngpu, &cpu, d, base, &bd) == 0)
            w->bd = bd;
    }
    for (int i = 0; gtl && i < w->ngpu; i++)
        tl_free(&gtl[i]);
    free(gtl);
    tl_free(&cpu);
    (void)o;
}

enum gpu_pattern breakdown_pattern(const struct analysis_options *o, const struct window *w,
                                   int *straggler)
{
    *straggler = -1;
    if (w->ngpu < 2 || !w->bd.valid)
        return PATTERN_NONE;
    double d = w->duration_s * 1e3, first = -1, second = -1;
    int all_compute = 1, all_idle = 1, top = -1;
    for (int i = 0; i < w->ngpu; i++) {
        const struct breakdown *b = &w->gpu[i].bd;
        if (!b->valid)
            return PATTERN_NONE;
        double c = b->ms[CLASS_COMPUTE];
        all_compute &= c >= o->class_frac * d;
        all_idle &= c <= (1 - o->class_frac) * d;
        if (c > first) {
            second = first;
            first = c;
            top = i;
        } else if (c > second) {
            second = c;
        }
    }
    if (all_compute)
        return PATTERN_ALL_COMPUTE;
    if (all_idle)
        return PATTERN_ALL_WAITING;
    /* One GPU computes on after (or while) all the others stopped. */
    if (first - second >= fmax(2 * w->bd.resolution_ms, 0.2 * d)) {
        *straggler = top;
        return PATTERN_STRAGGLER;
    }
    return PATTERN_UNEVEN;
}

const char *breakdown_segments_text(const struct breakdown *bd, int max_shown, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < bd->nseg && len < cap; i++) {
        if (i == max_shown) {
            len += (size_t)snprintf(buf + len, cap - len, ", ... %d more", bd->nseg - i);
            break;
        }
        const struct segment *s = &bd->seg[i];
        len += (size_t)snprintf(buf + len, cap - len, "%s%s %.0f-%.0f ms", i ? ", then " : "",
                                time_class_name(s->cls), s->start_ms, s->end_ms);
    }
    return buf;
}

const char *time_class_name(enum time_class c)
{
    static const char *const names[CLASS_COUNT] = { "compute", "host-cpu", "waiting" };
    return (unsigned)c < CLASS_COUNT ? names[c] : "?";
}
