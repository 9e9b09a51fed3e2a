/*
 * analysis_hosts.c — windows across several hosts' traces.
 *
 * Each host's trace keeps its own CLOCK_MONOTONIC; hosts.h places them on
 * one timeline through t_wall_ns (one offset per trace). The marks that
 * make windows are collected from the host(s) the --start/--end labels
 * name ("host1:infer_start"; a plain label takes that label from every
 * host), converted to each host's own clock, and fed to a normal
 * analysis_run of that host, so every GPU of every host is measured over
 * the same windows. The per-host results are then merged window by window
 * (the same marks give the same windows everywhere).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pcie_window.h"
#include "slow_clock.h"
#include "analysis.h"
#include "analysis_internal.h"
#include "breakdown.h"
#include "confidence.h"
#include "diag.h"
#include "hosts.h"
#include "trace_reader.h"
#include "verdict.h"
#include "window_texts.h"

struct shared_mark { int64_t shared_ns, wall_ns; const char *label; long line; long order; };

static int cmp_shared(const void *a, const void *b)
{
    const struct shared_mark *x = a, *y = b;
    if (x->shared_ns != y->shared_ns)
        return (x->shared_ns > y->shared_ns) - (x->shared_ns < y->shared_ns);
    return (x->order > y->order) - (x->order < y->order);
}

/* Which of the four labels (start, end, idle start, idle end) host h
 * contributes, as "HOST:LABEL" references resolve. */
struct ref { int host; const char *label; };

static int collect(struct host_trace *hosts, int n, const struct ref *refs, int nrefs,
                   struct shared_mark **out, long *nout)
{
    long cap = 0;
    *out = NULL;
    *nout = 0;
    for (int h = 0; h < n; h++) {
        int wanted = 0;
        for (int k = 0; k < nrefs; k++)
            wanted |= refs[k].host < 0 || refs[k].host == h;
        if (!wanted)
            continue;
        struct trace_reader tr;
        if (trace_reader_open(&tr, hosts[h].path) != 0) {
            diag_error("%s", tr.error);
            trace_reader_close(&tr);
            return EXIT_USAGE;
        }
        struct trace_row row;
        int rc;
        while ((rc = trace_reader_next(&tr, &row)) == 1) {
            if (row.type != TRACE_MARK)
                continue;
            for (int k = 0; k < nrefs; k++) {
                if ((refs[k].host >= 0 && refs[k].host != h) || strcmp(row.label, refs[k].label) != 0)
                    continue;
                if (*nout == cap) {
                    cap = cap ? cap * 2 : 64;
                    struct shared_mark *nm = realloc(*out, sizeof *nm * (size_t)cap);
                    if (!nm) {
                        trace_reader_close(&tr);
                        diag_error("out of memory");
                        return EXIT_RUNTIME;
                    }
                    *out = nm;
                }
                (*out)[*nout] = (struct shared_mark){ host_shared_ns(&hosts[h], row.t_mono_ns),
                                                      row.t_wall_ns, refs[k].label, row.line, *nout };
                (*nout)++;
                break;
            }
        }
        if (rc < 0) {
            diag_error("%s", tr.error);
            trace_reader_close(&tr);
            return EXIT_USAGE;
        }
        trace_reader_close(&tr);
    }
    if (*nout > 1)
        qsort(*out, (size_t)*nout, sizeof **out, cmp_shared);
    return EXIT_OK;
}

/* Appends host h's GPUs of each window to the merged windows; their
 * breakdowns' segments move with them (a keeps none). */
static int merge_host(struct analysis *m, struct analysis *a, int h)
{
    if (a->nwindows != m->nwindows) {
        diag_error("%s: %ld windows where the first host has %ld", a->path, a->nwindows, m->nwindows);
        return EXIT_USAGE;
    }
    for (long i = 0; i < m->nwindows; i++) {
        struct window *w = &m->windows[i];
        struct window *x = &a->windows[i];
        struct window_gpu *g = realloc(w->gpu, sizeof *g * (size_t)(w->ngpu + x->ngpu + 1));
        if (!g)
            return EXIT_RUNTIME;
        w->gpu = g;
        for (int k = 0; k < x->ngpu; k++) {
            g[w->ngpu] = x->gpu[k];
            g[w->ngpu++].host = h;
            x->gpu[k].bd.seg = NULL;
        }
        w->flags |= x->flags;
    }
    for (int k = 0; k < a->ngpu && m->ngpu < ANALYSIS_MAX_HOSTS * ANALYSIS_MAX_GPUS; k++) {
        m->gpu_ids[m->ngpu] = a->gpu_ids[k];
        m->gpu_host[m->ngpu] = h;
        m->idle_w[m->ngpu] = a->idle_w[k];
        m->busy_w[m->ngpu] = a->busy_w[k];
        for (int s = 0; m->cadence && s < SENSOR_N; s++)
            m->cadence[m->ngpu * SENSOR_N + s] = a->cadence ? a->cadence[k * SENSOR_N + s]
                                                            : (struct cadence){ NAN, 0, 0 };
        m->level_origin[m->ngpu++] = a->level_origin[k];
    }
    return EXIT_OK;
}

/* Totals and verdicts again, now over every host's GPUs. */
static void retotal(const struct analysis_options *o, struct analysis *m)
{
    for (long i = 0; i < m->nwindows; i++) {
        struct window *w = &m->windows[i];
        double e = 0, u = 0;
        int any = 0;
        for (int k = 0; k < w->ngpu; k++)
            if (!isnan(w->gpu[k].energy_j)) {
                e += w->gpu[k].energy_j;
                u += w->gpu[k].uncertainty_j;
                any = 1;
            }
        w->energy_j = any ? e : NAN;
        w->uncertainty_j = any ? u : NAN;
        w->mean_power_w = w->energy_j / w->duration_s;
        breakdown_merge_gpus(o, w);
        pcie_window_copies(o, w);   /* no tape here: sums only, copy time per GPU */
        struct window_text_scratch texts;
        window_texts_begin(&texts, w);
        verdict_window(o, w);
        pcie_window_evidence(o, w);
        slow_clock_evidence_append(w);
        confidence_window(w);
        window_texts_keep(w);
    }
    double *v = malloc(sizeof *v * (size_t)(m->nwindows ? m->nwindows : 1));
    if (v) {
        for (long i = 0; i < m->nwindows; i++)
            v[i] = m->windows[i].energy_j;
        m->energy_j = stat_summarize(v, m->nwindows);
        for (long i = 0; i < m->nwindows; i++)
            v[i] = m->windows[i].mean_power_w;
        m->mean_power_w = stat_summarize(v, m->nwindows);
        free(v);
    }
    verdict_summary(o, m);
}

int analysis_run_hosts(const struct analysis_options *o, struct host_trace *hosts, int n,
                       struct analysis *out)
{
    if (n == 1)
        return analysis_run(o, hosts[0].path, out);
    memset(out, 0, sizeof *out);
    char err[HOST_ERROR_MAX];
    for (int h = 0; h < n; h++)
        if (host_trace_measure(&hosts[h], err, sizeof err) != 0) {
            diag_error("%s", err);
            return EXIT_USAGE;
        }
    hosts_adopt_recorded_names(hosts, n);
    if (n > ANALYSIS_MAX_HOSTS || hosts_check(hosts, n, err, sizeof err) != 0) {
        diag_error("%s", n > ANALYSIS_MAX_HOSTS ? "more than 16 traces" : err);
        return EXIT_USAGE;
    }
    struct ref refs[4];
    int nrefs = 0;
    const char *names[4] = { o->start_label, o->end_label, o->idle_start, o->idle_end };
    for (int k = 0; k < 4; k++)
        if (names[k]) {
            host_ref_parse(hosts, n, names[k], &refs[nrefs].host, &refs[nrefs].label);
            nrefs++;
        }
    struct shared_mark *marks;
    long nmarks;
    int rc = collect(hosts, n, refs, nrefs, &marks, &nmarks);
    for (int k = 0; rc == EXIT_OK && k < 2; k++) {
        long seen = 0;
        for (long i = 0; i < nmarks; i++)
            seen += strcmp(marks[i].label, refs[k].label) == 0;
        if (!seen) {
            diag_error("no MARK '%s' %s%s", refs[k].label, refs[k].host >= 0 ? "on host " : "on any host",
                       refs[k].host >= 0 ? hosts[refs[k].host].name : "");
            rc = EXIT_USAGE;
        }
    }
    struct ext_mark *ext = malloc(sizeof *ext * (size_t)(nmarks ? nmarks : 1));
    struct analysis_options ho = *o;
    ho.start_label = refs[0].label;
    ho.end_label = refs[1].label;
    if (o->idle_start) {
        ho.idle_start = refs[2].label;
        ho.idle_end = refs[3].label;
    }
    ho.marks = ext;
    ho.nmarks = nmarks;
    for (int h = 0; rc == EXIT_OK && h < n; h++) {
        if (!ext) {
            rc = EXIT_RUNTIME;
            break;
        }
        for (long i = 0; i < nmarks; i++)
            ext[i] = (struct ext_mark){ host_mono_ns(&hosts[h], marks[i].shared_ns), marks[i].wall_ns,
                                        marks[i].label, marks[i].line };
        struct analysis a;
        rc = analysis_run(&ho, hosts[h].path, &a);
        if (rc != EXIT_OK) {
            analysis_free(&a);
            break;
        }
        if (h == 0) {
            *out = a;
            out->gpu_host = calloc(ANALYSIS_MAX_HOSTS * ANALYSIS_MAX_GPUS, sizeof *out->gpu_host);
            int *ids = realloc(out->gpu_ids, sizeof *ids * ANALYSIS_MAX_HOSTS * ANALYSIS_MAX_GPUS);
            double *iw = realloc(out->idle_w, sizeof *iw * ANALYSIS_MAX_HOSTS * ANALYSIS_MAX_GPUS);
            double *bw = realloc(out->busy_w, sizeof *bw * ANALYSIS_MAX_HOSTS * ANALYSIS_MAX_GPUS);
            const char **lo = realloc(out->level_origin, sizeof *lo * ANALYSIS_MAX_HOSTS * ANALYSIS_MAX_GPUS);
            /* the sensors' periods follow the GPUs of every host, as the levels do */
            struct cadence *cad = out->cadence ? realloc(out->cadence, sizeof *cad * ANALYSIS_MAX_HOSTS
                                                         * ANALYSIS_MAX_GPUS * SENSOR_N) : NULL;
            if (ids) out->gpu_ids = ids;
            if (cad) out->cadence = cad;
            if (iw) out->idle_w = iw;
            if (bw) out->busy_w = bw;
            if (lo) out->level_origin = lo;
            if (!out->gpu_host || !ids || !iw || !bw || !lo || (out->cadence && !cad))
                rc = EXIT_RUNTIME;
        } else {
            rc = merge_host(out, &a, h);
            out->samples += a.samples;
            out->rows += a.rows;
            analysis_free(&a);
        }
        out->host_names[h] = hosts[h].name;
        out->host_offset_ns[h] = hosts[h].wall_offset_ns;
    }
    out->nhosts = n;
    if (rc == EXIT_OK)
        retotal(o, out);
    free(ext);
    free(marks);
    return rc;
}
