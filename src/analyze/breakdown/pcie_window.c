/* pcie_window.c — a window's host<->GPU traffic and copy-bound waiting; see pcie_window.h. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "analysis_internal.h"
#include "pcie_window.h"

_Static_assert(TAPE_MAX_GPUS <= 64, "a GPU mask holds one bit per tape GPU");

static void traffic_unknown(struct pcie_traffic *p)
{
    p->tx_bytes = p->rx_bytes = p->copy_ms = p->copy_bytes = p->waiting_bytes = p->tick_ms = NAN;
    p->notes = 0;
}

void pcie_window_gpu(const struct analysis *a, const struct gpu_stream *gs, struct window_gpu *g,
                     const struct point *ps, const struct point *pe)
{
    struct pcie_traffic *p = &g->pcie;
    traffic_unknown(p);
    p->tx_bytes = pe->cum[QG_PCIE_TX] - ps->cum[QG_PCIE_TX];
    p->rx_bytes = pe->cum[QG_PCIE_RX] - ps->cum[QG_PCIE_RX];
    if (pe->cum[QG_PCIE_RESETS] - ps->cum[QG_PCIE_RESETS] > 0)
        p->notes |= PCIE_NOTE_RESET;
    int bits = 0;
    for (int i = 0; i < a->nidents; i++)
        if (a->idents[i].id == gs->id)
            bits = a->idents[i].pcie_bits;
    if (!bits && gs->pcie[0].big)
        bits = 64;
    if ((!isnan(p->tx_bytes) || !isnan(p->rx_bytes)) && pcie_may_miss_wraps(bits, g->max_gap_s))
        p->notes |= PCIE_NOTE_MISS_WRAPS;
}

/* The continuous TX + RX count at t, linear between the nearest samples
 * that have it; NAN outside them. */
static double bytes_at(const struct gpu_sample *s, long n, int64_t t)
{
    long lo = -1, hi = -1;
    for (long i = 0; i < n; i++) {
        if (isnan(s[i].pcie_bytes))
            continue;
        if (s[i].t <= t)
            lo = i;
        if (s[i].t >= t) {
            hi = i;
            break;
        }
    }
    if (lo < 0 || hi < 0)
        return NAN;
    if (s[hi].t == s[lo].t)
        return s[lo].pcie_bytes;
    double f = (double)(t - s[lo].t) / (double)(s[hi].t - s[lo].t);
    return s[lo].pcie_bytes + f * (s[hi].pcie_bytes - s[lo].pcie_bytes);
}

/* Bytes of the GPUs in mask (bit k: tape GPU k, up to 64) over [t0, t1]; NAN when
 * none of them knows. */
static double bytes_between(const struct window_tape *wt, uint64_t mask, int64_t t0, int64_t t1)
{
    double sum = NAN;
    for (int k = 0; k < wt->ngpu; k++) {
        if (!(mask >> k & 1))
            continue;
        double b = bytes_at(wt->gpu[k], wt->ngpu_samples[k], t1) -
                   bytes_at(wt->gpu[k], wt->ngpu_samples[k], t0);
        if (!isnan(b))
            sum = (isnan(sum) ? 0 : sum) + b;
    }
    return sum;
}

/* The waiting segments of bd: their bytes and the copy-bound ones. */
static void copies(const struct analysis_options *o, const struct window *w, const struct breakdown *bd,
                   uint64_t mask, struct pcie_traffic *p)
{
    if (!bd->valid)
        return;
    double copy_ms = 0, copy_b = 0, wait_b = 0;
    int known = 0;
    for (int i = 0; i < bd->nseg; i++) {
        const struct segment *sg = &bd->seg[i];
        if (sg->cls != CLASS_WAITING || sg->end_ms <= sg->start_ms)
            continue;
        int64_t t0 = w->t_start_ns + (int64_t)llround(sg->start_ms * 1e6);
        int64_t t1 = w->t_start_ns + (int64_t)llround(sg->end_ms * 1e6);
        double b = bytes_between(w->tape, mask, t0, t1);
        if (isnan(b))
            continue;
        known = 1;
        wait_b += b;
        double ms = sg->end_ms - sg->start_ms;
        if (b / (ms / 1e3) >= o->copy_gbps * 1e9) {
            copy_ms += ms;
            copy_b += b;
        }
    }
    if (!known)
        return;
    p->copy_ms = copy_ms;
    p->copy_bytes = copy_b;
    p->waiting_bytes = wait_b;
}

static double tick_ms(const struct window_tape *wt, int k)
{
    long n = wt->ngpu_samples[k];
    if (n < 2)
        return NAN;
    return (double)(wt->gpu[k][n - 1].t - wt->gpu[k][0].t) / 1e6 / (double)(n - 1);
}

static double add_nan(double a, double b)
{
    return isnan(a) ? b : isnan(b) ? a : a + b;
}

void pcie_window_copies(const struct analysis_options *o, struct window *w)
{
    struct pcie_traffic *wp = &w->pcie;
    traffic_unknown(wp);
    for (int i = 0; i < w->ngpu; i++) {
        wp->tx_bytes = add_nan(wp->tx_bytes, w->gpu[i].pcie.tx_bytes);
        wp->rx_bytes = add_nan(wp->rx_bytes, w->gpu[i].pcie.rx_bytes);
        wp->notes |= w->gpu[i].pcie.notes;
    }
    const struct window_tape *wt = w->tape;
    if (!wt || (isnan(wp->tx_bytes) && isnan(wp->rx_bytes)))
        return;
    uint64_t all = 0;   /* TAPE_MAX_GPUS is 64: one bit each */
    for (int i = 0; i < w->ngpu; i++)
        for (int k = 0; k < wt->ngpu; k++)
            if (wt->gpu_id[k] == w->gpu[i].gpu) {
                all |= (uint64_t)1 << k;
                w->gpu[i].pcie.tick_ms = tick_ms(wt, k);
                wp->tick_ms = fmax(isnan(wp->tick_ms) ? 0 : wp->tick_ms, w->gpu[i].pcie.tick_ms);
                copies(o, w, &w->gpu[i].bd, (uint64_t)1 << k, &w->gpu[i].pcie);
            }
    copies(o, w, &w->bd, all, wp);
}

static int waiting_on_copies(const struct analysis_options *o, const struct window *w)
{
    return w->bd.valid && w->bd.ms[CLASS_WAITING] > 0 && !isnan(w->pcie.copy_ms) &&
           w->pcie.copy_ms >= o->class_frac * w->bd.ms[CLASS_WAITING];
}

void pcie_window_evidence(const struct analysis_options *o, struct window *w)
{
    const struct pcie_traffic *p = &w->pcie;
    if (isnan(p->copy_ms) || p->copy_ms <= 0)
        return;
    char what[256];
    snprintf(what, sizeof what, "%.0f ms of %.0f ms waiting moved %.3f GB over PCIe at %.1f GB/s "
             "(counters read every %.0f ms%s)", p->copy_ms, w->bd.ms[CLASS_WAITING], p->copy_bytes / 1e9,
             p->copy_bytes / 1e9 / (p->copy_ms / 1e3), p->tick_ms,
             p->notes & PCIE_NOTE_RESET ? "; a counter reset inside: at least that" : "");
    char out[sizeof what + EVIDENCE_MAX + 64];
    if (w->verdict == VERDICT_WAITING && waiting_on_copies(o, w))
        snprintf(out, sizeof out, "waiting on host<->GPU copies: %s; %s", what, w->evidence);
    else
        snprintf(out, sizeof out, "%s; host<->GPU copies: %s", w->evidence, what);
    memcpy(w->evidence, out, EVIDENCE_MAX - 1);
    w->evidence[EVIDENCE_MAX - 1] = '\0';
}
