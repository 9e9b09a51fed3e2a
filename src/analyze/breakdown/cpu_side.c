/* cpu_side.c — the CPU side's decision per sample interval; see cpu_side.h. */
#include <math.h>
#include <stdlib.h>

#include "cpu_side.h"
#include "fminmax.h"
#include "segment_merge.h"

/* Physically: a thread of the job that wants a CPU is runnable, and a
 * runnable thread is either running (its CPU time grows: cpu_cores) or
 * waiting in a run queue (its run-queue delay grows: runq_cores). So the
 * job's demand for CPU over an interval is the sum, and the job is host-cpu
 * when the sum reaches proc_busy_cores: running (ST_BUSY) when the running
 * part alone does, else starved. What makes this hold on a loaded host is
 * the recorder's figure (proc_runq.h): the kernel reports a wait only when
 * it ends, so a thread kept off the CPUs for 300 ms showed nothing for 300
 * ms and then a jump; the recorder counts a thread seen runnable and not
 * run at two passes as waiting in between, at the pass, so the rate here
 * follows the wait at the passes' resolution, and what arrives late (waits
 * shorter than a pass) is spread back over the time before it
 * (cpu_side_runq_rates). A sleeping job's threads wait a little at each
 * wake-up, more on a loaded host: far below the threshold over a whole
 * interval, and a stretch of it that does reach it between sleeps is
 * dropped when shorter than CPU_STARVED_MIN_MS (cpu_side_settle). */
unsigned char cpu_side_decide(double proc_busy_cores, double cpu_busy_pct, int tree_known,
                              const struct cpu_interval *c)
{
    if (!tree_known)
        return !isnan(c->host_pct) && c->host_pct >= cpu_busy_pct ? CPU_ST_SATURATED : ST_IDLE;
    if (isnan(c->cpu_cores))
        return ST_IDLE;
    if (c->cpu_cores >= proc_busy_cores)
        return ST_BUSY;
    /* Running plus waiting: what the job would have run with the CPUs to
     * itself. A little delay comes with every wake-up (a sleeping job's
     * threads wait microseconds each time); it stays far below the
     * threshold, which is in cores like the running part. */
    if (!isnan(c->runq_cores) && c->runq_cores > 0 && c->cpu_cores + c->runq_cores >= proc_busy_cores)
        return CPU_ST_STARVED;
    return ST_IDLE;
}

void cpu_side_settle(struct timeline *tl, int tree_known)
{
    if (!tree_known)
        segment_merge_short(tl, CPU_HOST_PCT_RES_MS);
    else
        segment_merge_isolated(tl, CPU_ST_STARVED, ST_IDLE, CPU_STARVED_MIN_MS);
}

int cpu_side_busy(unsigned char st)
{
    return st == ST_BUSY || st == CPU_ST_STARVED || st == CPU_ST_SATURATED;
}

void cpu_side_overlap(const struct timeline *cpu, const struct breakdown *bd, double *starved_ms,
                      double *saturated_ms)
{
    *starved_ms = *saturated_ms = 0;
    for (int s = 0; s < bd->nseg; s++) {
        const struct segment *sg = &bd->seg[s];
        if (sg->cls != CLASS_HOST_CPU)
            continue;
        for (int k = 0; k < cpu->n; k++) {
            double ov = fmin(sg->end_ms, cpu->x[k + 1]) - fmax(sg->start_ms, cpu->x[k]);
            if (ov <= 0)
                continue;
            if (cpu->st[k] == CPU_ST_STARVED)
                *starved_ms += ov;
            else if (cpu->st[k] == CPU_ST_SATURATED)
                *saturated_ms += ov;
        }
    }
}

void cpu_side_runq_rates(const struct host_sample *h, long n, double *rate)
{
    for (long j = 0; j < n; j++)
        rate[j] = NAN;
    long prev = -1;              /* the last reading */
    double flat_from = NAN;      /* where the time since the last growth begins (s) */
    for (long k = 0; k < n; k++) {
        if (isnan(h[k].runq_s))
            continue;
        double tk = (double)h[k].t / 1e9;
        if (prev < 0) {
            prev = k;
            flat_from = tk;
            continue;
        }
        double g = fmax_inline(h[k].runq_s - h[prev].runq_s, 0);
        double from = g > 0 ? fmax_inline(flat_from, tk - g) : tk;
        /* the intervals (prev, k]: the growth over [from, tk], none before */
        for (long j = prev + 1; j <= k; j++) {
            double a = (double)h[j - 1].t / 1e9, b = (double)h[j].t / 1e9;
            double ov = g > 0 && tk > from ? fmax_inline(0, fmin_inline(b, tk) - fmax_inline(a, from)) : 0;
            rate[j] = ov > 0 && b > a ? g * ov / (tk - from) / (b - a) : 0;   /* never 0/0 */
        }
        /* ... and what it spreads onto before the previous reading */
        for (long j = prev; g > 0 && j > 0 && (double)h[j].t / 1e9 > from; j--) {
            double a = (double)h[j - 1].t / 1e9, b = (double)h[j].t / 1e9;
            double ov = fmin_inline(b, tk) - fmax_inline(a, from);
            if (ov > 0 && b > a && !isnan(rate[j]))
                rate[j] += g * ov / (tk - from) / (b - a);
        }
        if (g > 0)
            flat_from = tk;
        prev = k;
    }
}
