/*
 * analysis_samples.c — a SAMPLE row into the analysis pass: the GPU's
 * stream (found or started), its integrator, energy estimator, PCIe
 * counters, process shares, cadence, fault and level trackers, the tapes
 * windows may still need, and the host integrator; then whatever window
 * edges the row settles are resolved (analysis_edges.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "diag.h"
#include "reading_instant.h"

static struct gpu_stream *gpu_stream(struct ctx *c, int id)
{
    for (int i = 0; i < c->ngpu; i++)
        if (c->gpu[i].id == id)
            return &c->gpu[i];
    if (c->ngpu == ANALYSIS_MAX_GPUS) {
        diag_error("%s: more than %d GPUs in one trace", c->path, ANALYSIS_MAX_GPUS);
        return NULL;
    }
    static const enum quantity_kind kinds[QG_N] = { Q_STEPPED, Q_TRAPEZOID, Q_TRAPEZOID, Q_TRAPEZOID,
                                                    Q_CUMULATIVE, Q_CUMULATIVE, Q_CUMULATIVE };
    struct gpu_stream *g = &c->gpu[c->ngpu];
    memset(g, 0, sizeof *g);
    g->id = id;
    g->power_limit_w = NAN;
    g->pcie_last_t = INT64_MIN;
    g->pcie_now = NAN;
    tape_init_gpu(&g->tape);
    g->medium_last_tick = -1;
    g->first_tick = -1;
    faults_init(&g->faults);
    g->cadence = malloc(sizeof *g->cadence);
    if (g->cadence)
        cadence_init(g->cadence);
    g->hold_power = calloc(1, sizeof *g->hold_power);
    g->hold_util = calloc(1, sizeof *g->hold_util);
    g->hist_instant = calloc(1, sizeof *g->hist_instant);
    g->hist_average = calloc(1, sizeof *g->hist_average);
    g->quiet_instant = calloc(1, sizeof *g->quiet_instant);
    g->quiet_average = calloc(1, sizeof *g->quiet_average);
    if (!g->hist_instant || !g->hist_average || !g->quiet_instant || !g->quiet_average || !g->cadence || !g->hold_power || !g->hold_util
        || est_init(&g->est, c->opt->ring_samples) != 0
        || integ_init(&g->ig, QG_N, kinds, c->opt->ring_samples) != 0) {
        diag_error("out of memory");
        return NULL;
    }
    c->ngpu++;
    /* Windows already open have no edge on this GPU yet: resolve them. */
    mark_all_pending(c);
    return g;
}

/* Keeps ctx's tick bookkeeping (see tick_now in analysis_internal.h). */
static void note_tick(struct ctx *c, const struct trace_row *r)
{
    double k = r->v[COL_TICK];
    if (isnan(k))
        return;
    if (k != c->tick_now) {
        c->prev_tick_last_ns = c->tick_now_last_ns;
        c->tick_now = k;
    }
    c->tick_now_last_ns = r->t_mono_ns;
}

/* The width the recorder wrote for this GPU's PCIe counters (0: unknown). */
static int pcie_bits_of(const struct analysis *a, int gpu)
{
    for (int i = 0; i < a->nidents; i++)
        if (a->idents[i].id == gpu)
            return a->idents[i].pcie_bits;
    return 0;
}

/* The PCIe counters of one row as continuous counts (pcie_counter.h), into
 * v[QG_PCIE_TX], v[QG_PCIE_RX] and the running reset count. */
static void pcie_add(struct ctx *c, struct gpu_stream *g, const struct trace_row *r, double *v)
{
    double raw[2] = { r->v[COL_GPU_PCIE_TX_BYTES], r->v[COL_GPU_PCIE_RX_BYTES] };
    v[QG_PCIE_TX] = v[QG_PCIE_RX] = v[QG_PCIE_RESETS] = NAN;
    g->pcie_now = NAN;
    if (isnan(raw[0]) && isnan(raw[1]))
        return;
    double dt = g->pcie_last_t == INT64_MIN ? 0 : (double)(r->t_mono_ns - g->pcie_last_t) / 1e9;
    int bits = pcie_bits_of(c->a, g->id);
    for (int d = 0; d < 2; d++) {
        int ev;
        v[QG_PCIE_TX + d] = pcie_counter_add(&g->pcie[d], raw[d], dt, bits, &ev);
        g->pcie_wraps += ev == 1;
        g->pcie_resets += ev == 2;
    }
    g->pcie_last_t = r->t_mono_ns;
    v[QG_PCIE_RESETS] = (double)g->pcie_resets;
    g->pcie_now = (isnan(v[QG_PCIE_TX]) ? 0 : v[QG_PCIE_TX]) + (isnan(v[QG_PCIE_RX]) ? 0 : v[QG_PCIE_RX]);
}

/* See analysis_internal.h. */
int analysis_on_sample(struct ctx *c, const struct trace_row *r)
{
    struct gpu_stream *gs = NULL;
    note_tick(c, r);
    if (r->t_mono_ns > c->latest_sample_ns)
        c->latest_sample_ns = r->t_mono_ns;
    if (r->gpu >= 0) {
        int known = c->ngpu;
        struct gpu_stream *g = gs = gpu_stream(c, r->gpu);
        if (!g)
            return EXIT_USAGE;
        if (c->ngpu > known && !isnan(r->v[COL_TICK]) && c->prev_tick_last_ns != INT64_MIN)
            g->ig.extrapolate_floor_ns = c->prev_tick_last_ns;
        double v[QG_N] = {
            r->v[COL_GPU_ENERGY_MJ] / 1000, r->v[COL_GPU_POWER_INSTANT_W],
            r->v[COL_GPU_POWER_W], r->v[COL_GPU_UTIL_PCT],
        };
        pcie_add(c, g, r, v);
        est_add(&g->est, energy_reading_ns(r), r->v[COL_GPU_ENERGY_MJ]);
        if (proc_share_add(&g->procs, r) != 0) {
            diag_error("out of memory");
            return EXIT_RUNTIME;
        }
        double sv[SENSOR_N] = { r->v[COL_GPU_ENERGY_MJ], v[QG_INSTANT], v[QG_AVERAGE], v[QG_UTIL] };
        cadence_add(g->cadence, r->t_mono_ns, sv);
        faults_add(&g->faults, r->t_mono_ns, sv, isnan(v[QG_INSTANT]) ? v[QG_AVERAGE] : v[QG_INSTANT],
                   g->power_limit_w);
        partial_hold_add(g->hold_power, r->t_mono_ns, v[QG_INSTANT]);
        partial_hold_add(g->hold_util, r->t_mono_ns, v[QG_UTIL]);
        power_hist_add(g->hist_instant, v[QG_INSTANT]);
        power_hist_add(g->hist_average, v[QG_AVERAGE]);
        if (isnan(v[QG_UTIL]) || v[QG_UTIL] <= VERDICT_QUIET_UTIL_PCT) {
            power_hist_add(g->quiet_instant, v[QG_INSTANT]);
            power_hist_add(g->quiet_average, v[QG_AVERAGE]);
        }
        if (!isnan(r->v[COL_GPU_POWER_LIMIT_W]))
            g->power_limit_w = r->v[COL_GPU_POWER_LIMIT_W];
        int64_t g0, g1;
        uint64_t reasons = isnan(r->v[COL_GPU_CLOCK_EVENT_REASONS]) ? 0 : r->clock_event_reasons;
        if (integ_add(&g->ig, r->t_mono_ns, v, reasons, &g0, &g1)
            && gap_push(&g->gaps, g->ig.count - g->ig.cap - 1, g1 - g0) != 0) {
            diag_error("out of memory");
            return EXIT_RUNTIME;
        }
    }
    if (tapes_push(c, gs, r) != 0) {
        diag_error("out of memory");
        return EXIT_RUNTIME;
    }
    if (r->proc_state == 'X' && r->t_mono_ns < c->proc_exit_ns)
        c->proc_exit_ns = r->t_mono_ns;
    double h[INTEG_MAX_Q];
    int any = 0;
    h[QH_CPU] = r->v[COL_HOST_CPU_BUSY_PCT];
    /* the traced process tree when the trace has it, else the process alone */
    h[QH_PROC] = (isnan(r->v[COL_PROC_TREE_CPU_NS]) ? r->v[COL_PROC_CPU_NS] : r->v[COL_PROC_TREE_CPU_NS]) / 1e9;
    h[QH_RAPL_RAW] = c->n_rapl ? NAN : r->v[COL_RAPL_ENERGY_UJ] / 1e6;
    for (int k = 0; k < c->n_rapl; k++)
        h[QH_RAPL0 + k] = r->rapl_cum_uj[k] / 1e6;
    for (int q = 0; q < c->host.nq; q++)
        any |= !isnan(h[q]);
    if (any && r->t_mono_ns > integ_latest_sample(&c->host)) {
        int64_t g0, g1;
        integ_add(&c->host, r->t_mono_ns, h, 0, &g0, &g1);
    }
    return resolve_pending(c, 0);
}
