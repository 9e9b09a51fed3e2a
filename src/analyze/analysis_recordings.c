/*
 * analysis_recordings.c — a file that holds several recordings (`flinch
 * record` appends to its --out): each recording learns its own idle and
 * busy power levels from its own samples, and gets its own summary.
 *
 * Owns: the per-recording level snapshots (ctx.rec_levels) and
 * analysis.by_recording. Why per recording: two runs on differently
 * loaded GPUs (a 700 W run, then a 612 W one) would otherwise share levels
 * learned over both (busy 612 W), and the first run's windows would read
 * as above the busy level. A window never spans two recordings (the
 * reader splits them, analysis.c's new_recording), so each window takes
 * the levels of the recording it lies in.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "verdict.h"

int recording_levels_take(struct ctx *c, int restart)
{
    struct recording_levels *n = realloc(c->rec_levels, sizeof *n * (size_t)(c->nrec_levels + 1));
    if (!n)
        return -1;
    c->rec_levels = n;
    struct recording_levels *l = &n[c->nrec_levels];
    long ends_before = 0;
    for (int r = 0; r < c->nrec_levels; r++)
        ends_before += n[r].unmatched_ends;
    c->nrec_levels++;
    memset(l, 0, sizeof *l);
    l->unmatched_ends = c->pair[0].unmatched_ends - ends_before;
    for (int s = 0; s < ANALYSIS_MAX_GPUS; s++) {
        l->idle[s] = l->busy[s] = NAN;
        l->origin[s] = "none (no power readings in this recording)";
    }
    for (int s = 0; s < c->ngpu; s++) {
        struct gpu_stream *g = &c->gpu[s];
        int inst = g->hist_instant->n > 0;
        verdict_levels(inst ? g->hist_instant : g->hist_average,
                       inst ? g->quiet_instant : g->quiet_average, g->power_limit_w, &l->idle[s],
                       &l->busy[s], &l->origin[s]);
        l->seen[s] = g->hist_instant->n > 0 || g->hist_average->n > 0;
        if (restart) {
            memset(g->hist_instant, 0, sizeof *g->hist_instant);
            memset(g->hist_average, 0, sizeof *g->hist_average);
            memset(g->quiet_instant, 0, sizeof *g->quiet_instant);
            memset(g->quiet_average, 0, sizeof *g->quiet_average);
        }
    }
    return 0;
}

/* The idle window (--idle-window) of recording r that has GPU `id`: its
 * mean power, NAN when none. */
static double idle_window_w(const struct ctx *c, int r, int id)
{
    for (long k = 0; k < c->nidle; k++) {
        const struct window *w = &c->idle[k];
        if (w->recording != r)
            continue;
        for (int i = 0; i < w->ngpu; i++)
            if (w->gpu[i].gpu == id && !isnan(w->gpu[i].mean_power_w))
                return w->gpu[i].mean_power_w;
    }
    return NAN;
}

void recording_levels_get(struct ctx *c, int r, const int *order, double *idle, double *busy,
                          const char **origin)
{
    const struct recording_levels *l =
        r >= 1 && r <= c->nrec_levels ? &c->rec_levels[r - 1] : NULL;
    for (int i = 0; i < c->ngpu; i++) {
        int s = order[i];
        idle[i] = busy[i] = NAN;
        origin[i] = "none (no power readings in this recording)";
        if (l) {
            idle[i] = l->idle[s];
            busy[i] = l->busy[s];
            origin[i] = l->origin[s];
        }
        double iw = idle_window_w(c, r, c->gpu[s].id);
        if (!isnan(iw)) {
            idle[i] = iw;
            origin[i] = "--idle-window";
        }
        if (!isnan(c->opt->idle_w)) {
            idle[i] = c->opt->idle_w;
            origin[i] = "--idle-w";
        }
        if (!isnan(c->opt->busy_w))
            busy[i] = c->opt->busy_w;
    }
}

/* The summary of windows[first .. first + n): what finish_analysis and
 * verdict_summary make for the whole trace, over one recording's windows. */
static void summarize(struct ctx *c, struct recording_result *rr)
{
    struct analysis *a = c->a;
    struct analysis *sub = malloc(sizeof *sub);
    double *v = malloc(sizeof *v * (size_t)(rr->nwindows ? rr->nwindows : 1));
    if (sub && v) {
        *sub = *a;           /* shares a's pointers: only the struct is freed */
        sub->windows = a->windows + rr->first_window;
        sub->nwindows = rr->nwindows;
        const struct window *w = sub->windows;
        for (long i = 0; i < rr->nwindows; i++)
            v[i] = w[i].duration_s;
        sub->duration_s = stat_summarize(v, rr->nwindows);
        for (long i = 0; i < rr->nwindows; i++)
            v[i] = w[i].energy_j;
        sub->energy_j = stat_summarize(v, rr->nwindows);
        for (long i = 0; i < rr->nwindows; i++)
            v[i] = w[i].mean_power_w;
        sub->mean_power_w = stat_summarize(v, rr->nwindows);
        verdict_summary(c->opt, sub);
        rr->duration_s = sub->duration_s;
        rr->energy_j = sub->energy_j;
        rr->mean_power_w = sub->mean_power_w;
        memcpy(rr->verdict_count, sub->verdict_count, sizeof rr->verdict_count);
        rr->waiting_median_ms = sub->waiting_median_ms;
        rr->waiting_windows = sub->waiting_windows;
        rr->verdict = sub->verdict;
        memcpy(rr->evidence, sub->evidence, sizeof rr->evidence);
    } else {
        struct stat_summary none = { NAN, NAN, NAN, NAN };
        rr->duration_s = rr->energy_j = rr->mean_power_w = none;
        rr->waiting_median_ms = NAN;
        rr->verdict = VERDICT_INCONCLUSIVE;
        rr->evidence[0] = '\0';
    }
    free(v);
    free(sub);
}

void recordings_summarize(struct ctx *c, const int *order)
{
    struct analysis *a = c->a;
    int nrec = c->nrec_levels;
    if (a->recordings == 0 || nrec < 2)
        return;
    struct recording_result *rr = calloc((size_t)nrec, sizeof *rr);
    if (!rr)
        return;
    a->by_recording = rr;
    a->nby_recording = nrec;
    size_t n = (size_t)(a->ngpu ? a->ngpu : 1);
    long next = 0;
    for (int r = 1; r <= nrec; r++) {
        struct recording_result *p = &rr[r - 1];
        const struct recording_levels *l = &c->rec_levels[r - 1];
        p->recording = r;
        p->unmatched_starts = l->unmatched_starts;
        p->unmatched_ends = l->unmatched_ends;
        p->first_window = next;
        while (next < a->nwindows && a->windows[next].recording == r)
            next++;
        p->nwindows = next - p->first_window;
        p->idle_w = calloc(n, sizeof *p->idle_w);
        p->busy_w = calloc(n, sizeof *p->busy_w);
        p->level_origin = calloc(n, sizeof *p->level_origin);
        p->gpu_seen = calloc(n, sizeof *p->gpu_seen);
        if (!p->idle_w || !p->busy_w || !p->level_origin || !p->gpu_seen) {
            recordings_free(a);   /* the reports then show the total alone */
            return;
        }
        recording_levels_get(c, r, order, p->idle_w, p->busy_w, p->level_origin);
        for (int i = 0; i < a->ngpu; i++)
            p->gpu_seen[i] = l->seen[order[i]];
        summarize(c, p);
    }
}

void recordings_free(struct analysis *a)
{
    for (int r = 0; r < a->nby_recording; r++) {
        free(a->by_recording[r].idle_w);
        free(a->by_recording[r].busy_w);
        free(a->by_recording[r].level_origin);
        free(a->by_recording[r].gpu_seen);
    }
    free(a->by_recording);
    a->by_recording = NULL;
    a->nby_recording = 0;
}
