/* perfetto_pass.c — see perfetto_pass.h. */
#include <stdlib.h>

#include "diag.h"
#include "perfetto_export.h"
#include "perfetto_host.h"
#include "perfetto_pass.h"
#include "trace_reader.h"

int perfetto_pass_rows(struct perfetto_pass *p)
{
    const struct host_trace *ht = &p->hosts[p->h];
    const struct export_windows *w = p->windows;
    struct trace_reader tr;
    if (trace_reader_open(&tr, ht->path) != 0) {
        diag_error("%s", tr.error);
        return EXIT_USAGE;
    }
    struct host_measure m;
    if (p->measure && host_measure_begin(p->measure, &m) != 0) {
        trace_reader_close(&tr);
        diag_error("out of memory");
        return EXIT_RUNTIME;
    }
    struct perfetto_host *ph = perfetto_host_begin(p->f, p->hosts, p->h, p->origin_ns, w->start, w->end,
                                                   p->labels_seen, p->nlabels_seen);
    if (!ph) {
        if (p->measure)
            free(m.diff);
        trace_reader_close(&tr);
        diag_error("out of memory");
        return EXIT_RUNTIME;
    }
    p->feeding = w->start != NULL;
    if (p->feeding) {
        analysis_default_options(&p->ao);
        p->ao.start_label = w->start;
        p->ao.end_label = w->end;
        p->ao.range_name = w->range;
        p->ao.range_domain = w->domain;
        p->ao.range_category = w->category;
        p->ao.max_open = w->max_open;
        analysis_feed_begin(&p->af, &p->ao, ht->path, &tr, &p->a);
    }
    struct trace_row row;
    int rrc;
    while ((rrc = trace_reader_next(&tr, &row)) == 1) {
        if (p->measure)
            host_measure_row(p->measure, &m, &row);
        perfetto_host_row(ph, &row);
        if (p->feeding)
            analysis_feed_row(&p->af, &row);
    }
    if (rrc < 0)
        diag_error("%s", tr.error);
    int rc = perfetto_host_end(ph, rrc >= 0, &p->has_labels);
    if (p->measure) {
        char err[HOST_ERROR_MAX];
        if (rc == 0 && host_measure_end(p->measure, &m, err, sizeof err) != 0) {
            diag_error("%s", err);
            rc = EXIT_USAGE;
        } else if (rc != 0) {
            free(m.diff);
        }
    }
    trace_reader_close(&tr);
    if (rc != 0)
        perfetto_pass_drop(p);
    return rc;
}

void perfetto_pass_drop(struct perfetto_pass *p)
{
    if (p->feeding) {
        analysis_feed_end(&p->af, 0);
        analysis_free(&p->a);
    }
    p->feeding = 0;
}

int perfetto_pass_finish(struct perfetto_pass *p, const struct host_trace *hosts, int *windowed)
{
    int rc = perfetto_write_threads(p->f, hosts, p->h, p->origin_ns);
    if (rc == 0)
        perfetto_write_kernels(p->f, hosts, p->h, p->origin_ns);
    int use = rc == 0 && p->has_labels && p->feeding;
    if (p->feeding) {
        int arc = analysis_feed_end(&p->af, use);
        if (use && arc == 0)
            perfetto_write_windows(p->f, hosts, p->h, p->origin_ns, &p->a);
        if (use) {
            rc = arc;
            (*windowed)++;
        }
        analysis_free(&p->a);
    }
    p->feeding = 0;
    return rc;
}
