/*
 * verdict.c — see verdict.h.
 *
 * The power fraction f = (P - idle) / (busy - idle) places a window's mean
 * power in the GPU's own range; f >= compute_frac is compute, f <= idle_frac
 * is an idle GPU, which is host-cpu when the traced process (or the whole
 * host) was busy and waiting otherwise; between the two is mixed. Several
 * GPUs: the busiest GPU decides (one GPU computing is compute).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "num_format.h"
#include "analysis_internal.h"
#include "breakdown.h"
#include "segment_merge.h"
#include "verdict.h"

void power_hist_add(struct power_hist *h, double watts)
{
    if (isnan(watts))
        return;
    /* Clamp before converting: a double beyond long's range has no
     * defined conversion (1e308 W used to land in the 0 W bin). */
    double x = watts * 2;
    long b = x < 0 ? 0 : x >= POWER_HIST_BINS ? POWER_HIST_BINS - 1 : (long)x;
    h->bin[b]++;
    h->n++;
}

double power_hist_percentile(const struct power_hist *h, double p)
{
    if (h->n == 0)
        return NAN;
    long want = (long)ceil(p / 100.0 * (double)h->n);
    if (want < 1)
        want = 1;
    long seen = 0;
    for (long b = 0; b < POWER_HIST_BINS; b++) {
        seen += h->bin[b];
        if (seen >= want)
            return (double)b / 2;
    }
    return (double)(POWER_HIST_BINS - 1) / 2;
}

/* A busy level is only useful when it stands clearly above idle. */
static int range_ok(double idle, double busy)
{
    return !isnan(idle) && !isnan(busy) && busy - idle >= fmax(20.0, 0.2 * idle);
}

/* The idle level is the 5th percentile of the power of the samples in
 * which utilization did not say the GPU was busy: a GPU kept busy through
 * the whole trace has no idle sample, and its lowest power is no idle level
 * (a GPU at 500 W and 100% utilization throughout was called idle, and
 * steady memory-bound decode, utilization 100% at a third of the busy
 * power, pulled the idle level up to it). Without a quiet sample there is
 * no level: power then has no say, utilization decides. */
void verdict_levels(const struct power_hist *h, const struct power_hist *quiet,
                    double power_limit_w, double *idle_w, double *busy_w, const char **origin)
{
    if (quiet && h->n > 0 && quiet->n == 0) {
        *idle_w = *busy_w = NAN;
        *origin = "none (utilization above 5% in every sample: the GPU never idled)";
        return;
    }
    double idle = power_hist_percentile(quiet ? quiet : h, 5);
    double busy = power_hist_percentile(h, 95);
    *origin = "trace p5/p95";
    if (!range_ok(idle, busy)) {
        busy = power_hist_percentile(h, 100);
        *origin = "trace p5/max";
    }
    if (!range_ok(idle, busy) && !isnan(power_limit_w) && range_ok(idle, power_limit_w)) {
        busy = power_limit_w;
        *origin = "trace p5/power limit";
    }
    if (!range_ok(idle, busy)) {
        busy = NAN;
        *origin = "trace p5 (no busy level: power never left idle)";
    }
    *idle_w = idle;
    *busy_w = busy;
}

double energy_uncertainty_j(const struct window_gpu *g, double duration_s)
{
    double range = g->busy_w - g->idle_w;
    if (isnan(range))
        range = isnan(g->mean_power_w) ? 0 : g->mean_power_w;
    switch (g->source) {
    case SOURCE_COUNTER:
        return (isnan(g->counter_step_s) ? 0 : g->counter_step_s) * g->mean_power_w;
    case SOURCE_ESTIMATE:
        return g->estimate_unc_j;
    case SOURCE_INSTANT:
        return g->max_gap_s * range / 2;
    case SOURCE_AVERAGE:
        /* A 1 s trailing average smears up to a second of the busy range into
         * or out of the window. */
        return range * fmin(duration_s, 1.0);
    case SOURCE_NONE:
        break;
    }
    return NAN;
}

const char *clock_reason_name(int bit)
{
    switch (1u << bit) {
    case 0x4: return "sw power cap";
    case 0x8: return "hw slowdown";
    case 0x20: return "sw thermal slowdown";
    case 0x40: return "hw thermal slowdown";
    case 0x80: return "hw power brake";
    }
    return NULL;
}

static size_t add(char *buf, size_t cap, size_t len, const char *fmt, double a, double b, double c)
{
    if (len < cap)
        len = num_format_append(buf, cap, len, fmt, a, b, c);
    return len;
}

/* Why a window cannot be judged, or NULL. */
static const char *inconclusive_reason(const struct window *w)
{
    if (w->flags & WINDOW_NO_POWER)
        return "no power readings in the window";
    if (w->flags & WINDOW_INCOMPLETE)
        return "the window runs past the last sample";
    if (w->flags & WINDOW_BEFORE_TRACE)
        return "the window starts before the first sample";
    if (w->flags & WINDOW_FEW_SAMPLES)
        return "fewer than two samples in the window";
    if (w->flags & WINDOW_UNDER_STEP)
        return "the window is shorter than the energy counter's update step";
    if (w->flags & WINDOW_UNDER_POWER_PERIOD)
        return "the window's energy comes from instantaneous power, which refreshes less often than "
               "the window lasts";
    if (w->flags & WINDOW_UNDER_UTIL)
        return "the window is shorter than the utilization sensor's update period, so its gpu util "
               "describes mostly the time before it";
    return NULL;
}

/* "SEP41% waiting (300 ms)" (terse: without the ms) for class k. */
static size_t class_part(const struct breakdown *bd, enum time_class k, double dur_ms, const char *sep, char *buf,
                         size_t cap, size_t len, int terse)
{
    len = num_format_append(buf, cap, len, "%s%.0f%% %s", sep, 100 * bd->ms[k] / dur_ms, time_class_name(k));
    if (!terse && len < cap)
        len = num_format_append(buf, cap, len, " (%.0f ms)", bd->ms[k]);
    return len;
}

/* "41% waiting (300 ms), then 59% compute (424 ms), edges +-1 ms": the
 * classes in order of first appearance in a segment longer than the edges'
 * resolution, then those seen only in shorter ones, then (an outline of a
 * flickering window) those it absorbed whole; "then" only when they
 * really come one after another, else "37% waiting (93 ms), 63% host-cpu
 * (160 ms), interleaved" (segment_merge.h). */
static size_t breakdown_parts(const struct breakdown *bd, double dur_ms, char *buf, size_t cap, size_t len,
                              int terse)
{
    int seen[CLASS_COUNT] = { 0 }, nclass = 0;
    int in_order = segments_in_order(bd);
    for (int j = 0; j < 2 * bd->nseg && len < cap; j++) {
        int i = j % bd->nseg, placed = j < bd->nseg;
        if (placed && !segment_placed(bd, i))
            continue;                     /* the first pass: placed segments only */
        enum time_class k = bd->seg[i].cls;
        if (seen[k]++)
            continue;
        const char *sep = !nclass ? "" : placed && in_order ? ", then " : ", ";
        nclass++;
        len = class_part(bd, k, dur_ms, sep, buf, cap, len, terse);
    }
    for (int k = 0; bd->outline_of > 0 && k < CLASS_COUNT && len < cap; k++)
        if (!seen[k] && bd->ms[k] > 0)
            len = class_part(bd, (enum time_class)k, dur_ms, nclass++ ? ", " : "", buf, cap, len, terse);
    if (!in_order && nclass > 1 && len < cap)
        len = num_format_append(buf, cap, len, ", interleaved");
    if (len < cap && !terse)
        len = num_format_append(buf, cap, len, ", edges +-%.0f ms", bd->resolution_ms);
    return len;
}

/* Whose CPU the host-cpu time was (cpu_side.h). A starved job: its threads'
 * run-queue delay, and whether the host was saturated (then other processes
 * held the CPUs; which ones is not recorded: naming them would take a scan
 * of every process every tick). A traced job on a saturated host that was
 * not host-cpu: the load was not the job's. No traced tree: the job's CPU is
 * unknown and host-cpu was the whole host's saturation. */
static size_t cpu_side_text(const struct analysis_options *o, const struct window *w, char *buf,
                            size_t cap, size_t len)
{
    int saturated = !isnan(w->host_cpu_pct) && w->host_cpu_pct >= o->cpu_busy_pct;
    if (len >= cap || !w->bd.valid)
        return len;
    if (w->cpu_tree_known && w->cpu_starved_ms > 0)
        return len + (size_t)snprintf(buf + len, cap - len, "; CPU-starved %.0f ms: the job's threads "
                                      "waited %.0f ms for a CPU%s", w->cpu_starved_ms, w->cpu_runq_ms,
                                      saturated ? " while other processes held them"
                                                : " (the host not saturated: pinned cores, a CPU quota or "
                                                  "priority)");
    if (w->cpu_tree_known && saturated)
        return len + (size_t)snprintf(buf + len, cap - len, isnan(w->cpu_runq_ms)
                                      ? "; host saturated by other work, not the job's CPU"
                                      : "; host saturated by other work, not the job's CPU (its threads "
                                        "waited %.0f ms for one)", w->cpu_runq_ms);
    if (!w->cpu_tree_known && w->cpu_saturated_ms > 0)
        return len + (size_t)snprintf(buf + len, cap - len, "; the job's CPU is unknown (no traced "
                                      "process: --pid or -- CMD): host-cpu is the whole host >= %.0f%% "
                                      "busy", o->cpu_busy_pct);
    return len;
}

static size_t pattern_text(const struct analysis_options *o, const struct window *w, char *buf,
                           size_t cap, size_t len)
{
    int top;
    enum gpu_pattern p = breakdown_pattern(o, w, &top);
    if (p == PATTERN_NONE || len >= cap)
        return len;
    if (p == PATTERN_ALL_COMPUTE)
        return len + (size_t)snprintf(buf + len, cap - len, "; gpus: all computing");
    if (p == PATTERN_ALL_WAITING)
        return len + (size_t)snprintf(buf + len, cap - len, "; gpus: all idle");
    if (p == PATTERN_STRAGGLER) {
        double others = 0;
        for (int i = 0; i < w->ngpu; i++)
            if (i != top)
                others = fmax(others, w->gpu[i].bd.ms[CLASS_COMPUTE]);
        return len + (size_t)snprintf(buf + len, cap - len,
                                      "; gpus: gpu %d computes %.0f ms, the others %.0f ms at most and "
                                      "wait (a straggler)", w->gpu[top].gpu,
                                      w->gpu[top].bd.ms[CLASS_COMPUTE], others);
    }
    len += (size_t)snprintf(buf + len, cap - len, "; gpus: compute");
    for (int i = 0; i < w->ngpu && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%.0f%%", i ? "/" : " ",
                                100 * w->gpu[i].bd.ms[CLASS_COMPUTE] / (w->duration_s * 1e3));
    return len;
}

/* The old rule on the window's mean power, for a window without a
 * breakdown (no per-instant signal at all). */
static enum verdict power_rule(const struct analysis_options *o, const struct window *w, double f)
{
    if (f >= o->compute_frac)
        return VERDICT_COMPUTE;
    if (f > o->idle_frac)
        return VERDICT_MIXED;
    int proc_busy = !isnan(w->proc_cores) && w->proc_cores >= o->proc_busy_cores;
    /* with a traced tree only its own CPU counts (cpu_side.h) */
    int host_busy = isnan(w->proc_cores) && !isnan(w->host_cpu_pct) && w->host_cpu_pct >= o->cpu_busy_pct;
    return proc_busy || host_busy ? VERDICT_HOST_CPU : VERDICT_WAITING;
}

size_t verdict_parts_text(const struct breakdown *bd, double dur_ms, char *buf, size_t cap)
{
    if (cap)
        buf[0] = '\0';
    return bd->valid && bd->nseg > 0 ? breakdown_parts(bd, dur_ms, buf, cap, 0, 1) : 0;
}

void verdict_window(const struct analysis_options *o, struct window *w)
{
    size_t cap = EVIDENCE_MAX, len = 0;
    w->evidence[0] = '\0';
    const struct window_gpu *top = NULL;
    double top_f = -INFINITY;
    for (int i = 0; i < w->ngpu; i++) {
        const struct window_gpu *g = &w->gpu[i];
        /* busy == idle (a flat trace) gives no range to place the power in */
        double f = (g->mean_power_w - g->idle_w) / (g->busy_w - g->idle_w);
        if (isfinite(f) && f > top_f) {
            top_f = f;
            top = g;
        }
    }
    double dur_ms = w->duration_s * 1e3;
    const char *why = inconclusive_reason(w);
    char short_why[160];
    for (int i = 0; i < w->ngpu && (w->flags & WINDOW_BEFORE_TRACE); i++)
        if (w->gpu[i].joined_late) {
            snprintf(short_why, sizeof short_why, "gpu %d joined the recording after the window "
                     "started (--gpu auto): what it did before is unknown", w->gpu[i].gpu);
            why = short_why;
            break;
        }
    if (!why && w->bd.valid && dur_ms < w->bd.resolution_ms) {
        snprintf(short_why, sizeof short_why, "the window (%.0f ms) is shorter than the breakdown's "
                 "resolution (+-%.0f ms, from the sensors' cadence)", dur_ms, w->bd.resolution_ms);
        why = short_why;
    }
    if (!why && !top && !w->bd.valid)
        why = "no busy power level known (use --busy-w)";
    if (why) {
        w->verdict = VERDICT_INCONCLUSIVE;
        snprintf(w->evidence, cap, "%s", why);
        len = strlen(w->evidence);
    } else if (w->bd.valid) {
        w->verdict = VERDICT_MIXED;
        for (int k = 0; k < CLASS_NOT_RECORDED; k++)
            if (w->bd.ms[k] >= o->class_frac * dur_ms)
                w->verdict = k == CLASS_COMPUTE ? VERDICT_COMPUTE
                             : k == CLASS_HOST_CPU ? VERDICT_HOST_CPU : VERDICT_WAITING;
    } else {
        w->verdict = power_rule(o, w, top_f);
    }
    if (!why && w->bd.valid)
        len = breakdown_parts(&w->bd, dur_ms, w->evidence, cap, len, 0);
    if (!top && w->ngpu > 0 && !isnan(w->gpu[0].mean_power_w))
        top = &w->gpu[0];
    if (top) {
        if (len)
            len = add(w->evidence, cap, len, "; ", 0, 0, 0);
        if (isfinite(top_f)) {
            double pct = round(100 * top_f);     /* no "-0%": below idle reads "idle 75 W - 3%" */
            len = add(w->evidence, cap, len, pct < 0 ? "power %.0f W = idle %.0f W - %.0f%% of the busy range"
                                                     : "power %.0f W = idle %.0f W + %.0f%% of the busy range",
                      top->mean_power_w, top->idle_w, fabs(pct));
        }
        else
            len = add(w->evidence, cap, len, "power %.0f W", top->mean_power_w, 0, 0);
        if (w->ngpu > 1)
            len = add(w->evidence, cap, len, " (gpu %.0f)", top->gpu, 0, 0);
        if (!isnan(top->util_pct))
            len = add(w->evidence, cap, len, "; gpu util %.0f%%", top->util_pct, 0, 0);
    }
    if (!why)
        len = pattern_text(o, w, w->evidence, cap, len);
    if (!isnan(w->host_cpu_pct))
        len = add(w->evidence, cap, len, "; cpu %.0f%%", w->host_cpu_pct, 0, 0);
    if (!isnan(w->proc_cores))
        len = add(w->evidence, cap, len, "; process %.2f cores", w->proc_cores, 0, 0);
    if (!why)
        len = cpu_side_text(o, w, w->evidence, cap, len);
    if (w->bd.valid && !isnan(w->top_thread_cores) && len < cap) {
        int gil = w->top_thread_cores >= 0.9;
        len += (size_t)snprintf(w->evidence + len, cap - len, "; %s thread '%s' %.2f of a core while no GPU "
                                "computed%s", gil ? "one" : "busiest", w->top_thread[0] ? w->top_thread : "(unnamed)",
                                w->top_thread_cores, gil ? ": a single-thread (GIL-bound) bottleneck" : "");
    }
    if ((w->flags & WINDOW_NEAR_END) && len < cap)
        len += (size_t)snprintf(w->evidence + len, cap - len, "; near-end: the trace stopped before "
                                "the energy counter updated 3 times after an edge, so the energy "
                                "is the interpolated counter, +- about a counter step (record "
                                "lingers for them unless --linger-ms 0)");
    for (int b = 0; top && b < ANALYSIS_REASON_BITS; b++) {
        const char *name = clock_reason_name(b);
        if (name && top->reason_counts[b] && len < cap)
            len += (size_t)snprintf(w->evidence + len, cap - len, "; %s in %u of %ld samples",
                                    name, top->reason_counts[b], top->samples);
    }
}

void verdict_summary(const struct analysis_options *o, struct analysis *a)
{
    memset(a->verdict_count, 0, sizeof a->verdict_count);
    for (long i = 0; i < a->nwindows; i++)
        a->verdict_count[a->windows[i].verdict]++;
    enum verdict best = VERDICT_INCONCLUSIVE;
    for (int v = 0; v < VERDICT_COUNT; v++)
        if (a->verdict_count[v] > a->verdict_count[best])
            best = (enum verdict)v;
    /* A clear majority (two thirds) names the summary; otherwise mixed. */
    if (a->nwindows == 0)
        best = VERDICT_INCONCLUSIVE;
    else if (3 * a->verdict_count[best] < 2 * a->nwindows)
        best = VERDICT_MIXED;
    a->verdict = best;
    size_t cap = sizeof a->evidence, len = 0;
    len += (size_t)snprintf(a->evidence, cap, "of %ld window%s:", a->nwindows, a->nwindows == 1 ? "" : "s");
    const char *sep = " ";
    for (int v = 0; v < VERDICT_COUNT; v++) {
        if (!a->verdict_count[v] || len >= cap)
            continue;
        int mostly = v == VERDICT_COMPUTE || v == VERDICT_WAITING || v == VERDICT_HOST_CPU;
        len += (size_t)snprintf(a->evidence + len, cap - len, "%s%ld %s%s", sep, a->verdict_count[v],
                                mostly ? "mostly " : "", verdict_name((enum verdict)v));
        sep = ", ";
    }
    /* How much waiting a window holds, over the windows that hold some. */
    double *wait = malloc(sizeof *wait * (size_t)(a->nwindows ? a->nwindows : 1));
    long nwait = 0, pattern[5] = { 0 };
    for (long i = 0; wait && i < a->nwindows; i++) {
        const struct window *w = &a->windows[i];
        if (w->verdict != VERDICT_INCONCLUSIVE && w->bd.valid && w->bd.ms[CLASS_WAITING] > 0)
            wait[nwait++] = w->bd.ms[CLASS_WAITING];
        int top;
        if (w->verdict != VERDICT_INCONCLUSIVE)
            pattern[breakdown_pattern(o, w, &top)]++;
    }
    a->waiting_windows = nwait;
    a->waiting_median_ms = NAN;
    if (nwait) {
        struct stat_summary st = stat_summarize(wait, nwait);
        a->waiting_median_ms = st.median;
        if (len < cap)
            len += (size_t)snprintf(a->evidence + len, cap - len, "; waiting adds a median %.0f ms (over the %ld window%s with any)",
                                    st.median, nwait, nwait == 1 ? "" : "s");
    }
    free(wait);
    static const char *const pname[5] = { NULL, "all computing", "all idle", "a straggler", "uneven" };
    sep = "; gpus: ";
    for (int p = 1; p < 5; p++) {
        if (!pattern[p] || len >= cap)
            continue;
        len += (size_t)snprintf(a->evidence + len, cap - len, "%s%ld %s", sep, pattern[p], pname[p]);
        sep = ", ";
    }
    if (len < cap && !isnan(a->mean_power_w.median))
        snprintf(a->evidence + len, cap - len, "; median power %.0f W", a->mean_power_w.median);
}

const char *verdict_name(enum verdict v)
{
    static const char *const names[VERDICT_COUNT] = {
        "inconclusive", "compute", "waiting", "host-cpu", "mixed",
    };
    return (unsigned)v < VERDICT_COUNT ? names[v] : "?";
}
