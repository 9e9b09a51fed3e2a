/*
 * analysis_edges.c — window edges: from a MARK to cumulative values on
 * every stream, and from two edges to a window's numbers.
 *
 * An edge is resolved quantity by quantity as soon as the readings around
 * its time are in: at once when the mark arrives after later samples (the
 * integrators keep a ring of recent history), or when the next samples come
 * in. A quantity that never had a reading, or stops being recorded, gives
 * NAN rather than holding the edge open forever.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "pcie_window.h"
#include "diag.h"
#include "window_texts.h"

static int add_pending(struct ctx *c, struct active *act)
{
    if (act->pending)
        return 0;
    if (c->npend == c->cap_pend) {
        long ncap = c->cap_pend ? c->cap_pend * 2 : 16;
        struct active **n = realloc(c->pend, sizeof *n * (size_t)ncap);
        if (!n)
            return -1;
        c->pend = n;
        c->cap_pend = ncap;
    }
    c->pend[c->npend++] = act;
    act->pending = 1;
    return 0;
}

void mark_all_pending(struct ctx *c)
{
    for (int kind = 0; kind < 2; kind++)
        for (long i = 0; i < c->nids[kind]; i++)
            if (c->act_of[kind][i])
                add_pending(c, c->act_of[kind][i]);
}

/* A finished window's active record kept for the next window to open,
 * with its edges' point arrays: each window took five allocations and
 * frees of them (1.2 KB a GPU), 1.4 k instructions by callgrind and the
 * heap's walks over chunks long out of cache. Past ACTIVE_SPARE kept they
 * are freed. */
static void active_recycle(struct ctx *c, struct active *act)
{
    if (c->nspare_act == ACTIVE_SPARE) {
        active_free(act);
        return;
    }
    free(act->attrs);
    act->attrs = NULL;
    c->spare_act[c->nspare_act++] = act;
}

/* A zeroed active record, as calloc gives: a kept one's point arrays
 * zeroed too (points not resolved yet), as grow_points makes them. */
static struct active *active_new(struct ctx *c)
{
    if (c->nspare_act == 0)
        return calloc(1, sizeof(struct active));
    struct active *act = c->spare_act[--c->nspare_act];
    struct active kept = *act;
    memset(act, 0, sizeof *act);
    for (int which = 0; which < 2; which++) {
        act->gpu[which] = kept.gpu[which];
        act->ngpu_pts[which] = kept.ngpu_pts[which];
        act->host[which] = kept.host[which];
        if (kept.gpu[which])
            memset(kept.gpu[which], 0, sizeof *kept.gpu[which] * (size_t)kept.ngpu_pts[which]);
        if (kept.host[which])
            memset(kept.host[which], 0, sizeof *kept.host[which]);
    }
    return act;
}

struct active *find_active(struct ctx *c, int kind, long id)
{
    return c->act_of[kind][id];
}

struct window *window_of(struct ctx *c, int kind, long id)
{
    long at = c->win_of[kind][id];
    return at < 0 ? NULL : (struct window *)c->wins[kind].base + at;
}

/* A window id for the mark that opens it; its active record holds what the
 * window record will need (the record itself comes at finish_window). */
int open_window(struct ctx *c, int kind, const struct trace_row *r)
{
    if (c->nids[kind] == c->cap_act[kind]) {
        long ncap = c->cap_act[kind] ? c->cap_act[kind] * 2 : 64;
        struct active **na = realloc(c->act_of[kind], sizeof *na * (size_t)ncap);
        if (!na)
            return -1;
        c->act_of[kind] = na;
        long *nw = realloc(c->win_of[kind], sizeof *nw * (size_t)ncap);
        if (!nw)
            return -1;
        c->win_of[kind] = nw;
        c->cap_act[kind] = ncap;
    }
    long id = c->nids[kind]++;
    if (kind == 0)
        c->a->nwindows = c->nids[0];       /* analysis_tape.c walks the ids by it */
    else
        c->nidle = c->nids[1];
    c->win_of[kind][id] = -1;
    struct active *act = active_new(c);
    c->act_of[kind][id] = act;
    if (!act)
        return -1;
    act->kind = kind;
    act->id = id;
    act->recording = (int)c->a->recordings + 1;
    c->nactive++;
    /* a range's start: what NVTX attached to it */
    if (r->has_attrs && (r->attrs.category[0] || r->attrs.has_payload)) {
        act->attrs = calloc(1, sizeof *act->attrs);
        if (!act->attrs)
            return -1;
        memcpy(act->attrs->category, r->attrs.category, sizeof act->attrs->category);
        if (r->attrs.has_payload)
            memcpy(act->attrs->payload, r->attrs.payload, sizeof act->attrs->payload);
    }
    return set_edge(c, act, 0, r);
}

int set_edge(struct ctx *c, struct active *act, int which, const struct trace_row *r)
{
    act->have[which] = 1;
    act->gated = 0;
    act->t[which] = r->t_mono_ns;
    act->wall[which] = r->t_wall_ns;
    act->line[which] = r->line;
    if (which == 1)
        act->interrupted = r->has_attrs && r->attrs.interrupted[0];
    return add_pending(c, act);
}

long drop_open_over(struct ctx *c, long cap)
{
    long n = 0;
    while (pairing_open_count(&c->pair[0]) > cap) {
        long id = pairing_drop_oldest(&c->pair[0]);
        struct active *act = id >= 0 ? c->act_of[0][id] : NULL;
        if (!act)
            continue;
        c->act_of[0][id] = NULL;
        c->nactive--;
        n++;
        if (act->pending)
            act->dropped = 1;       /* resolve_pending frees it: no search of the list */
        else
            active_free(act);
    }
    return n;
}

static int too_old(struct ctx *c, const struct active *act, int which)
{
    /* the message is printed once; callers stop at the first error */
    diag_error("%s:%ld: column t_mono_ns: MARK at %lld ns is older than the %d samples kept per "
               "stream; it arrived too late after its own time", c->path, act->line[which],
               (long long)act->t[which], c->opt->ring_samples);
    return -1;
}

/* Resolves what it can of point p of integrator ig at time t. 1 when the
 * point is complete, 0 when it waits, -1 when t has left the ring.
 * trace_latest is the latest SAMPLE row of any stream: a stream that has
 * had no reading at all (the host on an original trace, whose host cells
 * are empty) gives up as a stale one does once the trace has moved
 * EDGE_STALE_NS past t, instead of holding every window pending to the end
 * of the trace (each row then walked them all: quadratic). Its value is
 * NAN either way: no reading ever, or the first one after t. */
static unsigned point_all(const struct integrator *ig, int with_count)
{
    return (ig->nq >= 31 ? ~0u : (1u << ig->nq) - 1) | (with_count ? COUNT_DONE : 0);
}

static int resolve_point(const struct integrator *ig, struct point *p, int64_t t,
                         int inclusive, int with_count, int eof, int64_t trace_latest)
{
    int64_t latest = integ_latest_sample(ig);
    if (latest == INT64_MIN && trace_latest != INT64_MIN && trace_latest - t > EDGE_STALE_NS)
        latest = trace_latest;
    for (int q = 0; q < ig->nq; q++) {
        unsigned bit = 1u << q;
        if (p->done & bit)
            continue;
        double v;
        switch (integ_cum_at(ig, q, t, &v)) {
        case INTEG_OK:
            p->cum[q] = v;
            p->done |= bit;
            break;
        case INTEG_NO_DATA:
            p->cum[q] = NAN;
            p->done |= bit;
            p->nodata |= bit;
            break;
        case INTEG_TOO_OLD:
            return -1;
        case INTEG_PENDING:
            if (eof && integ_cum_after_end(ig, q, t, &v) == INTEG_OK) {
                p->cum[q] = v;
                p->done |= bit;
                break;
            }
            if (eof || (integ_last_time(ig, q) == INT64_MIN && latest >= t)
                || (latest != INT64_MIN && latest - t > EDGE_STALE_NS)) {
                p->cum[q] = NAN;
                p->done |= bit;
                if (eof || integ_last_time(ig, q) != INT64_MIN)
                    p->late |= bit;
            }
            break;
        }
    }
    if (with_count && !(p->done & COUNT_DONE)) {
        switch (integ_count_before(ig, t, inclusive, &p->n, p->reasons)) {
        case INTEG_OK:
            p->done |= COUNT_DONE;
            break;
        case INTEG_TOO_OLD:
            return -1;
        default:
            if (eof) {
                p->n = ig->count;
                memcpy(p->reasons, ig->cur_reasons, sizeof p->reasons);
                p->done |= COUNT_DONE;
            }
        }
    }
    unsigned all = point_all(ig, with_count);
    return (p->done & all) == all;
}

/* The energy estimator's cumulative at the edge (energy_estimator.h): 1
 * once known or given up on (est_state 2: the window falls back to the
 * interpolated counter), 0 while it waits for more counter updates. */
static int resolve_est(const struct energy_estimator *e, struct point *p, int64_t t, int eof)
{
    if (p->est_state)
        return 1;
    if ((p->done & (1u << QG_COUNTER)) && isnan(p->cum[QG_COUNTER])) {
        /* no counter at the edge: finish_window would not use an estimate,
         * and one waited for on a trace without counter readings waits to
         * the end of the trace (every row walking every window) */
        p->est_state = 2;
        return 1;
    }
    /* still pending until its wake (est_pending_wake): a pending edge is
     * asked on every row, and the answer was worked out on each; with a
     * counter updating every 100 ms an edge waits ~100 rows */
    if (!eof && p->est_waiting && est_still_pending(e, &p->est_wake))
        return 0;
    switch (est_cum_at(e, t, eof, &p->est)) {
    case INTEG_OK: p->est_state = 1; return 1;
    case INTEG_PENDING:
        p->est_waiting = est_pending_wake(e, t, &p->est_wake);
        return 0;
    default:
        p->est_state = 2;
        /* the counter moved, but not often enough after t before the end */
        p->near_end = eof && e->changes >= EST_EDGE_UPDATES && est_changes_after(e, t) < EST_EDGE_UPDATES;
        return 1;
    }
}

void active_spares_free(struct ctx *c)
{
    while (c->nspare_act)
        active_free(c->spare_act[--c->nspare_act]);
}

void active_free(struct active *act)
{
    if (!act)
        return;
    free(act->gpu[0]);
    free(act->gpu[1]);
    free(act->host[0]);
    free(act->host[1]);
    free(act->attrs);
    free(act);
}

/* An edge's points for every GPU stream so far (new ones zeroed: not
 * resolved yet). 0, or -1 when out of memory. */
static int grow_points(struct ctx *c, struct active *act, int which)
{
    if (!act->host[which] && !(act->host[which] = calloc(1, sizeof *act->host[which])))
        return -1;
    if (act->ngpu_pts[which] >= c->ngpu)
        return 0;
    struct point *n = realloc(act->gpu[which], sizeof *n * (size_t)c->ngpu);
    if (!n)
        return -1;
    memset(n + act->ngpu_pts[which], 0, sizeof *n * (size_t)(c->ngpu - act->ngpu_pts[which]));
    act->gpu[which] = n;
    act->ngpu_pts[which] = c->ngpu;
    return 0;
}

/* Resolves both edges; done[which] tells whether each is complete.
 * -1 when an edge has left the ring (after its message), -2 when out of
 * memory. */
static int resolve_active(struct ctx *c, struct active *act, int eof, int done[2])
{
    int on_wakes = 1;              /* what is not done waits on an estimate's wake */
    for (int which = 0; which < 2; which++) {
        done[which] = act->have[which];
        if (!act->have[which])
            continue;
        /* complete, and no GPU stream has come since: its points stay as
         * they are (a window is asked on every row while its other edge
         * waits) */
        if (act->complete_with[which] == c->ngpu + 1)
            continue;
        if (grow_points(c, act, which) != 0)
            return -2;
        /* a point already resolved is passed over here: a window is asked
         * on every row while its other edge or its estimate waits */
        for (int s = 0; s < c->ngpu; s++) {
            struct point *p = &act->gpu[which][s];
            int rc = (p->done & point_all(&c->gpu[s].ig, 1)) == point_all(&c->gpu[s].ig, 1) ? 1
                     : resolve_point(&c->gpu[s].ig, p, act->t[which], which, 1, eof, c->latest_sample_ns);
            if (rc < 0)
                return too_old(c, act, which);
            int est = resolve_est(&c->gpu[s].est, p, act->t[which], eof);
            done[which] &= rc & est;
            on_wakes &= rc && (est || p->est_waiting);
        }
        int rc = (act->host[which]->done & point_all(&c->host, 0)) == point_all(&c->host, 0) ? 1
                 : resolve_point(&c->host, act->host[which], act->t[which], which, 0, eof,
                                 c->latest_sample_ns);
        if (rc < 0)
            return too_old(c, act, which);
        done[which] &= rc;
        on_wakes &= rc;
        if (done[which])
            act->complete_with[which] = c->ngpu + 1;
    }
    act->gated = !eof && on_wakes;
    act->gate_ngpu = c->ngpu;
    return 0;
}

/* Whether an active found to wait on estimates' wakes alone (act->gated)
 * still does: every point's integrals are known, so resolve_active would
 * ask each pending estimate and hear "not before its wake" (resolve_est).
 * With a counter updating every 100 ms an edge waits ~100 rows; asking
 * this instead of walking its points saves ~7 % of the instructions the
 * windows add (callgrind, 1,000 windows). */
static int waits_on_wakes(const struct ctx *c, const struct active *act)
{
    if (act->gate_ngpu != c->ngpu)
        return 0;
    for (int which = 0; which < 2; which++) {
        if (!act->have[which] || act->complete_with[which] == c->ngpu + 1)
            continue;
        for (int s = 0; s < c->ngpu; s++) {
            const struct point *p = &act->gpu[which][s];
            if (p->est_state == 0 && !(p->est_waiting && est_still_pending(&c->gpu[s].est, &p->est_wake)))
                return 0;
        }
    }
    return 1;
}

/* Whether every edge of act still to resolve lies after the latest
 * sample of any stream: a mark is read before the samples after it, and
 * then nothing about its edge can be known yet (each point needs a reading
 * after t, a stream is stale only some time after t, and an estimate needs
 * changes after t); walking it found nothing, 2 of the 8 times a window was
 * walked. Its estimates' wakes are worked out on the walk that finds its
 * points, the same as they would have been here. */
static int edges_ahead(const struct ctx *c, const struct active *act)
{
    int any = 0;
    for (int which = 0; which < 2; which++) {
        if (!act->have[which] || act->complete_with[which] == c->ngpu + 1)
            continue;
        if (act->t[which] <= c->latest_sample_ns)
            return 0;
        any = 1;
    }
    return any;
}

static double diff(const struct point *ps, const struct point *pe, int q)
{
    return pe->cum[q] - ps->cum[q];
}

/* Both edges known: the window's numbers (levels and verdict come later). */
static int finish_window(struct ctx *c, struct active *act)
{
    long at = c->nwins[act->kind];
    if (map_array_reserve(&c->wins[act->kind], sizeof(struct window) * (size_t)(at + 1)) != 0)
        return -1;
    struct window *w = (struct window *)c->wins[act->kind].base + at;
    memset(w, 0, sizeof *w);     /* live windows reuse the places of those reported */
    c->nwins[act->kind]++;
    c->win_of[act->kind][act->id] = at;
    window_texts_init(w);
    w->index = act->id + 1;
    w->recording = act->recording;
    w->start_label = act->label ? act->label : c->pair[act->kind].start_label;
    w->end_label = act->label ? act->label : c->pair[act->kind].end_label;
    w->t_start_ns = act->t[0];
    w->wall_start_ns = act->wall[0];
    w->start_line = act->line[0];
    w->t_end_ns = act->t[1];
    w->wall_end_ns = act->wall[1];
    w->end_line = act->line[1];
    if (act->interrupted)
        w->flags |= WINDOW_INTERRUPTED;
    if (act->attrs) {
        memcpy(w->category, act->attrs->category, sizeof w->category);
        memcpy(w->payload, act->attrs->payload, sizeof w->payload);
    }
    double dur = (double)(act->t[1] - act->t[0]) / 1e9;
    w->duration_s = dur;
    w->ngpu = c->ngpu;
    w->gpu = calloc((size_t)(c->ngpu ? c->ngpu : 1), sizeof *w->gpu);
    if (!w->gpu)
        return -1;
    for (int s = 0; s < c->ngpu; s++) {
        struct gpu_stream *gs = &c->gpu[s];
        struct window_gpu *g = &w->gpu[s];
        const struct point *ps = &act->gpu[0][s], *pe = &act->gpu[1][s];
        g->gpu = gs->id;
        g->energy_counter_j = diff(ps, pe, QG_COUNTER);
        g->energy_instant_j = diff(ps, pe, QG_INSTANT);
        g->energy_average_j = diff(ps, pe, QG_AVERAGE);
        g->util_pct = diff(ps, pe, QG_UTIL) / dur;
        g->samples = pe->n - ps->n;
        for (int b = 0; b < ANALYSIS_REASON_BITS; b++)
            g->reason_counts[b] = pe->reasons[b] - ps->reasons[b];
        g->max_gap_s = fmax(gap_max_since(&gs->gaps, ps->n - 1),
                            integ_max_gap_s(&gs->ig, act->t[0], act->t[1]));
        g->power_limit_w = gs->power_limit_w;
        g->max_sm_clock_mhz = g->slow_clock_ms = g->slow_clock_res_ms = g->slow_clock_from_ms = NAN;
        pcie_window_gpu(c->a, gs, g, ps, pe);
        g->counter_step_s = NAN;
        static const int order[3] = { QG_COUNTER, QG_INSTANT, QG_AVERAGE };
        static const enum energy_source src[3] = { SOURCE_COUNTER, SOURCE_INSTANT, SOURCE_AVERAGE };
        g->source = SOURCE_NONE;
        g->energy_j = NAN;
        g->energy_estimate_j = g->estimate_unc_j = g->knot_unc_s = NAN;
        if (ps->est_state == 1 && pe->est_state == 1 && !isnan(g->energy_counter_j)) {
            g->energy_estimate_j = pe->est.cum_j - ps->est.cum_j;
            g->estimate_unc_j = pe->est.unc_j + ps->est.unc_j;
            g->knot_unc_s = fmax(pe->est.knot_unc_s, ps->est.knot_unc_s);
            g->source = SOURCE_ESTIMATE;
            g->energy_j = g->energy_estimate_j;
        }
        unsigned nodata = 0, late = 0;
        for (int i = 0; i < 3; i++) {
            nodata |= ps->nodata & (1u << order[i]);
            late |= pe->late & (1u << order[i]);
            double e = diff(ps, pe, order[i]);
            if (!isnan(e) && g->source == SOURCE_NONE) {
                g->source = src[i];
                g->energy_j = e;
            }
        }
        g->mean_power_w = g->energy_j / dur;
        if ((ps->near_end || pe->near_end) && g->source == SOURCE_COUNTER)
            g->flags |= WINDOW_NEAR_END;
        if (g->source == SOURCE_NONE)
            g->flags |= nodata ? WINDOW_BEFORE_TRACE : late ? WINDOW_INCOMPLETE : WINDOW_NO_POWER;
        g->joined_late = nodata && act->t[0] < gs->ig.extrapolate_floor_ns;
        if (g->samples < 2)
            g->flags |= WINDOW_FEW_SAMPLES;
        w->flags |= g->flags;
    }
    if (c->ngpu == 0)
        w->flags |= WINDOW_NO_POWER;
    if (act->kind == 0 && capture_window_tape(c, w, act->t[0], act->t[1]) != 0)
        return -1;
    const struct point *hs = act->host[0], *he = act->host[1];
    w->host_cpu_pct = diff(hs, he, QH_CPU) / dur;
    w->proc_cores = diff(hs, he, QH_PROC) / dur;
    for (int k = 0; k < TRACE_RAPL_MAX; k++)
        w->rapl_j[k] = NAN;
    if (c->n_rapl)
        for (int k = 0; k < c->n_rapl; k++)
            w->rapl_j[k] = diff(hs, he, QH_RAPL0 + k);
    else
        w->rapl_j[0] = diff(hs, he, QH_RAPL_RAW);
    return 0;
}

/* On an early return: the entries not walked yet stay on the list (free_ctx
 * frees the dropped ones there), after the kept ones. */
static int pend_stop(struct ctx *c, long kept, long from, int rc)
{
    for (long i = from; i < c->npend; i++)
        c->pend[kept++] = c->pend[i];
    c->npend = kept;
    return rc;
}

int resolve_pending(struct ctx *c, int eof)
{
    long kept = 0;
    for (long i = 0; i < c->npend; i++) {
        struct active *act = c->pend[i];
        if (act->dropped) {
            active_free(act);
            continue;
        }
        if (!eof && ((act->gated && waits_on_wakes(c, act)) || edges_ahead(c, act))) {
            c->pend[kept++] = act;
            continue;
        }
        int done[2];
        int rc = resolve_active(c, act, eof, done);
        if (rc == -2)
            diag_error("out of memory");
        if (rc != 0)
            return pend_stop(c, kept, i, rc == -2 ? EXIT_RUNTIME : EXIT_USAGE);
        if (done[0] && done[1]) {
            if (finish_window(c, act) != 0) {
                diag_error("out of memory");
                return pend_stop(c, kept, i, EXIT_RUNTIME);
            }
            long id = act->id;
            int kind = act->kind;
            c->act_of[kind][id] = NULL;
            c->nactive--;
            active_recycle(c, act);
            if (kind == 0 && c->window_done) {
                int rc = c->window_done(c, id);
                if (rc != EXIT_OK)
                    return pend_stop(c, kept, i + 1, rc);
            }
            continue;
        }
        if (done[0] && !act->have[1]) {
            act->pending = 0;   /* waits for its end mark, off the list */
            continue;
        }
        c->pend[kept++] = act;
    }
    c->npend = kept;
    return EXIT_OK;
}

/* The evicted-gap stack: gaps that left a GPU's ring, kept as a stack of
 * decreasing size, so the largest gap since any sample index is the first
 * entry at or after that index. Equal gaps (to 0.1 ms) collapse. */
int gap_push(struct gap_stack *s, long idx, int64_t gap)
{
    int64_t q = gap / 100000;
    while (s->n > 0 && s->gap[s->n - 1] / 100000 <= q)
        s->n--;
    if (s->n == s->cap) {
        long ncap = s->cap ? s->cap * 2 : 64;
        long *ni = realloc(s->idx, sizeof *ni * (size_t)ncap);
        if (!ni)
            return -1;
        s->idx = ni;
        int64_t *ng = realloc(s->gap, sizeof *ng * (size_t)ncap);
        if (!ng)
            return -1;
        s->gap = ng;
        s->cap = ncap;
    }
    s->idx[s->n] = idx;
    s->gap[s->n++] = gap;
    return 0;
}

double gap_max_since(const struct gap_stack *s, long idx)
{
    long lo = 0, hi = s->n;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (s->idx[mid] >= idx)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo < s->n ? (double)s->gap[lo] / 1e9 : 0;
}
