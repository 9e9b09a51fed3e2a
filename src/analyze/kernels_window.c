/* kernels_window.c — a window's kernel evidence; see kernels_window.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "json_escape.h"
#include "kernels_window.h"
#include "waiting_on.h"

_Static_assert(KERNELS_GAP_SEGMENTS == BREAKDOWN_MAX_SEGMENTS, "a gap split per breakdown segment");

static int cmp_top(const void *a, const void *b)
{
    const double x = ((const double *)a)[1], y = ((const double *)b)[1];
    return (x < y) - (x > y);
}

static void one_gpu(const struct kernels_data *k, const struct kernels_device *d, int64_t t0,
                    int64_t t1, struct kernel_evidence *e)
{
    memset(e, 0, sizeof *e);
    int64_t busy = kernels_union_in(d->busy, d->nbusy, t0, t1);
    long first = -1, last = -1;
    for (long i = 0; i < d->nbusy; i++)
        if (d->busy[i].t1 > t0 && d->busy[i].t0 < t1) {
            if (first < 0)
                first = i;
            last = i;
        }
    if (first < 0)
        return;
    e->present = 1;
    e->busy_ms = (double)busy / 1e6;
    e->collective_ms = (double)kernels_union_in(d->coll, d->ncoll, t0, t1) / 1e6;
    for (long i = first; i < last; i++) {   /* gaps between pieces inside the window */
        double g = (double)(d->busy[i + 1].t0 - d->busy[i].t1) / 1e6;
        e->ngaps++;
        e->gaps_ms += g;
        if (g > e->longest_gap_ms)
            e->longest_gap_ms = g;
    }
    e->dropped = k->dropped;
    /* names: per name index, time pro-rated by each overlapping line's share in the window */
    double *acc = calloc((size_t)k->nnames + 1, 2 * sizeof *acc);
    if (!acc)
        return;
    for (long i = 0; i < d->nlines; i++) {
        const struct kernels_line *l = &d->lines[i];
        if (l->t1 <= t0 || l->t0 >= t1)
            continue;
        int64_t a = l->t0 > t0 ? l->t0 : t0, b = l->t1 < t1 ? l->t1 : t1;
        double share = l->t1 > l->t0 ? (double)(b - a) / (double)(l->t1 - l->t0) : 1.0;
        e->count += l->kernels;
        for (int j = 0; j < l->ntop; j++) {
            long n = l->name[j] >= 0 ? l->name[j] : k->nnames;
            acc[2 * n] = (double)n;
            acc[2 * n + 1] += share * (double)l->top_ns[j] / 1e6;
        }
    }
    qsort(acc, (size_t)k->nnames + 1, 2 * sizeof *acc, cmp_top);
    for (long i = 0; i <= k->nnames && e->ntop < KERNELS_WINDOW_TOP && acc[2 * i + 1] > 0; i++) {
        long n = (long)acc[2 * i];
        snprintf(e->top[e->ntop].name, sizeof e->top[0].name, "%s", n < k->nnames ? k->names[n] : "?");
        e->top[e->ntop++].ms = acc[2 * i + 1];
    }
    free(acc);
}

void kernels_window(const struct kernels_data *k, struct analysis *a, struct window *w)
{
    for (int i = 0; i < w->ngpu; i++) {
        w->gpu[i].kernels = 0;
        w->gpu[i].kernel_dev = NULL;
        w->gpu[i].kernel_gaps = NULL;
        if (!k || i >= k->ndev)
            continue;
        struct kernel_evidence e;
        one_gpu(k, &k->dev[i], w->t_start_ns, w->t_end_ns, &e);
        if (!e.present)
            continue;
        if (a->nkernel_ev == a->cap_kernel_ev) {
            long cap = a->cap_kernel_ev ? 2 * a->cap_kernel_ev : 64;
            struct kernel_evidence *p = realloc(a->kernel_ev, (size_t)cap * sizeof *p);
            if (!p)
                return;                 /* out of memory: answered from the sensors */
            a->kernel_ev = p;
            a->cap_kernel_ev = cap;
        }
        a->kernel_ev[a->nkernel_ev++] = e;
        w->gpu[i].kernels = a->nkernel_ev;
        w->gpu[i].kernel_dev = &k->dev[i];
    }
    for (int i = 0; i < w->ngpu; i++)      /* after the last realloc */
        if (w->gpu[i].kernels)
            w->gpu[i].kernel_gaps = &a->kernel_ev[w->gpu[i].kernels - 1].gaps;
}

int kernels_gap_largest(const struct kernel_evidence *e)
{
    int top = -1;
    for (int k = 0; k < KGAP_COUNT; k++)
        if (e->gaps.by_class_ms[k] > 0 && (top < 0 || e->gaps.by_class_ms[k] > e->gaps.by_class_ms[top]))
            top = k;
    return e->gaps_ms > 0 ? top : -1;
}

const char *kernels_gap_class_name(int k, char *buf, size_t cap)
{
    if (k >= KGAP_WAITING_ON && k < KGAP_COUNT)
        snprintf(buf, cap, "waiting-on-%s", thread_class_name((enum thread_class)(k - KGAP_WAITING_ON)));
    else
        snprintf(buf, cap, "%s", k == KGAP_HOST_CPU ? "host-cpu" : "waiting");
    return buf;
}

/* The waiting part of each gap split goes to the dominant thread class of
 * the window's breakdown segment it lies in (waiting_on.h: every segment's,
 * compute's too, since a GPU's gap may lie inside a compute segment of the
 * window: another GPU computing, or short gaps merged into the outline);
 * without thread states there, it stays "waiting". */
void kernels_gaps_fold(struct analysis *a)
{
    for (long wi = 0; wi < a->nwindows; wi++) {
        const struct window *w = &a->windows[wi];
        const struct window_waiting *ww = a->waiting && wi < a->waiting->nwin ? &a->waiting->win[wi] : NULL;
        for (int i = 0; i < w->ngpu; i++) {
            if (w->gpu[i].kernels <= 0 || w->gpu[i].kernels > a->nkernel_ev)
                continue;
            struct kernel_gaps *g = &a->kernel_ev[w->gpu[i].kernels - 1].gaps;
            memset(g->by_class_ms, 0, sizeof g->by_class_ms);
            g->by_class_ms[KGAP_HOST_CPU] = g->host_cpu_ms;
            g->by_class_ms[KGAP_WAITING] = g->waiting_unseg_ms;
            for (int s = 0; s < KERNELS_GAP_SEGMENTS; s++) {
                int dom = ww && s < w->bd.nseg ? ww->seg_dominant[s] : -1;
                g->by_class_ms[dom >= 0 ? KGAP_WAITING_ON + dom : KGAP_WAITING] += g->waiting_seg_ms[s];
            }
        }
    }
}

const struct kernel_evidence *kernels_of(const struct analysis *a, const struct window_gpu *g)
{
    return g->kernels > 0 && g->kernels <= a->nkernel_ev ? &a->kernel_ev[g->kernels - 1] : NULL;
}

void kernels_window_json(FILE *out, const struct analysis *a, const struct window_gpu *g)
{
    const struct kernel_evidence *e = kernels_of(a, g);
    if (!e)
        return;
    fputs(",\"kernels\":{\"busy_ms\":", out);
    json_write_number(out, "%.3f", e->busy_ms);
    fprintf(out, ",\"count\":%ld,\"top\":[", e->count);
    for (int i = 0; i < e->ntop; i++) {
        fputs(i ? ",{\"name\":" : "{\"name\":", out);
        json_write_string(out, e->top[i].name);
        fputs(",\"ms\":", out);
        json_write_number(out, "%.3f", e->top[i].ms);
        fputc('}', out);
    }
    fputs("],\"collective_ms\":", out);
    json_write_number(out, "%.3f", e->collective_ms);
    fprintf(out, ",\"gaps\":{\"count\":%ld,\"longest_ms\":", e->ngaps);
    json_write_number(out, "%.3f", e->longest_gap_ms);
    fputs(",\"total_ms\":", out);
    json_write_number(out, "%.3f", e->gaps_ms);
    fputs(",\"by_class\":{", out);
    char name[40];
    for (int k = 0, n = 0; k < KGAP_COUNT; k++)
        if (e->gaps.by_class_ms[k] > 0) {
            fprintf(out, "%s\"%s\":", n++ ? "," : "", kernels_gap_class_name(k, name, sizeof name));
            json_write_number(out, "%.3f", e->gaps.by_class_ms[k]);
        }
    fprintf(out, "}},\"dropped\":%lld,\"nvml_check\":", e->dropped);
    if (g->nvml_check_ms > 0) {
        fputs("{\"kernels_while_idle_ms\":", out);
        json_write_number(out, "%.3f", g->kernels_nvml_idle_ms);
        fputs(",\"busy_without_kernels_ms\":", out);
        json_write_number(out, "%.3f", g->nvml_busy_no_kernels_ms);
        fputs(",\"threshold_ms\":", out);
        json_write_number(out, "%.3f", g->nvml_check_ms);
        fputc('}', out);
    } else {
        fputs("null", out);
    }
    fputc('}', out);
}

/* The NVML cross-check (kernels_busy.h) as evidence clauses, only past its
 * threshold: kernels NVML did not see (its sensors' lag, or kernels too
 * short for its sampling), or NVML busy with no traced kernel (another
 * process on the GPU, or a context the library did not trace). */
void kernels_nvml_evidence(struct window *w)
{
    for (int i = 0; i < w->ngpu; i++) {
        const struct window_gpu *g = &w->gpu[i];
        size_t len = strlen(w->evidence);
        if (!(g->nvml_check_ms > 0))
            continue;
        if (g->kernels_nvml_idle_ms > g->nvml_check_ms)
            len += (size_t)snprintf(w->evidence + len, EVIDENCE_MAX - len, "; gpu %d: kernels ran "
                                    "%.0f ms while NVML read it idle (NVML lags or misses short kernels)",
                                    g->gpu, g->kernels_nvml_idle_ms);
        if (len < EVIDENCE_MAX && g->nvml_busy_no_kernels_ms > g->nvml_check_ms)
            snprintf(w->evidence + len, EVIDENCE_MAX - len, "; gpu %d: NVML read it busy %.0f ms "
                     "with no traced kernel (another process, or a context not traced)", g->gpu,
                     g->nvml_busy_no_kernels_ms);
    }
}

void kernels_window_text(FILE *out, const struct analysis *a, const struct window_gpu *g,
                         double window_ms)
{
    const struct kernel_evidence *e = kernels_of(a, g);
    if (!e)
        return;
    /* compute without the collectives: the breakdown never calls them compute */
    fprintf(out, "    kernels: compute %.1f ms of %.1f in %ld kernels", e->busy_ms - e->collective_ms,
            window_ms, e->count);
    double named = 0;
    for (int i = 0; i < e->ntop; i++)
        named += e->top[i].ms;
    for (int i = 0; i < e->ntop && i < 3 && named > 0; i++)
        fprintf(out, "%s %.0f%% %.40s", i ? "," : ":", 100.0 * e->top[i].ms / named, e->top[i].name);
    if (e->collective_ms > 0)
        fprintf(out, "; collective %.1f ms", e->collective_ms);
    fprintf(out, "; %ld gaps, longest %.1f ms", e->ngaps, e->longest_gap_ms);
    int top = kernels_gap_largest(e);
    char name[40];
    if (top >= 0)
        fprintf(out, ", %.0f%% of their %.1f ms %s", 100.0 * e->gaps.by_class_ms[top] / e->gaps_ms, e->gaps_ms,
                kernels_gap_class_name(top, name, sizeof name));
    if (e->dropped)
        fprintf(out, "; %lld records dropped", e->dropped);
    fputc('\n', out);
}
