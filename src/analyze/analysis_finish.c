/*
 * analysis_finish.c — after the last row: close what can be closed, drop
 * unmatched starts, then per-GPU levels (per recording:
 * analysis_recordings.c) and counter steps, each window's uncertainty and
 * verdict, and the summary percentiles.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "gpm_evidence.h"
#include "pcie_window.h"
#include "breakdown.h"
#include "confidence.h"
#include "sensor_figures.h"
#include "slow_clock.h"
#include "window_texts.h"

/* The longest hold a partial reading may have: the slowest refresh assumed
 * (sensor_figures.h) plus a sample interval or two. */
#define HOLD_POWER_MAX_MS (FIGURE_POWER_REFRESH_MS + 20)
#define HOLD_UTIL_MAX_MS (FIGURE_UTIL_PERIOD_MS + 20)
#include "diag.h"
#include "sort_doubles.h"

/* Moves record j to place[j] for every j (place: a permutation of
 * [0, n)), following each cycle with one record in hand rather than
 * copying them all into a second array. Records finish in the order of
 * their end marks, so with windows one after another there is nothing to
 * move. */
static void put_in_order(struct window *w, long *place, long n)
{
    for (long j = 0; j < n; j++)
        while (place[j] != j) {
            long to = place[j];
            struct window held = w[to];
            w[to] = w[j];
            w[j] = held;
            place[j] = place[to];
            place[to] = to;
        }
}

int finish_trace(struct ctx *c)
{
    if (recording_levels_take(c, 0) != 0) {   /* the last recording's levels */
        diag_error("out of memory");
        return EXIT_RUNTIME;
    }
    for (int s = 0; s < c->ngpu; s++)
        integ_finish(&c->gpu[s].ig);
    integ_finish(&c->host);
    int rc = resolve_pending(c, 1);
    if (rc != EXIT_OK)
        return rc;
    /* Whatever is still active never saw its end mark; the finished
     * windows' records are put in id order (the order of their start
     * marks) where they lie, renumbered without the unmatched and dropped
     * ones. */
    for (int kind = 0; kind < 2; kind++) {
        long nids = c->nids[kind], kept = 0, n = c->nwins[kind];
        long *place = malloc(sizeof *place * (size_t)(n ? n : 1));
        /* a record for an array that may be empty: analysis.windows is
         * never NULL (its recordings' windows are offsets from it) */
        if (!place || map_array_reserve(&c->wins[kind], sizeof(struct window)) != 0) {
            free(place);
            diag_error("out of memory");
            return EXIT_RUNTIME;
        }
        for (long i = 0; i < nids; i++) {
            if (c->act_of[kind][i]) {
                int r = c->act_of[kind][i]->recording;
                active_free(c->act_of[kind][i]);
                c->act_of[kind][i] = NULL;
                if (kind == 0)
                    c->a->unmatched_starts++;
                if (kind == 0 && r >= 1 && r <= c->nrec_levels)
                    c->rec_levels[r - 1].unmatched_starts++;
            }
            if (c->win_of[kind][i] < 0)
                continue;
            place[c->win_of[kind][i]] = kept++;
            c->win_of[kind][i] = -1;
        }
        struct window *arr = c->wins[kind].base;
        put_in_order(arr, place, n);
        free(place);
        for (long k = 0; k < kept; k++)
            arr[k].index = k + 1;
        c->nids[kind] = 0;
        c->nwins[kind] = 0;
        struct map_array taken = c->wins[kind];
        c->wins[kind] = (struct map_array){ NULL, 0 };
        if (kind == 0) {
            map_array_free(&c->a->windows_map);
            c->a->windows_map = taken;
            c->a->windows = arr;
            c->a->nwindows = kept;
        } else {
            map_array_free(&c->idle_map);
            c->idle_map = taken;
            c->idle = arr;
            c->nidle = kept;
        }
    }
    if (c->a->dropped_starts && !c->window_done)
        diag_warn("--max-open %ld reached: %ld oldest open start%s dropped", c->opt->max_open,
                  c->a->dropped_starts, c->a->dropped_starts == 1 ? "" : "s");
    c->nactive = 0;
    c->npend = 0;
    c->a->unmatched_ends = c->pair[0].unmatched_ends;
    return EXIT_OK;
}

/* Nearest-rank percentiles of the non-NAN values (reorders v). */
struct stat_summary stat_summarize(double *v, long n)
{
    long m = 0;
    for (long i = 0; i < n; i++)
        if (!isnan(v[i]))
            v[m++] = v[i];
    struct stat_summary s = { NAN, NAN, NAN, NAN };
    if (m == 0)
        return s;
    sort_doubles(v, m);
    double *p[3] = { &s.median, &s.p90, &s.p99 };
    static const double pct[3] = { 50, 90, 99 };
    for (int i = 0; i < 3; i++) {
        long r = (long)ceil(pct[i] / 100 * (double)m);
        *p[i] = v[r < 1 ? 0 : r - 1];
    }
    s.max = v[m - 1];
    return s;
}

static int cmp_gpu(const void *a, const void *b)
{
    const struct window_gpu *x = a, *y = b;
    return (x->gpu > y->gpu) - (x->gpu < y->gpu);
}

/* Levels, steps, uncertainty and verdict for one window. */
/* Bad sensor data (sensor_faults.h) overlapping the window: flag it, name
 * the first span, and move the energy off a source the fault rules out to
 * the next best one. */
static void apply_faults(struct window *w, struct window_gpu *g, const struct sensor_faults *f)
{
    g->fell_from = SOURCE_NONE;
    int counter_bad = 0, instant_bad = 0;
    for (int i = 0; f && i < f->nspans; i++) {
        const struct fault_span *sp = &f->spans[i];
        if (sp->t0 >= w->t_end_ns || sp->t1 <= w->t_start_ns)
            continue;
        g->flags |= sp->flag;
        if (!g->fault) {
            g->fault = sp->flag;
            g->fault_sensor = sp->sensor;
            g->fault_t0_ns = sp->t0;
            g->fault_t1_ns = sp->t1;
            g->fault_value = sp->value;
        }
        if (sp->sensor == SENSOR_COUNTER)
            counter_bad = 1;
        if (sp->sensor == SENSOR_INSTANT)
            instant_bad = 1;
    }
    int off_counter = counter_bad && (g->source == SOURCE_COUNTER || g->source == SOURCE_ESTIMATE);
    int off_instant = instant_bad && g->source == SOURCE_INSTANT;
    if (!off_counter && !off_instant)
        return;
    g->fell_from = g->source;
    if (!instant_bad && !isnan(g->energy_instant_j)) {
        g->source = SOURCE_INSTANT;
        g->energy_j = g->energy_instant_j;
    } else if (!isnan(g->energy_average_j)) {
        g->source = SOURCE_AVERAGE;
        g->energy_j = g->energy_average_j;
    } else {
        g->source = SOURCE_NONE;
        g->energy_j = NAN;
        g->flags |= WINDOW_NO_POWER;
    }
    g->mean_power_w = g->energy_j / w->duration_s;
}

/* The recorded NVML name of GPU gpu (one trace only), NULL when unknown. */
static const char *gpu_name_of(const struct analysis *a, int gpu)
{
    for (int k = 0; a->nhosts <= 1 && k < a->nidents; k++)
        if (a->idents[k].id == gpu && a->idents[k].name[0])
            return a->idents[k].name;
    return NULL;
}

/* The recorded maximum SM clock of GPU gpu (one trace only), NAN when unknown. */
static double max_sm_clock_of(const struct analysis *a, int gpu)
{
    for (int k = 0; a->nhosts <= 1 && k < a->nidents; k++)
        if (a->idents[k].id == gpu)
            return a->idents[k].max_sm_clock_mhz;
    return NAN;
}

static void finish_one(struct ctx *c, struct window *w, const double *step, const double *idle,
                       const double *busy, const double *util_period,
                       const struct sensor_faults *const *faults)
{
    struct window_text_scratch texts;
    window_texts_begin(&texts, w);
    w->energy_j = 0;
    w->uncertainty_j = 0;
    int any = 0;
    for (int s = 0; s < w->ngpu; s++) {
        struct window_gpu *g = &w->gpu[s];
        g->idle_w = idle[s];
        g->busy_w = busy[s];
        apply_faults(w, g, faults[s]);
        if (g->source == SOURCE_COUNTER || g->source == SOURCE_ESTIMATE) {
            g->counter_step_s = step[s];
            if (!isnan(step[s]) && w->duration_s < step[s])
                g->flags |= WINDOW_UNDER_STEP;
        }
        /* util is a busy fraction over a trailing period: over a shorter
         * window it mostly describes time before the window */
        g->util_period_s = util_period[s];
        if (!isnan(util_period[s]) && !isnan(g->util_pct) && w->duration_s < util_period[s])
            g->flags |= WINDOW_UNDER_UTIL;
        /* energy from instant power over fewer than one of its refreshes */
        const struct cadence *ci = c->a->cadence ? &c->a->cadence[s * SENSOR_N + SENSOR_INSTANT] : NULL;
        if (g->source == SOURCE_INSTANT && ci && !ci->at_most && !isnan(ci->period_s)
            && w->duration_s < ci->period_s)
            g->flags |= WINDOW_UNDER_POWER_PERIOD;
        g->uncertainty_j = energy_uncertainty_j(g, w->duration_s);
        w->flags |= g->flags;
        if (!isnan(g->energy_j)) {
            w->energy_j += g->energy_j;
            w->uncertainty_j += g->uncertainty_j;
            any = 1;
        }
    }
    if (!any) {
        w->energy_j = NAN;
        w->uncertainty_j = NAN;
    }
    w->mean_power_w = w->energy_j / w->duration_s;
    /* the sensors' measured periods (sensor_cadence.h) for the segment
     * edges; an averaging window is not visible in a trace: unknown */
    struct sensor_cadence cad[ANALYSIS_MAX_GPUS];
    for (int s = 0; s < w->ngpu && s < ANALYSIS_MAX_GPUS; s++) {
        const struct cadence *ci = c->a->cadence ? &c->a->cadence[s * SENSOR_N + SENSOR_INSTANT] : NULL;
        const struct cadence *cu = c->a->cadence ? &c->a->cadence[s * SENSOR_N + SENSOR_UTIL] : NULL;
        const struct cadence *ca = c->a->cadence ? &c->a->cadence[s * SENSOR_N + SENSOR_AVERAGE] : NULL;
        /* a sensor that changed at (nearly) every sample is as fast as the
         * sampler: its period is at most the sample interval, no window seen */
        cad[s].power_refresh_ms = ci ? ci->period_s * 1e3 : NAN;
        cad[s].power_window_ms = ci && ci->at_most ? 0 : NAN;
        cad[s].util_period_ms = cu ? cu->period_s * 1e3 : NAN;
        cad[s].average_refresh_ms = ca ? ca->period_s * 1e3 : NAN;
        cad[s].average_window_ms = NAN;
        cad[s].event_lag_ms = NAN;
        /* too few changes to measure: the holds of partial readings (partial_hold.h) */
        if (isnan(cad[s].power_refresh_ms))
            cad[s].power_refresh_ms = c->hold_power_ms[s];
        if (isnan(cad[s].util_period_ms))
            cad[s].util_period_ms = c->hold_util_ms[s];
        /* still unknown: the GPU's documented figures, else conservative ones */
        sensor_figures_settle(&cad[s], gpu_name_of(c->a, w->gpu[s].gpu));
    }
    w->tape = window_tape_open(c, w);
    /* GpuIdle counts only where it is live: a driver that never sets it,
     * or never clears it, says nothing (set by the end of the trace) */
    for (int k = 0; w->tape && k < w->tape->ngpu; k++)
        for (int s = 0; s < c->ngpu; s++)
            if (c->gpu[s].id == w->tape->gpu_id[k])
                w->tape->idle_bit_live[k] = c->gpu[s].idle_bit_seen == 3;
    gpm_window(w);
    if (c->path && !c->window_done && c->a->nhosts <= 1) {    /* not live, one trace */
        if (!c->kernels_loaded) {
            char kpath[4096 + 16];
            snprintf(kpath, sizeof kpath, "%s.kernels", c->path);
            c->kernels = kernels_file_load(kpath);
            c->kernels_loaded = 1;
        }
        kernels_window(c->kernels, c->a, w);
    }
    for (int s = 0; s < w->ngpu; s++)
        w->gpu[s].max_sm_clock_mhz = max_sm_clock_of(c->a, w->gpu[s].gpu);
    if (!c->breakdown_work)
        c->breakdown_work = breakdown_work_new();     /* NULL: each window its own */
    breakdown_window(c->opt, w, w->ngpu <= ANALYSIS_MAX_GPUS ? cad : NULL, c->thread_names,
                     c->nthread_names, c->breakdown_work);
    for (int i = 0; i < w->ngpu; i++) {
        w->gpu[i].kernel_dev = NULL;     /* the spans are c->kernels': not kept past here */
        w->gpu[i].kernel_gaps = NULL;    /* a->kernel_ev moves as it grows */
    }
    pcie_window_copies(c->opt, w);
    w->tape = NULL;
    window_samples_release(c, w);
    for (int i = 0; i < w->ngpu; i++) {
        const struct proc_share_log *log = NULL;
        for (int s = 0; s < c->ngpu; s++)
            if (c->gpu[s].id == w->gpu[i].gpu)
                log = &c->gpu[s].procs;
        proc_share_window(log, w->t_start_ns, w->t_end_ns, &w->gpu[i]);
    }
    verdict_window(c->opt, w);
    kernels_nvml_evidence(w);
    gpm_evidence_append(w);
    proc_share_verdict(w);
    if (c->proc_exit_ns <= w->t_end_ns) {
        size_t len = strlen(w->evidence);
        snprintf(w->evidence + len, EVIDENCE_MAX - len, "; the traced process had exited %s",
                 c->proc_exit_ns <= w->t_start_ns ? "before the window" : "during the window");
    }
    pcie_window_evidence(c->opt, w);
    slow_clock_evidence_append(w);  /* like the power cap, last: the others' clauses first */
    confidence_window(w);        /* last: grades what the stages above left */
    window_texts_keep(w);
}

void finish_analysis(struct ctx *c)
{
    struct analysis *a = c->a;
    int n = c->ngpu;
    double step[ANALYSIS_MAX_GPUS], idle[ANALYSIS_MAX_GPUS], busy[ANALYSIS_MAX_GPUS];
    double util_period[ANALYSIS_MAX_GPUS];
    const struct sensor_faults *faults[ANALYSIS_MAX_GPUS];
    const char *origin[ANALYSIS_MAX_GPUS];
    /* windows list GPUs in stream order; sort them by gpu_index */
    for (long i = 0; i < a->nwindows; i++)
        qsort(a->windows[i].gpu, (size_t)a->windows[i].ngpu, sizeof *a->windows[i].gpu, cmp_gpu);
    for (long i = 0; i < c->nidle; i++)
        qsort(c->idle[i].gpu, (size_t)c->idle[i].ngpu, sizeof *c->idle[i].gpu, cmp_gpu);
    int order[ANALYSIS_MAX_GPUS];
    for (int s = 0; s < n; s++)
        order[s] = s;
    for (int i = 1; i < n; i++)               /* insertion sort by id */
        for (int j = i; j > 0 && c->gpu[order[j - 1]].id > c->gpu[order[j]].id; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    a->ngpu = n;
    a->gpu_ids = calloc(ANALYSIS_MAX_GPUS, sizeof *a->gpu_ids);
    a->idle_w = calloc(ANALYSIS_MAX_GPUS, sizeof *a->idle_w);
    a->busy_w = calloc(ANALYSIS_MAX_GPUS, sizeof *a->busy_w);
    a->level_origin = calloc(ANALYSIS_MAX_GPUS, sizeof *a->level_origin);
    a->cadence = calloc(ANALYSIS_MAX_GPUS * SENSOR_N, sizeof *a->cadence);
    for (int i = 0; i < n; i++) {
        struct gpu_stream *g = &c->gpu[order[i]];
        step[i] = integ_counter_step_s(&g->ig);
        c->hold_power_ms[i] = partial_hold_period_ms(g->hold_power, HOLD_POWER_MAX_MS);
        c->hold_util_ms[i] = partial_hold_period_ms(g->hold_util, HOLD_UTIL_MAX_MS);
        a->gpu_ids[i] = g->id;
        util_period[i] = cadence_get(g->cadence, SENSOR_UTIL).period_s;
        faults_finish(&g->faults, integ_latest_sample(&g->ig));
        faults[i] = &g->faults;
        for (int s = 0; a->cadence && s < SENSOR_N; s++)
            a->cadence[i * SENSOR_N + s] = cadence_get(g->cadence, (enum sensor_id)s);
    }
    /* Levels are learned per recording (analysis_recordings.c); the
     * analysis's own are the first recording's that has the GPU. */
    int nrec = c->nrec_levels > 0 ? c->nrec_levels : 1, have[ANALYSIS_MAX_GPUS] = { 0 };
    for (int r = 1; r <= nrec; r++) {
        recording_levels_get(c, r, order, idle, busy, origin);
        for (int i = 0; i < n; i++) {
            if (have[i] || (r < nrec && !c->rec_levels[r - 1].seen[order[i]]))
                continue;
            have[i] = 1;
            a->idle_w[i] = idle[i];
            a->busy_w[i] = busy[i];
            a->level_origin[i] = origin[i];
        }
    }
    double *v = malloc(sizeof *v * (size_t)(a->nwindows ? a->nwindows : 1));
    for (long i = 0, r = -1; i < a->nwindows; i++) {
        if (a->windows[i].recording != r) {
            r = a->windows[i].recording;
            recording_levels_get(c, (int)r, order, idle, busy, origin);
        }
        finish_one(c, &a->windows[i], step, idle, busy, util_period, faults);
    }
    if (v) {
        for (long i = 0; i < a->nwindows; i++)
            v[i] = a->windows[i].duration_s;
        a->duration_s = stat_summarize(v, a->nwindows);
        for (long i = 0; i < a->nwindows; i++)
            v[i] = a->windows[i].energy_j;
        a->energy_j = stat_summarize(v, a->nwindows);
        for (long i = 0; i < a->nwindows; i++)
            v[i] = a->windows[i].mean_power_w;
        a->mean_power_w = stat_summarize(v, a->nwindows);
        free(v);
    }
    verdict_summary(c->opt, a);
    recordings_summarize(c, order);
}

void free_ctx(struct ctx *c)
{
    for (int s = 0; s < c->ngpu; s++) {
        integ_free(&c->gpu[s].ig);
        est_free(&c->gpu[s].est);
        faults_free(&c->gpu[s].faults);
        free(c->gpu[s].cadence);
        free(c->gpu[s].hist_instant);
        free(c->gpu[s].hist_average);
        free(c->gpu[s].quiet_instant);
        free(c->gpu[s].quiet_average);
        free(c->gpu[s].hold_power);
        free(c->gpu[s].hold_util);
        free(c->gpu[s].gaps.idx);
        free(c->gpu[s].gaps.gap);
        tape_free(&c->gpu[s].tape);
        proc_share_free(&c->gpu[s].procs);
    }
    tape_free(&c->host_tape);
    tape_scratch_free(&c->scratch);
    breakdown_work_free(c->breakdown_work);
    c->breakdown_work = NULL;
    free(c->thread_names);
    kernels_file_free(c->kernels);
    c->kernels = NULL;
    integ_free(&c->host);
    /* dropped windows still on the pending list are only there (before
     * the others, which act_of frees, are gone) */
    for (long i = 0; i < c->npend; i++)
        if (c->pend[i]->dropped)
            active_free(c->pend[i]);
    active_spares_free(c);
    for (int kind = 0; kind < 2; kind++) {
        /* after an error: the windows still open or finished (ids) */
        for (long i = 0; i < c->nids[kind]; i++) {
            active_free(c->act_of[kind][i]);
            window_release(window_of(c, kind, i));
        }
        free(c->act_of[kind]);
        free(c->win_of[kind]);
        map_array_free(&c->wins[kind]);
        pairing_free(&c->pair[kind]);
    }
    if (c->nids[0] && !c->a->windows)
        c->a->nwindows = 0;      /* no records gathered: nothing for analysis_free */
    if (!c->idle)
        c->nidle = 0;
    for (long i = 0; i < c->nidle; i++)
        window_release(&c->idle[i]);
    map_array_free(&c->idle_map);
    free(c->pend);
    free(c->rec_levels);
}

/* The live answer for one window: the same finish_one as at the end of a
 * trace, with each GPU's idle and busy levels from the power readings seen
 * so far (or --idle-w/--busy-w). Its energy and duration are final; its
 * uncertainty and verdict rest on levels that may still move. */
void finish_window_so_far(struct ctx *c, struct window *w, const char **levels_origin)
{
    double step[ANALYSIS_MAX_GPUS], idle[ANALYSIS_MAX_GPUS], busy[ANALYSIS_MAX_GPUS];
    double util_period[ANALYSIS_MAX_GPUS];
    const struct sensor_faults *faults[ANALYSIS_MAX_GPUS];
    struct analysis *a = c->a;
    if (!a->cadence)
        a->cadence = calloc(ANALYSIS_MAX_GPUS * SENSOR_N, sizeof *a->cadence);
    qsort(w->gpu, (size_t)w->ngpu, sizeof *w->gpu, cmp_gpu);
    *levels_origin = "none";
    for (int i = 0; i < w->ngpu && i < ANALYSIS_MAX_GPUS; i++) {
        idle[i] = busy[i] = step[i] = util_period[i] = NAN;
        c->hold_power_ms[i] = c->hold_util_ms[i] = NAN;
        faults[i] = NULL;
        for (int s = 0; s < c->ngpu; s++) {
            struct gpu_stream *g = &c->gpu[s];
            if (g->id != w->gpu[i].gpu)
                continue;
            int inst = g->hist_instant->n > 0;
            const char *origin;
            verdict_levels(inst ? g->hist_instant : g->hist_average,
                           inst ? g->quiet_instant : g->quiet_average, g->power_limit_w, &idle[i],
                           &busy[i], &origin);
            if (!isnan(c->opt->idle_w)) {
                idle[i] = c->opt->idle_w;
                origin = "--idle-w";
            }
            if (!isnan(c->opt->busy_w))
                busy[i] = c->opt->busy_w;
            step[i] = integ_counter_step_s(&g->ig);
            c->hold_power_ms[i] = partial_hold_period_ms(g->hold_power, HOLD_POWER_MAX_MS);
            c->hold_util_ms[i] = partial_hold_period_ms(g->hold_util, HOLD_UTIL_MAX_MS);
            util_period[i] = cadence_get(g->cadence, SENSOR_UTIL).period_s;
            faults[i] = &g->faults;       /* the spans seen so far */
            for (int k = 0; a->cadence && k < SENSOR_N; k++)
                a->cadence[i * SENSOR_N + k] = cadence_get(g->cadence, (enum sensor_id)k);
            if (i == 0)
                *levels_origin = origin;
        }
    }
    finish_one(c, w, step, idle, busy, util_period, faults);
}
