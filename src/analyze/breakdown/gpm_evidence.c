/* gpm_evidence.c — GPM spans as a window's evidence; see gpm_evidence.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpm_evidence.h"
#include "gpu_spin.h"
#include "tape.h"

static float metric(const struct gpu_sample *p, int m)
{
    switch (m) {
    case GPM_SM_ACTIVE_PCT:    return p->sm_active_pct;
    case GPM_SM_OCCUPANCY_PCT: return p->sm_occupancy_pct;
    case GPM_TENSOR_ACTIVE_PCT: return p->tensor_pct;
    default:                   return p->dram_bw_pct;
    }
}

/* One GPU's samples around [t0, t1] (ns). A span [t - span, t] counts when
 * it lies whole inside; each metric is averaged over the spans that carry
 * it, weighted by their lengths. */
static void gpu_evidence(const struct gpu_sample *smp, long n, double t0, double t1,
                         struct gpm_evidence *e)
{
    double sum[GPM_METRICS] = { 0 }, weight[GPM_METRICS] = { 0 };
    memset(e, 0, sizeof *e);
    e->status = GPM_ABSENT;
    for (int m = 0; m < GPM_METRICS; m++)
        e->pct[m] = NAN;
    int any = 0;
    for (long i = 0; i < n; i++) {
        const struct gpu_sample *p = &smp[i];
        if (!(p->gpm_span_ms > 0))
            continue;
        any = 1;
        double span_ns = (double)p->gpm_span_ms * 1e6, end = (double)p->t;
        e->span_ms = fmax(e->span_ms, p->gpm_span_ms);
        if (end - span_ns < t0 || end > t1)
            continue;
        e->spans++;
        e->covered_ms += p->gpm_span_ms;
        for (int m = 0; m < GPM_METRICS; m++)
            if (!isnan(metric(p, m))) {
                sum[m] += metric(p, m) * p->gpm_span_ms;
                weight[m] += p->gpm_span_ms;
            }
    }
    if (!any)
        return;
    e->status = e->spans >= GPM_MIN_SPANS ? GPM_OK : GPM_TOO_COARSE;
    for (int m = 0; e->status == GPM_OK && m < GPM_METRICS; m++)
        if (weight[m] > 0)
            e->pct[m] = sum[m] / weight[m];
}

void gpm_window(struct window *w)
{
    struct window_tape *wt = w->tape;
    for (int i = 0; i < w->ngpu; i++) {
        struct window_gpu *g = &w->gpu[i];
        int k = 0;
        while (wt && k < wt->ngpu && wt->gpu_id[k] != g->gpu)
            k++;
        if (!wt || k == wt->ngpu) {
            gpu_evidence(NULL, 0, 0, 0, &g->gpm);
            continue;
        }
        /* the samples from the last at or before the start to the first at
         * or after the end: the tape holds a margin beyond them (tape.h) */
        const struct gpu_sample *smp = wt->gpu[k];
        long n = wt->ngpu_samples[k], lo = 0, hi = n - 1;
        while (lo + 1 < n && smp[lo + 1].t <= w->t_start_ns)
            lo++;
        while (hi > lo && smp[hi - 1].t >= w->t_end_ns)
            hi--;
        gpu_evidence(smp + lo, hi - lo + 1, (double)w->t_start_ns, (double)w->t_end_ns, &g->gpm);
    }
}

/* A spinning GPU named (gpu_spin.h), or, without GPM, the look-alike said:
 * utilization >= 90 % at power in the lower third of the busy range is
 * memory-bound compute or a spin, and only GPM or kernel names tell. */
static void spin_evidence(struct window *w, size_t len)
{
    size_t cap = EVIDENCE_MAX;
    double spin_ms = 0;
    for (int i = 0; i < w->bd.nseg; i++)
        if (w->bd.seg[i].reason == gpu_spin_reason)
            spin_ms += w->bd.seg[i].end_ms - w->bd.seg[i].start_ms;
    for (int i = 0; i < w->ngpu && len < cap; i++) {
        const struct window_gpu *g = &w->gpu[i];
        int gpm = g->gpm.status == GPM_OK && !isnan(g->gpm.pct[GPM_SM_ACTIVE_PCT]);
        double f = (g->mean_power_w - g->idle_w) / (g->busy_w - g->idle_w);
        int n = 0;
        if (spin_ms > 0 && gpm && g->gpm.pct[GPM_SM_ACTIVE_PCT] <= SPIN_SM_ACTIVE_PCT)
            n = snprintf(w->evidence + len, cap - len,
                         "; the GPU spins for %.0f ms: utilization %.0f%% but SM activity %.0f%%: a "
                         "collective or busy-wait kernel waiting on a peer, or a stream of tiny kernels",
                         spin_ms, g->util_pct, g->gpm.pct[GPM_SM_ACTIVE_PCT]);
        else if (!gpm && g->util_pct >= SPIN_UTIL_PCT && f < 1.0 / 3)
            n = snprintf(w->evidence + len, cap - len,
                         "; utilization %.0f%% at %.0f%% of the busy range: memory-bound compute and a GPU "
                         "spinning on a peer (a collective, a busy-wait) look alike here; GPM SM activity "
                         "(Hopper and newer) or kernel names (record --cuda) would tell", g->util_pct, 100 * f);
        if (n > 0)
            len += (size_t)n;
        if (n > 0)
            break;
    }
    if (len >= cap)
        w->evidence[cap - 1] = '\0';
}

void gpm_evidence_append(struct window *w)
{
    size_t cap = EVIDENCE_MAX, len = strlen(w->evidence);
    int ok = 0, coarse = 0;
    for (int i = 0; i < w->ngpu; i++) {
        const struct window_gpu *g = &w->gpu[i];
        ok += g->gpm.status == GPM_OK && !isnan(g->gpm.pct[GPM_SM_ACTIVE_PCT]);
        coarse += g->gpm.status == GPM_TOO_COARSE;
    }
    for (int i = 0, shown = 0; ok && i < w->ngpu && len < cap; i++) {
        const struct gpm_evidence *e = &w->gpu[i].gpm;
        if (e->status != GPM_OK || isnan(e->pct[GPM_SM_ACTIVE_PCT]))
            continue;
        int n = w->ngpu > 1
            ? snprintf(w->evidence + len, cap - len, "%s gpu %d %.0f%%", shown ? "," : "; SM active",
                       w->gpu[i].gpu, e->pct[GPM_SM_ACTIVE_PCT])
            : snprintf(w->evidence + len, cap - len, "; SM active %.0f%%", e->pct[GPM_SM_ACTIVE_PCT]);
        if (n > 0)
            len += (size_t)n;
        shown++;
        if (shown == ok && len < cap) {
            n = snprintf(w->evidence + len, cap - len, " (GPM, %d spans of %.0f ms)", e->spans,
                         e->span_ms);
            if (n > 0)
                len += (size_t)n;
        }
    }
    if (!ok && coarse && len < cap)
        len += (size_t)snprintf(w->evidence + len, cap - len, "; GPM too coarse for this window");
    spin_evidence(w, len < cap ? len : cap);
    if (len >= cap)
        w->evidence[cap - 1] = '\0';
}

const char *gpm_status_name(enum gpm_status s)
{
    return s == GPM_OK ? "ok" : s == GPM_TOO_COARSE ? "too_coarse" : "absent";
}

const char *gpm_absent_reason(const struct analysis *a, int host, int gpu)
{
    for (int k = 0; a->nhosts <= 1 && host == 0 && k < a->nidents; k++)
        if (a->idents[k].id == gpu && a->idents[k].gpm_off[0])
            return a->idents[k].gpm_off;
    return "not recorded";
}
