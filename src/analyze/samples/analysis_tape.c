/*
 * analysis_tape.c — feeding the breakdown's tapes (tape.h) during the
 * streaming pass, noting the range of a window's samples when its edges
 * are resolved, and decoding them for its breakdown, so that breakdown.c
 * can decide instant by instant once the GPU levels are known at the end
 * of the trace.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "array_grow.h"
#include "gpu_sampler.h"

/* The start of the oldest window still being gathered, INT64_MAX if none. */
static int64_t oldest_open_ns(const struct ctx *c)
{
    int64_t t = INT64_MAX;
    for (int kind = 0; kind < 2; kind++) {
        long n = kind == 0 ? c->a->nwindows : c->nidle;
        for (long i = 0; c->act_of[kind] && i < n; i++) {
            const struct active *act = c->act_of[kind][i];
            if (act && act->have[0] && act->t[0] < t)
                t = act->t[0];
        }
    }
    return t;
}

static int push(struct ctx *c, struct tape *t, const void *e)
{
    int64_t keep = t->n == t->cap ? oldest_open_ns(c) : INT64_MAX;
    return tape_push(t, e, keep, c->opt->ring_samples);
}

static short thread_name_index(struct ctx *c, const char *name)
{
    if (!name || !*name)
        return -1;
    for (int i = 0; i < c->nthread_names; i++)
        if (strncmp(c->thread_names[i], name, sizeof c->thread_names[i] - 1) == 0)
            return (short)i;
    if (!c->thread_names)
        c->thread_names = calloc(THREAD_NAMES_MAX, sizeof *c->thread_names);
    if (!c->thread_names || c->nthread_names == THREAD_NAMES_MAX)
        return -1;
    snprintf(c->thread_names[c->nthread_names], sizeof c->thread_names[0], "%s", name);
    return (short)c->nthread_names++;
}

/* Whether this row's utilization, SM clock and reasons were read at its
 * tick: the recorder's own rule (gpu_sampler.c: the first tick, then every
 * round(GPU_MEDIUM_MS / interval) ticks). The interval is the time per
 * tick since the first row. Without a tick column every row is fresh. */
/* Ticks over which the sample interval is measured before the medium
 * period is settled (until then every row counts as read). */
#define MEDIUM_BASELINE_TICKS 16

static int medium_fresh(struct gpu_stream *g, const struct trace_row *r, const struct gpu_sample *s)
{
    double tk = r->v[COL_TICK];
    int fresh = 1;
    if (!isnan(tk)) {
        int64_t tick = (int64_t)tk;
        if (g->first_tick < 0) {
            g->first_tick = tick;
            g->first_t = r->t_mono_ns;
        } else if (!g->medium_every && tick - g->first_tick >= MEDIUM_BASELINE_TICKS) {
            /* the interval over many ticks: a dithered tick (record --dither)
             * lasts anywhere from 0 to 2 intervals, so the first one alone
             * misjudged the period (every row then looked read) */
            double interval_ms = (double)(r->t_mono_ns - g->first_t) / 1e6 / (double)(tick - g->first_tick);
            int ms = (int)lround(interval_ms);
            g->medium_every = ms < 1 ? 1 : (GPU_MEDIUM_MS + ms / 2) / ms;
            if (g->medium_every < 1)
                g->medium_every = 1;
            /* the recorder's reads fall on first_tick + k * every */
            g->medium_last_tick = g->first_tick + (tick - 1 - g->first_tick) / g->medium_every * g->medium_every;
        }
        int64_t every = g->medium_every ? g->medium_every : 1;
        fresh = g->medium_last_tick < 0 || tick - g->medium_last_tick >= every || tick < g->medium_last_tick;
        if (fresh)
            g->medium_last_tick = tick;
        else {
            /* a value that changes on a row that should repeat it is read every row */
            if (s->util_pct != g->last_util && !(isnan(s->util_pct) && isnan(g->last_util)))
                g->medium_every_tick |= EVERY_TICK_UTIL;
            if (s->idle_bit != g->last_idle_bit)
                g->medium_every_tick |= EVERY_TICK_REASONS;
            if (s->sm_clock_mhz != g->last_clock && !(isnan(s->sm_clock_mhz) && isnan(g->last_clock)))
                g->medium_every_tick |= EVERY_TICK_CLOCK;
        }
    }
    g->last_util = s->util_pct;
    g->last_clock = s->sm_clock_mhz;
    g->last_idle_bit = s->idle_bit;
    return (unsigned char)fresh;
}

int tapes_push(struct ctx *c, struct gpu_stream *g, const struct trace_row *r)
{
    if (g) {
        struct gpu_sample s;
        memset(&s, 0, sizeof s);
        s.t = r->t_mono_ns;
        s.power_instant_w = (float)r->v[COL_GPU_POWER_INSTANT_W];
        s.power_average_w = (float)r->v[COL_GPU_POWER_W];
        s.util_pct = (float)r->v[COL_GPU_UTIL_PCT];
        s.sm_clock_mhz = (float)r->v[COL_GPU_SM_CLOCK_MHZ];
        /* GPM (Hopper and newer): on the rows that end a span only. */
        s.sm_active_pct = (float)r->v[COL_GPU_SM_ACTIVE_PCT];
        s.sm_occupancy_pct = (float)r->v[COL_GPU_SM_OCCUPANCY_PCT];
        s.tensor_pct = (float)r->v[COL_GPU_TENSOR_ACTIVE_PCT];
        s.dram_bw_pct = (float)r->v[COL_GPU_DRAM_BW_PCT];
        s.gpm_span_ms = (float)(r->v[COL_GPU_GPM_SPAN_NS] / 1e6);
        if (!(s.gpm_span_ms > 0))
            s.gpm_span_ms = NAN;
        else
            c->a->gpm_seen = 1;
        s.pcie_bytes = g->pcie_now;
        s.energy_mj = r->v[COL_GPU_ENERGY_MJ];
        s.idle_bit = isnan(r->v[COL_GPU_CLOCK_EVENT_REASONS]) ? -1 : (signed char)(r->clock_event_reasons & 1);
        s.medium_fresh = medium_fresh(g, r, &s);
        if (s.idle_bit >= 0)
            g->idle_bit_seen |= 1u << s.idle_bit;
        if (push(c, &g->tape, &s) != 0)
            return -1;
    }
    /* One host sample per tick: the per-tick cells repeat on every GPU's row. */
    double tree = r->v[COL_PROC_TREE_CPU_NS], proc = r->v[COL_PROC_CPU_NS];
    double cpu = isnan(tree) ? proc : tree;
    if (isnan(cpu) && isnan(r->v[COL_HOST_CPU_BUSY_PCT]))
        return 0;
    if (c->host_tape.n > 0 && r->t_mono_ns <= tape_last_time(&c->host_tape))
        return 0;
    struct host_sample h;
    memset(&h, 0, sizeof h);
    h.t = r->t_mono_ns;
    h.proc_cpu_s = cpu / 1e9;
    h.runq_s = r->v[COL_PROC_TREE_RUNQ_NS] / 1e9;
    h.host_cpu_pct = (float)r->v[COL_HOST_CPU_BUSY_PCT];
    h.top_thread_cores = (float)r->v[COL_PROC_TOP_THREAD_CORES];
    h.top_thread = thread_name_index(c, r->proc_top_thread);
    return push(c, &c->host_tape, &h);
}

int capture_window_tape(struct ctx *c, struct window *w, int64_t t0, int64_t t1)
{
    int ngpu = c->ngpu < TAPE_MAX_GPUS ? c->ngpu : TAPE_MAX_GPUS;
    struct window_samples *ws = calloc(1, sizeof *ws + (size_t)ngpu * sizeof ws->gpu[0]);
    if (!ws)
        return -1;
    w->samples = ws;
    for (int s = 0; s < ngpu; s++) {
        struct window_sample_range *g = &ws->gpu[s];
        /* a margin around the window: lagging sensors describe the window's
         * first instants after its start, and the energy counter's step
         * holding an edge begins up to a step before it (breakdown_gpu.c) */
        tape_slice(&c->gpu[s].tape, t0 - TAPE_MARGIN_NS, t1 + TAPE_MARGIN_NS, &g->first, &g->n);
        if (g->n > 0)
            store_pin(&c->gpu[s].tape.store, g->first, g->n);
        g->gpu_id = c->gpu[s].id;
        g->medium_every_tick = c->gpu[s].medium_every_tick;
        ws->ngpu = s + 1;
    }
    tape_slice(&c->host_tape, t0, t1, &ws->host_first, &ws->nhost);
    if (ws->nhost > 0)
        store_pin(&c->host_tape.store, ws->host_first, ws->nhost);
    return 0;
}

/* Samples [first, first + n) of s (held), decoded in run r: the whole
 * blocks they lie in join the run where they meet or overlap it, else
 * start it afresh; what lies before them is dropped only when the run
 * needs the room (a long window's samples stay for the short ones inside
 * it, rather than being moved down for each). Returns sample first's
 * record, NULL when out of memory. */
static void *decoded_samples(const struct sample_store *s, struct decoded_run *r, long first, long n)
{
    long lo = first / STORE_BLOCK * STORE_BLOCK;
    long hi = (first + n + STORE_BLOCK - 1) / STORE_BLOCK * STORE_BLOCK;
    if (hi > s->end)
        hi = s->end;
    if (lo < r->from || lo > r->to)
        r->from = r->to = lo;
    if (hi > r->to) {
        if (hi - r->from > r->cap && lo > r->from) {
            memmove(r->buf, (char *)r->buf + (size_t)(lo - r->from) * s->rec, (size_t)(r->to - lo) * s->rec);
            r->from = lo;
        }
        if (array_grow(&r->buf, &r->cap, hi - r->from, s->rec) != 0) {
            r->from = r->to = 0;
            return NULL;
        }
        store_decode(s, r->to, hi - r->to, (char *)r->buf + (size_t)(r->to - r->from) * s->rec);
        r->to = hi;
    }
    return (char *)r->buf + (size_t)(first - r->from) * s->rec;
}

struct window_tape *window_tape_open(struct ctx *c, const struct window *w)
{
    const struct window_samples *ws = w->samples;
    struct tape_scratch *sc = &c->scratch;
    if (!ws)
        return NULL;
    struct window_tape *wt = &sc->wt;
    memset(wt, 0, sizeof *wt);
    wt->ngpu = ws->ngpu;
    for (int s = 0; s < ws->ngpu; s++) {
        const struct window_sample_range *g = &ws->gpu[s];
        wt->gpu_id[s] = g->gpu_id;
        wt->medium_every_tick[s] = g->medium_every_tick;
        if (g->n == 0)
            continue;
        wt->gpu[s] = decoded_samples(&c->gpu[s].tape.store, &sc->gpu[s], g->first, g->n);
        if (!wt->gpu[s])
            return NULL;
        wt->ngpu_samples[s] = g->n;
    }
    if (ws->nhost > 0) {
        wt->host = decoded_samples(&c->host_tape.store, &sc->host, ws->host_first, ws->nhost);
        if (!wt->host)
            return NULL;
        wt->nhost = ws->nhost;
    }
    return wt;
}

void window_samples_release(struct ctx *c, struct window *w)
{
    struct window_samples *ws = w->samples;
    if (!ws)
        return;
    for (int s = 0; s < ws->ngpu && s < c->ngpu; s++)
        if (ws->gpu[s].n > 0)
            store_unpin(&c->gpu[s].tape.store, ws->gpu[s].first, ws->gpu[s].n);
    if (ws->nhost > 0)
        store_unpin(&c->host_tape.store, ws->host_first, ws->nhost);
    free(ws);
    w->samples = NULL;
}
