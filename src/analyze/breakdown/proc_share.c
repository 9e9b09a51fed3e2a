/* proc_share.c — the traced job's share of a GPU's SM time; see proc_share.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc_share.h"

#include "gpu_proc_util.h"

#define NS_PER_MS_LL 1000000LL
#define LINK_MAX_NS (5 * 1000 * NS_PER_MS_LL) /* a reading further from the last starts afresh */

int proc_share_add(struct proc_share_log *l, const struct trace_row *row)
{
    double proc = row->v[COL_GPU_PROC_SM_PCT], other = row->v[COL_GPU_OTHER_SM_PCT];
    if (isnan(proc) && isnan(other))
        return 0;
    /* The newest sample's time on the t_mono_ns axis, through this row's
     * two clocks; the row's own time when that is missing or implausible
     * (after the row, or more than one reading period before it). */
    int64_t t1 = row->t_mono_ns;
    double ts = row->v[COL_GPU_PROC_UTIL_TS_US];
    if (!isnan(ts) && row->has_wall) {
        double t = ts * 1e3 - (double)(row->t_wall_ns - row->t_mono_ns);
        if (t <= (double)row->t_mono_ns && t >= (double)row->t_mono_ns - 2e6 * GPU_PROC_UTIL_MS)
            t1 = (int64_t)t;
    }
    int64_t t0 = t1 - GPU_PROC_UTIL_MS * NS_PER_MS_LL;
    if (l->n > 0 && l->recording == row->recording) {
        int64_t prev = l->r[l->n - 1].t1;
        if (prev < t1 && t1 - prev <= LINK_MAX_NS)
            t0 = prev;
        else if (prev >= t1)
            return 0;             /* nothing new (a repeated or backwards stamp) */
    }
    if (l->n == PROC_SHARE_MAX_READINGS) {
        l->dropped++;
        return 0;
    }
    if (l->n == l->cap) {
        long cap = l->cap ? 2 * l->cap : 256;
        void *p = realloc(l->r, (size_t)cap * sizeof *l->r);
        if (!p)
            return -1;
        l->r = p;
        l->cap = cap;
    }
    l->r[l->n++] = (struct proc_reading){ t0, t1, (float)(isnan(proc) ? 0 : proc),
                                          (float)(isnan(other) ? 0 : other) };
    l->recording = row->recording;
    return 0;
}

int proc_share_next(struct proc_share_log *l, const struct trace_row *row, struct proc_reading *out)
{
    long n = l->n;
    if (proc_share_add(l, row) != 0)
        return -1;
    if (l->n == n)
        return 0;
    *out = l->r[l->n - 1];
    l->r[0] = *out;
    l->n = 1;
    return 1;
}

void proc_share_free(struct proc_share_log *l)
{
    free(l->r);
    memset(l, 0, sizeof *l);
}

void proc_share_window(const struct proc_share_log *l, int64_t t0, int64_t t1, struct window_gpu *g)
{
    g->proc_sm_pct = g->other_sm_pct = NAN;
    g->proc_readings = 0;
    g->proc_t0_ns = g->proc_t1_ns = 0;
    g->proc_cover = 0;
    if (!l || t1 <= t0)
        return;
    /* readings are in time order: find the first that may overlap */
    long lo = 0, hi = l->n;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (l->r[mid].t1 <= t0)
            lo = mid + 1;
        else
            hi = mid;
    }
    double w_sum = 0, p_sum = 0, o_sum = 0;
    for (long i = lo; i < l->n && l->r[i].t0 < t1; i++) {
        const struct proc_reading *r = &l->r[i];
        double a = (double)(r->t0 > t0 ? r->t0 : t0), b = (double)(r->t1 < t1 ? r->t1 : t1);
        if (b <= a)
            continue;
        w_sum += b - a;
        p_sum += (b - a) * r->proc_pct;
        o_sum += (b - a) * r->other_pct;
        if (!g->proc_readings++)
            g->proc_t0_ns = r->t0;
        g->proc_t1_ns = r->t1;
    }
    if (w_sum <= 0)
        return;
    g->proc_sm_pct = p_sum / w_sum;
    g->other_sm_pct = o_sum / w_sum;
    g->proc_cover = w_sum / (double)(t1 - t0);
}

const char *proc_share_text(const struct window_gpu *g, char *buf, size_t cap)
{
    if (cap)
        buf[0] = '\0';
    if (isnan(g->proc_sm_pct) || cap == 0)
        return buf;
    snprintf(buf, cap, "SM busy %.0f%%: the traced job %.0f%%, other processes %.0f%% (%d "
             "per-process reading%s over %.1f s around the window, covering %.0f%% of it)",
             g->proc_sm_pct + g->other_sm_pct, g->proc_sm_pct, g->other_sm_pct, g->proc_readings,
             g->proc_readings == 1 ? "" : "s", (double)(g->proc_t1_ns - g->proc_t0_ns) / 1e9,
             100 * g->proc_cover);
    return buf;
}

/* Prepends text to the evidence (cut at the buffer's end). */
static void prepend(struct window *w, const char *text)
{
    char old[EVIDENCE_MAX];
    size_t cap = EVIDENCE_MAX, olen = strlen(w->evidence);
    memcpy(old, w->evidence, olen + 1);
    int n = snprintf(w->evidence, cap, "%s%s", text, olen ? "; " : "");
    if (n < 0 || (size_t)n >= cap)
        return;
    size_t room = cap - 1 - (size_t)n, take = olen < room ? olen : room;
    memcpy(w->evidence + n, old, take);
    w->evidence[(size_t)n + take] = '\0';
}

void proc_share_verdict(struct window *w)
{
    double job = 0, other = 0;
    int any = 0;
    size_t len = strlen(w->evidence);
    for (int i = 0; i < w->ngpu; i++) {
        const struct window_gpu *g = &w->gpu[i];
        if (isnan(g->proc_sm_pct))
            continue;
        any = 1;
        job += g->proc_sm_pct;
        other += g->other_sm_pct;
        if (len < EVIDENCE_MAX) {
            char gpu[32] = "";
            if (w->ngpu > 1)
                snprintf(gpu, sizeof gpu, " (gpu %d)", g->gpu);
            len += (size_t)snprintf(w->evidence + len, EVIDENCE_MAX - len,
                                    "; sm %.0f%% = job %.0f%% + other processes %.0f%%%s",
                                    g->proc_sm_pct + g->other_sm_pct, g->proc_sm_pct,
                                    g->other_sm_pct, gpu);
        }
    }
    if (!any || w->verdict != VERDICT_COMPUTE || other <= job)
        return;
    char why[160];
    snprintf(why, sizeof why, "the GPU computed mostly for other processes (SM time: the traced "
             "job %.0f%%, others %.0f%%), not for the job", job, other);
    w->verdict = VERDICT_MIXED;
    prepend(w, why);
}
