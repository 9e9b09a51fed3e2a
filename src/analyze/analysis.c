/*
 * analysis.c — one streaming pass over a trace: rows feed per-GPU and host
 * integrators (integrate.h), MARKs open and close windows (windows.h), and
 * each window's edges are resolved to cumulative values as soon as the
 * samples around them have been read; at the end, levels, uncertainty and
 * verdicts are computed over the finished windows (verdict.h).
 *
 * Memory: the integrators' rings (fixed), one record per finished window,
 * and a small one (the edge points) per window still being gathered, at
 * most --max-open of them open (the oldest are dropped past that).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "trace_event.h"
#include "trace_limits.h"
#include "analysis_internal.h"
#include "breakdown.h"
#include "cgroup_throttle.h"
#include "clock.h"
#include "diag.h"
#include "labels_seen.h"
#include "tape.h"
#include "verdict.h"
#include "waiting_on.h"
#include "window_texts.h"
/* The identity record of the GPU whose index is the label's `key` value;
 * NULL when the value is no GPU index or the records are full. */
static struct gpu_ident *ident_of(struct analysis *a, const char *label, const char *key)
{
    char v[32];
    if (trace_event_value(label, key, v, sizeof v) != 0)
        return NULL;
    char *end;
    long id = strtol(v, &end, 10);
    if (*end || id < 0 || id > TRACE_MAX_GPU_INDEX)
        return NULL;
    for (int i = 0; i < a->nidents; i++)
        if (a->idents[i].id == id)
            return &a->idents[i];
    if (a->nidents == ANALYSIS_MAX_IDENTS)
        return NULL;
    struct gpu_ident *g = &a->idents[a->nidents++];
    memset(g, 0, sizeof *g);
    g->id = (int)id;
    g->max_sm_clock_mhz = NAN;
    return g;
}

/* The recorder's identity rows: the host (flinch_host), the width of each
 * GPU's PCIe counters (flinch_fields, pcie_counter.h), whether GPM was
 * recorded and if not why (flinch_gpm), why per-process use was not
 * (flinch_proc_util), who each GPU is (flinch_gpu) and a
 * warning when its persistence mode was off (the driver then loads and
 * unloads around each client, and NVML calls can take hundreds of ms:
 * samples come late). */
static void on_event(struct analysis *a, const struct trace_row *r)
{
    char v[64];
    struct gpu_ident *g;
    if (trace_event_is(r->label, EVENT_HOST)) {
        trace_event_value(r->label, "name", a->hostname, sizeof a->hostname);
        trace_event_value(r->label, "driver", a->driver, sizeof a->driver);
        trace_event_value(r->label, "nvml", a->nvml, sizeof a->nvml);
    }
    if (trace_event_is(r->label, EVENT_FIELDS) && (g = ident_of(a, r->label, "gpu")) &&
        trace_event_value(r->label, "pcie_bits", v, sizeof v) == 0)
        g->pcie_bits = strcmp(v, "32") == 0 ? 32 : strcmp(v, "64") == 0 ? 64 : 0;
    if (trace_event_is(r->label, EVENT_PROC_UTIL) && (g = ident_of(a, r->label, "gpu"))) {
        /* per-process GPU use not recorded, and why (proc_share.h) */
        trace_event_value(r->label, "why", g->proc_util_off, sizeof g->proc_util_off);
        return;
    }
    if (trace_event_is(r->label, EVENT_GPM) && (g = ident_of(a, r->label, "gpu"))) {
        /* GPM on, or off and why (the last row of the GPU wins) */
        g->gpm_off[0] = g->gpm_detail[0] = '\0';
        if (trace_event_value(r->label, "status", v, sizeof v) == 0 && strcmp(v, "off") == 0) {
            if (trace_event_value(r->label, "reason", g->gpm_off, sizeof g->gpm_off) != 0)
                snprintf(g->gpm_off, sizeof g->gpm_off, "unknown");
            trace_event_value(r->label, "detail", g->gpm_detail, sizeof g->gpm_detail);
        }
        return;
    }
    if (!trace_event_is(r->label, EVENT_GPU) || !(g = ident_of(a, r->label, "index")))
        return;
    trace_event_value(r->label, "name", g->name, sizeof g->name);
    trace_event_value(r->label, "uuid", g->uuid, sizeof g->uuid);
    trace_event_value(r->label, "pci", g->pci, sizeof g->pci);
    trace_event_value(r->label, "compute_mode", g->compute_mode, sizeof g->compute_mode);
    trace_event_value(r->label, "mig", g->mig, sizeof g->mig);
    trace_event_value(r->label, "power_limit_W", g->power_limit_w, sizeof g->power_limit_w);
    /* the SM clock's ceiling (slow_clock.h); absent in older traces */
    char *end = v;
    double mhz = trace_event_value(r->label, "max_sm_clock_MHz", v, sizeof v) == 0 ? strtod(v, &end) : NAN;
    if (isfinite(mhz) && mhz > 0 && *end == '\0')
        g->max_sm_clock_mhz = mhz;
    if (trace_event_value(r->label, "persistence", v, sizeof v) == 0 && strcmp(v, "off") == 0 &&
        !g->persistence_off) {
        g->persistence_off = 1;
        diag_warn("%s: gpu %d (%s): persistence mode off: NVML calls can be slow (the driver "
                  "may reinitialise the GPU between clients), so samples may be late; "
                  "enable it with nvidia-smi -pm 1", a->path, g->id, g->name[0] ? g->name : "?");
    }
}

static void remember_label(struct analysis *a, const char *label)
{
    labels_seen_add(a->labels_seen, &a->nlabels_seen, label);
}

static int on_mark(struct ctx *c, const struct trace_row *r)
{
    for (int kind = 0; kind < 2; kind++) {
        struct pairing *p = &c->pair[kind];
        if (!p->start_label)
            continue;
        struct pairing_step step;
        long new_id = c->nids[kind];
        if (pairing_on_mark(p, r->label, r->has_attrs ? &r->attrs : NULL, r->t_mono_ns, new_id,
                            &step) != 0) {
            diag_error("out of memory");
            return EXIT_RUNTIME;
        }
        for (long i = 0; i < step.nclosed; i++) {
            struct active *act = find_active(c, kind, step.closed[i]);
            if (act && set_edge(c, act, 1, r) != 0)
                return EXIT_RUNTIME;
        }
        if (step.opens && open_window(c, kind, r) != 0)
            return EXIT_RUNTIME;
        if (step.opens && step.name)
            c->act_of[kind][new_id]->label = step.name;
        /* --max-open: a start whose end never comes must not hold memory
         * (and the tape) forever; the oldest goes, counted (0: no cap,
         * for callers that fill the options by hand) */
        if (kind == 0 && step.opens && c->opt->max_open > 0)
            c->a->dropped_starts += drop_open_over(c, c->opt->max_open);
    }
    return resolve_pending(c, 0);
}

/* A MARK, from the trace or from another host's trace. */
static int feed_mark(struct ctx *c, const struct trace_row *r)
{
    c->a->marks++;
    if (strcmp(r->label, c->opt->start_label) == 0 && !c->seen_start++)
        c->first_start_line = r->line;
    if (strcmp(r->label, c->opt->end_label) == 0) {
        c->seen_end++;
        c->last_end_line = r->line;
    }
    return on_mark(c, r);
}

static int feed_ext_marks(struct ctx *c, long *next, int64_t until)
{
    const struct analysis_options *o = c->opt;
    for (; *next < o->nmarks && o->marks[*next].t_mono_ns <= until; (*next)++) {
        const struct ext_mark *m = &o->marks[*next];
        struct trace_row r;
        memset(&r, 0, sizeof r);
        r.type = TRACE_MARK;
        r.t_mono_ns = m->t_mono_ns;
        r.t_wall_ns = m->t_wall_ns;
        r.label = m->label;
        r.line = m->line;
        int status = feed_mark(c, &r);
        if (status != EXIT_OK)
            return status;
    }
    return EXIT_OK;
}

static void no_window_error(struct ctx *c)
{
    const struct analysis *a = c->a;
    const char *missing = NULL;
    if (!c->seen_start)
        missing = c->opt->start_label;
    else if (!c->seen_end)
        missing = c->opt->end_label;
    if (missing) {
        char seen[512];
        labels_seen_format(a->labels_seen, a->nlabels_seen, seen, sizeof seen);
        if (a->nlabels_seen)
            diag_error("no MARK '%s' in %s (labels seen: %s)", missing, c->path, seen);
        else
            diag_error("no MARK '%s' in %s (no MARK rows at all)", missing, c->path);
        return;
    }
    if (c->opt->range_name) {
        const char *d = c->opt->range_domain;
        diag_error("no window in %s: no MARK '%s'%s%s%s opens a range (start=ID) that a later "
                   "end=ID closes (--range pairs by the mark_attrs column; plain marks need "
                   "--start/--end)", c->path, c->opt->range_name, d ? " in domain '" : "",
                   d ? d : "", d ? "'" : "");
        return;
    }
    diag_error("no window in %s: no '%s' MARK at or after a '%s' MARK (the first '%s' is at line %ld, "
               "the last '%s' at line %ld: end before start)", c->path, c->opt->end_label,
               c->opt->start_label, c->opt->start_label, c->first_start_line, c->opt->end_label,
               c->last_end_line);
}

/* Another recording appended to the file starts (trace_row.starts_recording):
 * nothing is carried across the gap. Every edge still waiting for samples
 * is resolved as at the end of a trace (a window ending after the last
 * sample is incomplete, never interpolated to the next recording's first
 * sample), and a start still open can no longer be closed: an unmatched
 * start. The levels learned so far are the ended recording's. */
static int new_recording(struct ctx *c)
{
    /* the power levels are learned per recording (analysis_recordings.c) */
    if (recording_levels_take(c, 1) != 0) {
        diag_error("out of memory");
        return EXIT_RUNTIME;
    }
    for (int s = 0; s < c->ngpu; s++)
        integ_finish(&c->gpu[s].ig);
    integ_finish(&c->host);
    int rc = resolve_pending(c, 1);
    for (int kind = 0; kind < 2; kind++)
        if (c->pair[kind].start_label)
            pairing_forget_open(&c->pair[kind]);
    c->a->recordings++;
    c->tick_now = NAN;
    c->tick_now_last_ns = c->prev_tick_last_ns = INT64_MIN;
    return rc;
}

int analysis_begin(struct ctx *c, const struct analysis_options *o, const char *path,
                   struct trace_reader *tr, struct analysis *a)
{
    memset(c, 0, sizeof *c);
    memset(a, 0, sizeof *a);
    c->tick_now = NAN;
    c->tick_now_last_ns = c->prev_tick_last_ns = INT64_MIN;
    a->path = path;
    a->nhosts = 1;
    a->host_names[0] = path;
    a->labels_seen = calloc(LABELS_SEEN_MAX, sizeof *a->labels_seen);
    c->a = a;
    c->opt = o;
    c->proc_exit_ns = INT64_MAX;
    c->latest_sample_ns = INT64_MIN;
    tape_init_host(&c->host_tape);
    c->path = path;
    c->tr = tr;
    c->n_rapl = tr->n_rapl;
    a->n_rapl = tr->n_rapl;
    for (int k = 0; k < tr->n_rapl; k++)
        a->rapl_domain[k] = strdup(tr->rapl_domain[k]);
    if (!tr->n_rapl && trace_reader_has(tr, COL_RAPL_ENERGY_UJ)) {
        a->rapl_domain[0] = strdup("rapl_energy_uj");
        a->n_rapl = 1;
    }
    enum quantity_kind hk[INTEG_MAX_Q] = { Q_STEP_BACK, Q_CUMULATIVE, Q_CUMULATIVE };
    for (int k = 0; k < c->n_rapl; k++)
        hk[QH_RAPL0 + k] = Q_CUMULATIVE;
    if (!a->labels_seen || integ_init(&c->host, QH_RAPL0 + c->n_rapl, hk, o->ring_samples) != 0) {
        diag_error("out of memory");
        return EXIT_RUNTIME;
    }
    if (o->range_namer)
        pairing_init_any(&c->pair[0], o->range_namer, o->range_namer_arg);
    else if (o->range_name) {
        pairing_init_range(&c->pair[0], o->range_name, o->range_domain);
        c->pair[0].category = o->range_category;
    } else
        pairing_init(&c->pair[0], o->start_label, o->end_label);
    if (o->idle_start)
        pairing_init(&c->pair[1], o->idle_start, o->idle_end);
    return EXIT_OK;
}

int analysis_row(struct ctx *c, const struct trace_row *row)
{
    struct analysis *a = c->a;
    if (a->rows++ == 0)
        a->first_row_ns = row->t_mono_ns;
    if (row->starts_recording)
        cgroup_series_break(a, row->t_mono_ns);
    if (row->starts_recording && !c->opt->marks) {
        int rc = new_recording(c);
        if (rc != EXIT_OK)
            return rc;
    }
    if (row->type == TRACE_SAMPLE) {
        a->samples++;
        return analysis_on_sample(c, row);
    }
    if (row->type == TRACE_EVENT) {
        on_event(a, row);
        return cgroup_series_event(a, row);
    }
    if (row->type == TRACE_MARK) {
        remember_label(a, row->label);
        if (!c->opt->marks)
            return feed_mark(c, row);
    }
    return EXIT_OK;
}

int analysis_run(const struct analysis_options *o, const char *path, struct analysis *a)
{
    struct ctx c;
    struct trace_reader tr;
    memset(a, 0, sizeof *a);
    if (trace_reader_open(&tr, path) != 0) {
        diag_error("%s", tr.error);
        trace_reader_close(&tr);
        return EXIT_USAGE;
    }
    int status = analysis_begin(&c, o, path, &tr, a);
    struct trace_row row;
    int rc = 0;
    long next_ext = 0;
    while (status == EXIT_OK && (rc = trace_reader_next(&tr, &row)) == 1) {
        if (o->marks)
            status = feed_ext_marks(&c, &next_ext, row.t_mono_ns);
        if (status == EXIT_OK)
            status = analysis_row(&c, &row);
    }
    if (status == EXIT_OK && rc < 0) {
        diag_error("%s", tr.error);
        status = EXIT_USAGE;
    }
    if (status == EXIT_OK && o->marks)
        status = feed_ext_marks(&c, &next_ext, INT64_MAX);
    status = analysis_end(&c, status);
    trace_reader_close(&tr);
    return status;
}

int analysis_end(struct ctx *c, int status)
{
    if (status == EXIT_OK)
        status = finish_trace(c);
    if (status == EXIT_OK && c->a->nwindows == 0) {
        no_window_error(c);
        status = EXIT_USAGE;
    }
    if (status == EXIT_OK)
        finish_analysis(c);
    if (status == EXIT_OK)
        status = waiting_on_read(c->a, c->path);
    if (status == EXIT_OK)
        kernels_gaps_fold(c->a);
    free_ctx(c);
    return status;
}

double analysis_sensor_period_s(const struct analysis *a, int gpu_index, int sensor)
{
    if (!a->cadence || sensor < 0 || sensor >= SENSOR_N)
        return NAN;
    for (int i = 0; i < a->ngpu; i++)
        if (a->gpu_ids[i] == gpu_index && (!a->gpu_host || a->gpu_host[i] == 0))
            return a->cadence[i * SENSOR_N + sensor].period_s;
    return NAN;
}

void window_release(struct window *w)
{
    if (!w)
        return;
    for (int i = 0; w->gpu && i < w->ngpu; i++)
        breakdown_release(&w->gpu[i].bd);
    breakdown_release(&w->bd);
    free(w->gpu);
    free(w->samples);                /* unfinished: its tapes are gone */
    window_texts_free(w);
    w->gpu = NULL;
    w->samples = NULL;
}

void analysis_free(struct analysis *a)
{
    free(a->cadence);
    free(a->kernel_ev);
    for (long i = 0; a->windows && i < a->nwindows; i++)
        window_release(&a->windows[i]);
    map_array_free(&a->windows_map);
    free(a->gpu_ids);
    free(a->gpu_host);
    free(a->idle_w);
    free(a->busy_w);
    free(a->level_origin);
    for (int i = 0; i < a->nlabels_seen; i++)
        free(a->labels_seen[i]);
    free(a->labels_seen);
    for (int k = 0; k < a->n_rapl; k++)
        free(a->rapl_domain[k]);
    waiting_on_free(a->waiting);
    cgroup_series_free(a->cgroup);
    recordings_free(a);
    memset(a, 0, sizeof *a);
}
