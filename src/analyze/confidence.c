/*
 * confidence.c — see confidence.h.
 *
 * Why these rules: every answer flinch gives rests on where the breakdown
 * put the edges between compute, host-cpu and waiting, and each edge is
 * known to +-E ms (the sensors' cadence, breakdown.h). A part of P ms is
 * then known to about E/P, and the whole window's split to about E/D. "89%
 * compute, then 11% waiting, edges +-145 ms" on a 500 ms window states two
 * percentages that the edges alone could move by a third: that is low
 * confidence, whatever the verdict. So:
 *
 *   high    E <= 5 % of the window and of every part, and nothing below;
 *   medium  E <= 20 % of them, or one of the conditions below applies;
 *   low     E > 20 % of the window or of a part, or no breakdown at all
 *           (the verdict then rests on the window's mean power alone).
 *
 * The conditions that cap a window at medium are those where a number the
 * verdict or the energy uses came from a second-best source: a sensor fault
 * (and the fallback it forced), power from the 1 s average, an edge too near
 * the end of the trace for the counter's updates (near-end), GPM present in
 * the trace but too coarse for a window with compute time (unless that time
 * came from traced kernels, which need no such check), a GPU not yet recorded for part
 * of it, no power levels (utilization alone decides), or host-cpu called on
 * the whole host's load because the job's own CPU was not traced. An
 * inconclusive window has no answer to grade: CONFIDENCE_NONE, and its
 * reason is the verdict's.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "confidence.h"

struct grade {
    enum confidence level;
    size_t len;
    char *buf;
    size_t cap;
};

/* Lowers g to at least level and appends why ("; " between reasons). */
static void lower(struct grade *g, enum confidence level, const char *why)
{
    if (level > g->level)
        g->level = level;
    if (g->len < g->cap)
        g->len += (size_t)snprintf(g->buf + g->len, g->cap - g->len, "%s%s", g->len ? "; " : "", why);
}

static enum confidence level_of(double frac)
{
    return frac <= CONFIDENCE_HIGH_FRAC ? CONFIDENCE_HIGH
         : frac <= CONFIDENCE_MEDIUM_FRAC ? CONFIDENCE_MEDIUM : CONFIDENCE_LOW;
}

/* The edges against the window and its shortest part: the part they move
 * most, in percent of it. */
static void grade_edges(const struct window *w, struct grade *g)
{
    const struct breakdown *bd = &w->bd;
    double dur_ms = w->duration_s * 1e3, e = bd->resolution_ms;
    double shortest = dur_ms;
    int part = -1;
    for (int k = 0; k < CLASS_COUNT; k++)
        if (k != CLASS_NOT_RECORDED && bd->ms[k] > 0 && bd->ms[k] < dur_ms && bd->ms[k] < shortest) {
            shortest = bd->ms[k];
            part = k;
        }
    if (!(e >= 0) || !(shortest > 0))
        return;
    double frac = e / shortest;
    enum confidence level = level_of(frac);
    if (level == CONFIDENCE_HIGH)
        return;
    char why[160];
    if (part < 0)
        snprintf(why, sizeof why, "edges +-%.0f ms are %.0f%% of the %.0f ms window", e, 100 * frac, dur_ms);
    else
        snprintf(why, sizeof why, "edges +-%.0f ms are %.0f%% of the %.0f ms %s part", e, 100 * frac,
                 shortest, time_class_name((enum time_class)part));
    lower(g, level, why);
}

/* The fallbacks, faults and flags: each caps the window at medium. */
static void grade_sources(const struct window *w, struct grade *g)
{
    static const struct { unsigned bit; const char *name; } faults[] = {
        { WINDOW_COUNTER_STUCK, "counter-stuck" }, { WINDOW_COUNTER_BACKWARDS, "counter-backwards" },
        { WINDOW_COUNTER_JUMP, "counter-jump" }, { WINDOW_POWER_FROZEN, "power-frozen" },
        { WINDOW_SENSOR_LOST, "sensor-lost" },
    };
    char why[160];
    int average = 0, coarse = 0, levels = 0;
    for (int i = 0; i < w->ngpu; i++) {
        const struct window_gpu *gp = &w->gpu[i];
        for (size_t k = 0; k < sizeof faults / sizeof faults[0]; k++)
            if (gp->fault == faults[k].bit) {
                if (gp->fell_from != SOURCE_NONE)
                    snprintf(why, sizeof why, "sensor fault %s on gpu %d: energy from %s", faults[k].name,
                             gp->gpu, energy_source_name(gp->source));
                else
                    snprintf(why, sizeof why, "sensor fault %s on gpu %d", faults[k].name, gp->gpu);
                lower(g, CONFIDENCE_MEDIUM, why);
            }
        average |= gp->source == SOURCE_AVERAGE;
        coarse |= gp->gpm.status == GPM_TOO_COARSE;
        levels |= gp->source != SOURCE_NONE && (isnan(gp->idle_w) || isnan(gp->busy_w));
    }
    if (average)
        lower(g, CONFIDENCE_MEDIUM, "power from gpu_power_W, a 1 s average");
    if (w->flags & WINDOW_NEAR_END)
        lower(g, CONFIDENCE_MEDIUM, "near-end: the trace stopped before the energy counter "
                                    "updated after an edge");
    /* GPM's SM activity is what tells real compute from a kernel that
     * keeps utilization at 100% on a few SMs; without it (too few whole
     * spans) compute time rests on power and utilization alone. Waiting
     * and host-cpu need no such check: an idle GPU is idle by both. */
    if (coarse && w->bd.valid && w->bd.ms[CLASS_COMPUTE] > 0 && !w->bd.from_kernels)
        lower(g, CONFIDENCE_MEDIUM, "GPM too coarse to check the compute's SM activity");
    if (levels)
        lower(g, CONFIDENCE_MEDIUM, "no idle/busy power level: utilization alone");
    if (w->bd.valid && w->bd.ms[CLASS_NOT_RECORDED] > 0) {
        snprintf(why, sizeof why, "gpu %d not recorded for %.0f ms", w->bd.not_recorded_gpu,
                 w->bd.ms[CLASS_NOT_RECORDED]);
        lower(g, CONFIDENCE_MEDIUM, why);
    }
    if (w->verdict == VERDICT_HOST_CPU && !w->cpu_tree_known)
        lower(g, CONFIDENCE_MEDIUM, "the job's CPU was not traced: host-cpu is the whole host's load");
}

void confidence_window(struct window *w)
{
    struct grade g = { CONFIDENCE_HIGH, 0, w->confidence_reason, CONFIDENCE_REASON_MAX };
    w->confidence_reason[0] = '\0';
    if (w->verdict == VERDICT_INCONCLUSIVE) {
        /* the verdict's own reason: the evidence's first clause */
        size_t n = strcspn(w->evidence, ";");
        if (n >= CONFIDENCE_REASON_MAX)
            n = CONFIDENCE_REASON_MAX - 1;
        memcpy(w->confidence_reason, w->evidence, n);
        w->confidence_reason[n] = '\0';
        w->confidence = CONFIDENCE_NONE;
        return;
    }
    if (!w->bd.valid)
        lower(&g, CONFIDENCE_LOW, "no time breakdown: the verdict rests on the window's mean power");
    else
        grade_edges(w, &g);
    grade_sources(w, &g);
    w->confidence = g.level;
}

const char *confidence_name(enum confidence c)
{
    switch (c) {
    case CONFIDENCE_HIGH: return "high";
    case CONFIDENCE_MEDIUM: return "medium";
    case CONFIDENCE_LOW: return "low";
    case CONFIDENCE_NONE: break;
    }
    return "none";
}
