/*
 * breakdown.c — see breakdown.h.
 *
 * The per-GPU busy/idle timeline is breakdown_gpu.c's, the timeline and
 * edge-walk primitives breakdown_timeline.c's (breakdown_internal.h).
 *
 * The CPU side (cpu_side.h): with a traced process tree, its own running
 * and run-queue time over each sample interval; without one, the whole
 * host when saturated (host_cpu_busy_pct >= cpu_busy_pct, 90 by default).
 * At an instant the window is compute when any GPU is busy, else
 * not-recorded when a GPU had not joined the recording yet (--gpu auto: no
 * evidence of what it did), else host-cpu when the CPU side is busy, else
 * waiting. A GPU with traced kernels in the window (flinch record --cuda)
 * takes its busy signal from them instead (kernels_busy.h): a collective
 * there is collective time when no GPU computes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array_grow.h"
#include "breakdown_internal.h"
#include "cpu_side.h"
#include "fminmax.h"
#include "gpu_spin.h"
#include "kernels_busy.h"
#include "num_format.h"
#include "segment_merge.h"
#include "slow_clock.h"

/* What breakdown_window works in, kept from window to window: with
 * 10,000 windows each one allocated and freed some twenty arrays, and the
 * larger ones (the CPU side's timeline, the edges), past glibc's
 * per-thread cache, took its slow path, a tenth of the windows' cost. */
struct breakdown_work {
    struct gpu_timeline_work *gpu;   /* breakdown_gpu.c's own (NULL: each call its own) */
    struct timeline *gtl;            /* a timeline per GPU of the window */
    double *base;                    /* and its base resolution */
    long cap_gpus;
    struct timeline cpu, cls;        /* the CPU side's; classify's */
    struct edge *edges;
    long cap_edges;
    double *runq;
    long cap_runq;
};

struct breakdown_work *breakdown_work_new(void)
{
    struct breakdown_work *bw = calloc(1, sizeof *bw);
    if (bw)
        bw->gpu = gpu_timeline_work_new();
    return bw;
}

static void work_release(struct breakdown_work *bw)
{
    gpu_timeline_work_free(bw->gpu);
    for (long i = 0; i < bw->cap_gpus; i++)
        tl_free(&bw->gtl[i]);
    free(bw->gtl);
    free(bw->base);
    tl_free(&bw->cpu);
    tl_free(&bw->cls);
    free(bw->edges);
    free(bw->runq);
    memset(bw, 0, sizeof *bw);
}

void breakdown_work_free(struct breakdown_work *bw)
{
    if (!bw)
        return;
    work_release(bw);
    free(bw);
}

/* Room for ng GPUs' timelines, each empty, and their base resolutions 0;
 * 0 or -1. */
static int work_gpus(struct breakdown_work *bw, int ng)
{
    long need = ng ? ng : 1;
    if (need > bw->cap_gpus) {
        struct timeline *g = realloc(bw->gtl, sizeof *g * (size_t)need);
        if (!g)
            return -1;
        memset(g + bw->cap_gpus, 0, sizeof *g * (size_t)(need - bw->cap_gpus));
        bw->gtl = g;
        double *b = realloc(bw->base, sizeof *b * (size_t)need);
        if (!b)
            return -1;
        bw->base = b;
        bw->cap_gpus = need;
    }
    for (long i = 0; i < need; i++) {
        tl_reset(&bw->gtl[i]);
        bw->base[i] = 0;
    }
    return 0;
}

/* The CPU side over (t[j-1], t[j]] (cpu_side.h): the traced tree's own
 * running and run-queue time when the trace has the tree, else the host's
 * saturation. The window's run-queue delay into *runq_ms (NAN: none
 * recorded). The host's figure resolves no edge finer than its trailing
 * 100 ms: without a tree, shorter segments are merged (a host hovering
 * around the threshold flapped in 6-9 pieces). */
static int cpu_timeline(const struct analysis_options *o, const struct host_sample *h, long n,
                        double t0, double d, struct breakdown_work *bw, int *tree_known, double *runq_ms)
{
    int rc = 0, known = 0;
    struct timeline *out = &bw->cpu;
    tl_reset(out);
    if (array_grow((void **)&bw->runq, &bw->cap_runq, n ? n : 1, sizeof *bw->runq) != 0)
        return -1;
    double *rq = bw->runq;
    cpu_side_runq_rates(h, n, rq);
    *runq_ms = NAN;
    for (long j = 0; j < n; j++)
        known |= !isnan(h[j].proc_cpu_s);
    /* each interval's start is the previous one's end, worked out once;
     * an interval in the state of the one before extends it (tl_push would
     * merge it), without the call: a window's host samples are ~50 */
    double b = n ? ((double)h[0].t - t0) / 1e6 : 0;
    for (long j = 1; j < n && rc == 0; j++) {
        double a = b;
        b = ((double)h[j].t - t0) / 1e6;
        if (b <= 0 && j + 1 < n)
            continue;
        double dt = (double)(h[j].t - h[j - 1].t) / 1e9;
        struct cpu_interval c = { (h[j].proc_cpu_s - h[j - 1].proc_cpu_s) / dt, rq[j], h[j].host_cpu_pct };
        double inside = fmin_inline(b, d) - fmax_inline(a, 0);
        if (!isnan(c.runq_cores) && inside > 0)
            *runq_ms = (isnan(*runq_ms) ? 0 : *runq_ms) + c.runq_cores * inside;
        unsigned char st = cpu_side_decide(o->proc_busy_cores, o->cpu_busy_pct, known, &c);
        if (!(out->n && out->st[out->n - 1] == st))
            rc = tl_push(out, out->n ? fmax_inline(a, 0) : 0, (b - a) / 2, st);
        if (a >= d)
            break;
    }
    tl_close(out, d);
    cpu_side_settle(out, known);
    *tree_known = known;
    return rc;
}

/* Each class's time over the class timeline cls (spins are waiting). */
static void class_totals(const struct timeline *cls, double *ms)
{
    memset(ms, 0, sizeof(double) * CLASS_COUNT);
    for (int i = 0; i < cls->n; i++)
        ms[cls->st[i] & ~CLS_SPIN] += cls->x[i + 1] - cls->x[i];
}

/* One pass over the class timeline cls over [0, d]: a segment shorter
 * than shortest joins its predecessor (the first its successor). A
 * not-recorded span is exact (it ends at a reading's stamp): it is never
 * absorbed, and never grows by absorbing recorded time (a short segment
 * after it joins its successor). */
static void absorb_short(struct timeline *cls, double shortest, double d)
{
    int k = 0;
    double carry = -1;                         /* start of absorbed time the next segment takes */
    for (int i = 0; i < cls->n; i++) {
        double len = cls->x[i + 1] - cls->x[i];
        int after_unrec = k > 0 && cls->st[k - 1] == CLASS_NOT_RECORDED;
        if (len < shortest && cls->st[i] != CLASS_NOT_RECORDED && (k > 0 || i + 1 < cls->n)
            && !(after_unrec && i + 1 == cls->n)) {
            if (after_unrec && carry < 0)
                carry = cls->x[i];
            continue;                          /* absorbed into the previous (the first: the next) */
        }
        if (k > 0 && cls->st[k - 1] == cls->st[i]) {
            carry = -1;
            continue;
        }
        cls->x[k] = !k ? 0 : carry >= 0 ? carry : cls->x[i];
        carry = -1;
        cls->res[k] = cls->res[i];
        cls->st[k] = cls->st[i];
        k++;
    }
    cls->x[k] = d;
    cls->n = k;
}

/* Segments of classes from GPU timelines (any busy: compute) and the CPU's.
 * exact_totals (every GPU signal from kernels): the classes' totals are
 * those before short segments are absorbed, exact to the stamps; the
 * segments stay a readable outline of them. */
static int classify(struct timeline *gpus, int ng, const struct timeline *cpu, double d,
                    double base_res, int exact_totals, struct breakdown_work *bw, struct breakdown *bd)
{
    long nx = cpu->n + 1;
    for (int i = 0; i < ng; i++)
        nx += gpus[i].n + 1;
    if (array_grow((void **)&bw->edges, &bw->cap_edges, nx, sizeof *bw->edges) != 0)
        return -1;
    struct edge *x = bw->edges;
    long m = 0;
    for (int i = 0; i < ng; i++)
        for (int k = 1; k < gpus[i].n; k++)
            x[m++] = (struct edge){ gpus[i].x[k], gpus[i].res[k], 0 };
    for (int k = 1; k < cpu->n; k++)
        x[m++] = (struct edge){ cpu->x[k], cpu->res[k], 0 };
    edges_sort(x, m);
    struct timeline *cls = &bw->cls;
    tl_reset(cls);
    struct edge_walk ew = { x, m, 0, 0, 0 };
    double next, next_res;
    int rc = 0;
    while (rc == 0 && edge_next(&ew, d, &next, &next_res)) {
        double mid = (ew.prev + next) / 2;
        int busy = 0, unrec = 0, spin = 0, coll = 0;
        for (int g = 0; g < ng; g++) {
            busy |= tl_at(&gpus[g], mid) == ST_BUSY;
            unrec |= tl_at(&gpus[g], mid) == ST_UNREC;
            spin |= tl_at(&gpus[g], mid) == ST_SPIN;
            coll |= tl_at(&gpus[g], mid) == ST_COLL;
        }
        enum time_class c = busy ? CLASS_COMPUTE : coll ? CLASS_COLLECTIVE : unrec ? CLASS_NOT_RECORDED
                            : cpu_side_busy(tl_at(cpu, mid)) ? CLASS_HOST_CPU : CLASS_WAITING;
        /* a GPU spinning (gpu_spin.h) is waiting, and says why */
        rc = tl_push(cls, ew.prev, ew.prev_res,
                     (unsigned char)(c | (c == CLASS_WAITING && spin ? CLS_SPIN : 0)));
        ew.prev = next;
        ew.prev_res = next_res;
    }
    if (rc != 0)
        return -1;
    tl_close(cls, d);
    double exact[CLASS_COUNT], denoised[CLASS_COUNT];
    class_totals(cls, exact);
    /* A segment shorter than the edges' resolution cannot be told from
     * noise: it is absorbed, and the classes' totals are taken then. Too
     * many segments (a flickering signal): the same, doubling the length
     * absorbed until they fit, for the outline only: a window over a whole
     * run, its GPU busy a second in every five thousand times, was
     * absorbed into its first segment, "100% waiting" for a run 17% busy. */
    double shortest = isfinite(base_res) && base_res > 0 ? base_res : d / 1024;
    absorb_short(cls, shortest, d);
    class_totals(cls, denoised);
    int denoised_n = cls->n;
    while (cls->n > BREAKDOWN_MAX_SEGMENTS) {
        shortest *= 2;
        absorb_short(cls, shortest, d);
    }
    struct segment *seg = malloc(sizeof *seg * (size_t)(cls->n ? cls->n : 1));
    if (!seg)
        return -1;
    breakdown_release(bd);
    bd->valid = 1;
    bd->resolution_ms = 0;
    bd->seg = seg;
    for (int i = 0; i < cls->n; i++) {
        struct segment *s = &bd->seg[bd->nseg++];
        s->start_ms = cls->x[i];
        s->end_ms = cls->x[i + 1];
        s->cls = (enum time_class)(cls->st[i] & ~CLS_SPIN);
        s->reason = cls->st[i] & CLS_SPIN ? gpu_spin_reason : NULL;
        if (i > 0 && cls->res[i] > bd->resolution_ms)
            bd->resolution_ms = cls->res[i];
    }
    if (cls->n <= 1 || base_res > bd->resolution_ms)
        bd->resolution_ms = cls->n <= 1 ? base_res : fmax_inline(bd->resolution_ms, 0);
    memcpy(bd->ms, exact_totals ? exact : denoised, sizeof bd->ms);
    bd->from_kernels = exact_totals;
    bd->outline_of = cls->n < denoised_n ? denoised_n : 0;
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
    /* allocated at the first reading that counts: most traces have no
     * thread readings, and each window allocated and freed it for nothing */
    double *by_name = NULL;
    int tried = 0;
    for (long j = 1; j < n; j++) {
        if (isnan(h[j].top_thread_cores))
            continue;
        double a = fmax_inline(((double)h[j - 1].t - t0) / 1e6, 0), b = fmin_inline(((double)h[j].t - t0) / 1e6, d);
        if (b <= a)
            continue;
        /* only the time no GPU computed: a busy thread behind a busy GPU is no bottleneck */
        double idle_ms = 0;
        for (int s = 0; s < w->bd.nseg; s++) {
            const struct segment *sg = &w->bd.seg[s];
            if (sg->cls != CLASS_COMPUTE)
                idle_ms += fmax_inline(0, fmin_inline(b, sg->end_ms) - fmax_inline(a, sg->start_ms));
        }
        if (idle_ms <= 0)
            continue;
        sum += h[j].top_thread_cores * idle_ms;
        weight += idle_ms;
        if (!tried++)
            by_name = calloc((size_t)(nnames > 0 ? nnames : 1), sizeof *by_name);
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

void breakdown_release(struct breakdown *bd)
{
    free(bd->seg);
    memset(bd, 0, sizeof *bd);
}

/* breakdown_window, in bw. */
static void window_breakdown(const struct analysis_options *o, struct window *w,
                             const struct sensor_cadence *cad, char (*names)[40], int nnames,
                             struct breakdown_work *bw)
{
    struct gpu_timeline_work *work = bw->gpu;
    breakdown_release(&w->bd);
    w->top_thread_cores = NAN;
    w->top_thread[0] = '\0';
    w->cpu_tree_known = 0;
    w->cpu_runq_ms = NAN;
    w->cpu_starved_ms = w->cpu_saturated_ms = 0;
    for (int i = 0; i < w->ngpu; i++) {
        w->gpu[i].slow_clock_ms = w->gpu[i].slow_clock_res_ms = w->gpu[i].slow_clock_from_ms = NAN;
        w->gpu[i].slow_clock_after_idle = 0;
    }
    const struct window_tape *wt = w->tape;
    if (!wt)
        return;
    double t0 = (double)w->t_start_ns, d = w->duration_s * 1e3;
    if (!(d > 0))
        return;
    int ok = work_gpus(bw, w->ngpu) == 0
             && cpu_timeline(o, wt->host, wt->nhost, t0, d, bw, &w->cpu_tree_known, &w->cpu_runq_ms) == 0;
    struct timeline *gtl = bw->gtl, *cpu = &bw->cpu;
    double *base = bw->base;
    double window_base = 0, unrec_longest = 0;
    int any = 0, unrec_gpu = -1, nsignal = 0, nkernels = 0;
    for (int i = 0; ok && i < w->ngpu; i++) {
        struct window_gpu *g = &w->gpu[i];
        breakdown_release(&g->bd);
        int k = 0;
        while (k < wt->ngpu && wt->gpu_id[k] != g->gpu)
            k++;
        /* joined late (--gpu auto): not recorded before its first reading */
        double unrec_ms = 0;
        if (g->joined_late)
            unrec_ms = k == wt->ngpu || wt->ngpu_samples[k] == 0
                       ? d : fmin_inline(fmax_inline(((double)wt->gpu[k][0].t - t0) / 1e6, 0), d);
        if (g->kernel_dev) {               /* traced kernels: the busy signal (kernels_busy.h) */
            struct timeline nv = { 0 };
            double nv_res = NAN;
            int have_nv = k < wt->ngpu && wt->ngpu_samples[k] > 0
                          && breakdown_gpu_timeline(o, g, wt->gpu[k], wt->ngpu_samples[k],
                                                    wt->medium_every_tick[k], wt->idle_bit_live[k], t0, d,
                                                    cad ? &cad[i] : NULL, &nv, &nv_res, work) == 0
                          && isfinite(nv_res);
            if (kernels_gpu_timeline(g->kernel_dev, t0, d, &gtl[i]) != 0
                || classify(&gtl[i], 1, cpu, d, KERNELS_EDGE_RES_MS, 1, bw, &g->bd) != 0) {
                tl_free(&nv);
                ok = 0;
                break;
            }
            if (have_nv)
                kernels_nvml_check(&gtl[i], &nv, d, nv_res, g);
            tl_free(&nv);
            g->bd.not_recorded_gpu = g->gpu;
            base[i] = KERNELS_EDGE_RES_MS;
            window_base = fmax_inline(window_base, base[i]);
            any = 1;
            nsignal++;
            nkernels++;
            continue;
        }
        if (k == wt->ngpu || wt->ngpu_samples[k] == 0) {
            tl_close(&gtl[i], d);          /* no samples: never busy */
            if (unrec_ms > 0 && tl_unrecorded_before(&gtl[i], unrec_ms, d) != 0) {
                ok = 0;
                break;
            }
            continue;
        }
        if (breakdown_gpu_timeline(o, g, wt->gpu[k], wt->ngpu_samples[k], wt->medium_every_tick[k],
                                   wt->idle_bit_live[k], t0, d,
                                   cad ? &cad[i] : NULL,
                                   &gtl[i], &base[i], work) != 0
            || (unrec_ms > 0 && tl_unrecorded_before(&gtl[i], unrec_ms, d) != 0)
            || classify(&gtl[i], 1, cpu, d, base[i], 0, bw, &g->bd) != 0) {
            ok = 0;
            break;
        }
        g->bd.not_recorded_gpu = g->gpu;
        if (unrec_ms > unrec_longest) {
            unrec_longest = unrec_ms;
            unrec_gpu = g->gpu;
        }
        if (!isfinite(base[i])) {
            g->bd.valid = 0;               /* no signal at all */
            continue;
        }
        window_base = fmax_inline(window_base, base[i]);
        any = 1;
        nsignal++;
    }
    /* how fast each GPU computed (slow_clock.h): its own compute against its clock */
    for (int i = 0; ok && i < w->ngpu; i++) {
        int k = 0;
        while (k < wt->ngpu && wt->gpu_id[k] != w->gpu[i].gpu)
            k++;
        if (k < wt->ngpu && wt->ngpu_samples[k] > 0 && w->gpu[i].bd.valid)
            slow_clock_gpu(&gtl[i], wt->gpu[k], wt->ngpu_samples[k], wt->medium_every_tick[k], t0, d,
                           &w->gpu[i]);
    }
    if (ok && any)
        ok = classify(gtl, w->ngpu, cpu, d, window_base, nkernels == nsignal, bw, &w->bd) == 0;
    w->bd.not_recorded_gpu = unrec_gpu;
    if (ok && any)
        top_thread(w, wt->host, wt->nhost, t0, d, names, nnames);
    if (ok && any)
        cpu_side_overlap(cpu, &w->bd, &w->cpu_starved_ms, &w->cpu_saturated_ms);
    if (!ok || !any)
        breakdown_release(&w->bd);
    /* a GPU with kernels: its idle gaps between them by the CPU side, and
     * by the window's segments, which the thread states are folded into */
    for (int i = 0; ok && i < w->ngpu; i++)
        if (w->gpu[i].kernel_dev && w->gpu[i].kernel_gaps)
            kernels_gap_split(&gtl[i], cpu, &w->bd, d, w->gpu[i].kernel_gaps);
}

void breakdown_window(const struct analysis_options *o, struct window *w,
                      const struct sensor_cadence *cad, char (*names)[40], int nnames,
                      struct breakdown_work *bw)
{
    struct breakdown_work own;         /* without a caller's: this call's alone */
    if (!bw) {
        memset(&own, 0, sizeof own);
        bw = &own;
    }
    window_breakdown(o, w, cad, names, nnames, bw);
    if (bw == &own)
        work_release(&own);
}

/* Several hosts: each GPU's breakdown was made on its own host, against
 * that host's CPU. The window's is rebuilt from them: compute when any GPU
 * computes, else host-cpu when any GPU's host was busy, else waiting. */
void breakdown_merge_gpus(const struct analysis_options *o, struct window *w)
{
    double d = w->duration_s * 1e3, base = 0, unrec_longest = 0;
    int any = 0, unrec_gpu = -1;
    struct timeline *gtl = calloc((size_t)(w->ngpu ? w->ngpu : 1), sizeof *gtl);
    struct timeline cpu = { 0 };
    for (int i = 0; gtl && i < w->ngpu; i++) {
        const struct breakdown *b = &w->gpu[i].bd;
        if (!b->valid)
            continue;
        any = 1;
        base = fmax_inline(base, b->resolution_ms);
        if (b->ms[CLASS_NOT_RECORDED] > unrec_longest) {
            unrec_longest = b->ms[CLASS_NOT_RECORDED];
            unrec_gpu = b->not_recorded_gpu;
        }
        for (int k = 0; k < b->nseg; k++)
            tl_push(&gtl[i], b->seg[k].start_ms, b->resolution_ms,
                    b->seg[k].cls == CLASS_COMPUTE ? ST_BUSY : b->seg[k].cls == CLASS_COLLECTIVE ? ST_COLL
                    : b->seg[k].cls == CLASS_HOST_CPU ? ST_NONE
                    : b->seg[k].cls == CLASS_NOT_RECORDED ? ST_UNREC : b->seg[k].reason ? ST_SPIN : ST_IDLE);
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
            edges_sort(x, m);
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
        struct breakdown bd = { 0 };
        struct breakdown_work bw = { 0 };
        if (classify(gtl, w->ngpu, &cpu, d, base, 0, &bw, &bd) == 0) {
            breakdown_release(&w->bd);
            w->bd = bd;
            w->bd.not_recorded_gpu = unrec_gpu;
        }
        work_release(&bw);
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
    if (first - second >= fmax_inline(2 * w->bd.resolution_ms, 0.2 * d)) {
        *straggler = top;
        return PATTERN_STRAGGLER;
    }
    return PATTERN_UNEVEN;
}

const char *breakdown_segments_text(const struct breakdown *bd, int max_shown, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    if (bd->outline_of > 0)
        len = num_format_append(buf, cap, len, "an outline of %d: ", bd->outline_of);
    for (int i = 0; i < bd->nseg && len < cap; i++) {
        if (i == max_shown) {
            len = num_format_append(buf, cap, len, ", ... %d more", bd->nseg - i);
            break;
        }
        const struct segment *s = &bd->seg[i];
        len = num_format_append(buf, cap, len, "%s%s%s%s%s %.0f-%.0f ms", i ? ", then " : "",
                                time_class_name(s->cls), s->reason ? " (" : "", s->reason ? s->reason : "",
                                s->reason ? ")" : "", s->start_ms, s->end_ms);
    }
    return buf;
}

const char *breakdown_reason(const struct breakdown *bd)
{
    const char *best = NULL;
    double best_ms = 0;
    for (int i = 0; bd->valid && i < bd->nseg; i++) {
        const char *r = bd->seg[i].reason;
        if (!r)
            continue;
        double ms = 0;                   /* this reason's whole time, over every segment */
        for (int k = 0; k < bd->nseg; k++)
            if (bd->seg[k].reason == r)
                ms += bd->seg[k].end_ms - bd->seg[k].start_ms;
        if (ms > best_ms) {
            best = r;
            best_ms = ms;
        }
    }
    return best;
}

const char *time_class_name(enum time_class c)
{
    static const char *const names[CLASS_COUNT] = { "compute", "host-cpu", "waiting", "not-recorded",
                                                    "collective" };
    return (unsigned)c < CLASS_COUNT ? names[c] : "?";
}
