/*
 * kernels_busy.c — see kernels_busy.h.
 *
 * Why kernels replace the sensors here: NVML's utilization, power and
 * GpuIdle reason describe a GPU after the fact, over periods of 20 ms to
 * 1 s; a traced kernel's start and end are stamped to the ns. Where a
 * window has kernels on a GPU, whether that GPU computed at an instant is
 * whether a kernel ran then, and the breakdown's edges there are as fine
 * as the stamps (KERNELS_EDGE_RES_MS). The host side (host-cpu or waiting
 * in the GPU's idle time) is decided exactly as without kernels.
 *
 * Collectives: CUPTI sees an NCCL kernel run but cannot tell moving data
 * from waiting on a peer, so its time is a class of its own, never
 * compute. The kernels file keeps the union of all kernels and that of the
 * collectives, not that of the other kernels alone: an instant covered by
 * a collective is collective even when another stream's kernel ran beside
 * it (overlapped communication reads as collective, never as compute).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_side.h"
#include "kernels_busy.h"

/* Appends [a, b] ns (clipped to the window) as st, idle before it. */
static int push_span(struct timeline *out, double t0_ns, double d, int64_t a, int64_t b, unsigned char st)
{
    double x0 = fmax(((double)a - t0_ns) / 1e6, 0), x1 = fmin(((double)b - t0_ns) / 1e6, d);
    if (x1 <= x0)
        return 0;
    if (out->n == 0 && x0 > 0 && tl_push(out, 0, 0, ST_IDLE) != 0)
        return -1;
    if (tl_push(out, x0, KERNELS_EDGE_RES_MS, st) != 0)
        return -1;
    return x1 < d ? tl_push(out, x1, KERNELS_EDGE_RES_MS, ST_IDLE) : 0;
}

int kernels_gpu_timeline(const struct kernels_device *kd, double t0_ns, double d, struct timeline *out)
{
    double t1_ns = t0_ns + d * 1e6;
    long c = 0;
    for (long i = 0; i < kd->nbusy; i++) {
        const struct kernels_span *b = &kd->busy[i];
        if ((double)b->t1 <= t0_ns || (double)b->t0 >= t1_ns)
            continue;
        /* the busy piece less the collectives inside it (both unions sorted) */
        int64_t at = b->t0;
        while (c < kd->ncoll && kd->coll[c].t1 <= at)
            c++;
        for (long j = c; j < kd->ncoll && kd->coll[j].t0 < b->t1; j++) {
            int64_t c0 = kd->coll[j].t0 > at ? kd->coll[j].t0 : at;
            int64_t c1 = kd->coll[j].t1 < b->t1 ? kd->coll[j].t1 : b->t1;
            if (push_span(out, t0_ns, d, at, c0, ST_BUSY) != 0
                || push_span(out, t0_ns, d, c0, c1, ST_COLL) != 0)
                return -1;
            at = c1;
        }
        if (push_span(out, t0_ns, d, at, b->t1, ST_BUSY) != 0)
            return -1;
    }
    if (out->n == 0 && tl_push(out, 0, 0, ST_IDLE) != 0)
        return -1;
    tl_close(out, d);
    return 0;
}

/* Walks the gap span [from, to] cut at every edge of kern, of cpu and of
 * win's segments: each piece where kern is idle is host-cpu or waiting by
 * cpu at its middle, exactly as the breakdown classes that GPU's idle time
 * (breakdown.c, classify), and a waiting piece lies in one segment. */
void kernels_gap_split(const struct timeline *kern, const struct timeline *cpu, const struct breakdown *win,
                       double d, struct kernel_gaps *out)
{
    memset(out, 0, sizeof *out);
    int first = -1, last = -1;
    for (int k = 0; k < kern->n; k++)
        if (kern->st[k] != ST_IDLE) {
            if (first < 0)
                first = k;
            last = k;
        }
    if (first < 0 || last <= first + 1)
        return;                          /* no idle interval between two busy ones */
    double from = kern->x[first + 1], to = fmin(kern->x[last], d);
    long nx = kern->n + cpu->n + win->nseg + 1, m = 0;
    struct edge *x = malloc(sizeof *x * (size_t)nx);
    if (!x)
        return;
    x[m++] = (struct edge){ to, 0, 0 };
    for (int k = first + 2; k < last; k++)
        x[m++] = (struct edge){ kern->x[k], 0, 0 };
    for (int k = 1; k < cpu->n; k++)
        if (cpu->x[k] > from && cpu->x[k] < to)
            x[m++] = (struct edge){ cpu->x[k], 0, 0 };
    for (int s = 1; s < win->nseg; s++)
        if (win->seg[s].start_ms > from && win->seg[s].start_ms < to)
            x[m++] = (struct edge){ win->seg[s].start_ms, 0, 0 };
    edges_sort(x, m);
    int seg = 0;
    double prev = from;
    for (long i = 0; i < m; i++) {
        if (x[i].x <= prev)
            continue;
        double mid = (prev + x[i].x) / 2, len = x[i].x - prev;
        prev = x[i].x;
        if (tl_at(kern, mid) != ST_IDLE)
            continue;
        if (cpu_side_busy(tl_at(cpu, mid))) {
            out->host_cpu_ms += len;
            continue;
        }
        out->waiting_ms += len;
        while (seg < win->nseg && win->seg[seg].end_ms <= mid)
            seg++;
        if (seg < win->nseg && seg < KERNELS_GAP_SEGMENTS && win->seg[seg].start_ms <= mid)
            out->waiting_seg_ms[seg] += len;
        else
            out->waiting_unseg_ms += len;
    }
    free(x);
}

void kernels_nvml_check(const struct timeline *kern, const struct timeline *nvml, double d,
                        double nvml_res, struct window_gpu *g)
{
    long nx = kern->n + nvml->n;
    struct edge *x = malloc(sizeof *x * (size_t)(nx ? nx : 1));
    if (!x)
        return;
    long m = 0;
    for (int k = 1; k < kern->n; k++)
        x[m++] = (struct edge){ kern->x[k], kern->res[k], 0 };
    for (int k = 1; k < nvml->n; k++)
        x[m++] = (struct edge){ nvml->x[k], nvml->res[k], 0 };
    edges_sort(x, m);
    struct edge_walk ew = { x, m, 0, 0, 0 };
    double next, next_res, idle_ms = 0, busy_ms = 0;
    while (edge_next(&ew, d, &next, &next_res)) {
        double mid = (ew.prev + next) / 2, len = next - ew.prev;
        unsigned char k = tl_at(kern, mid), n = tl_at(nvml, mid);
        if (k != ST_IDLE && n == ST_IDLE)
            idle_ms += len;
        else if (k == ST_IDLE && n == ST_BUSY)
            busy_ms += len;
        ew.prev = next;
        ew.prev_res = next_res;
    }
    free(x);
    g->kernels_nvml_idle_ms = idle_ms;
    g->nvml_busy_no_kernels_ms = busy_ms;
    /* each NVML edge may sit nvml_res off the truth: up to twice that
     * (both edges of a busy stretch) is the sensors' cadence, not a
     * disagreement */
    g->nvml_check_ms = isfinite(nvml_res) ? fmax(2 * nvml_res, 1.0) : 1.0;
}
