/* plot_data.c — see plot_data.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "plot_data.h"
#include "proc_rate.h"
#include "trace_reader.h"

/* Pass 1: the time range, and whether the default window labels occur. */
static int scan_range(const char *path, struct plot_data *d)
{
    struct trace_reader tr;
    if (trace_reader_open(&tr, path) != 0) {
        diag_error("%s", tr.error);
        return EXIT_USAGE;
    }
    struct trace_row row;
    int rc;
    int64_t last = 0;
    while ((rc = trace_reader_next(&tr, &row)) == 1) {
        if (d->rows++ == 0)
            d->t0_ns = last = row.t_mono_ns;
        if (row.t_mono_ns > last)
            last = row.t_mono_ns;
        if (row.type == TRACE_MARK) {
            labels_seen_add(d->labels_seen, &d->nlabels_seen, row.label);
            if (strcmp(row.label, "infer_start") == 0)
                d->has_label_infer_start = 1;
            else if (strcmp(row.label, "first_token") == 0)
                d->has_label_first_token = 1;
        }
    }
    if (rc < 0)
        diag_error("%s", tr.error);
    trace_reader_close(&tr);
    if (rc < 0)
        return EXIT_USAGE;
    if (d->rows == 0) {
        diag_error("%s: no rows after the header: nothing to plot", path);
        return EXIT_USAGE;
    }
    d->trace_s = (double)(last - d->t0_ns) / 1e9;
    return 0;
}

static struct plot_gpu *gpu_for(struct plot_data *d, int id, int nbuckets)
{
    for (int i = 0; i < d->ngpu; i++)
        if (d->gpu[i].id == id)
            return &d->gpu[i];
    if (d->ngpu == PLOT_MAX_GPUS) {
        diag_error("%s: more than %d GPUs in one trace", d->path, PLOT_MAX_GPUS);
        return NULL;
    }
    struct plot_gpu *g = &d->gpu[d->ngpu];
    memset(g, 0, sizeof *g);
    g->id = id;
    if (downsample_init(&g->power_instant, d->from_s, d->to_s, nbuckets) != 0 ||
        downsample_init(&g->power_avg, d->from_s, d->to_s, nbuckets) != 0 ||
        downsample_init(&g->util, d->from_s, d->to_s, nbuckets) != 0 ||
        downsample_init(&g->sm_active.ds, d->from_s, d->to_s, nbuckets) != 0 ||
        downsample_init(&g->job_sm.ds, d->from_s, d->to_s, nbuckets) != 0) {
        diag_error("out of memory");
        return NULL;
    }
    d->ngpu++;
    return g;
}

static void add_mark(struct plot_data *d, double t, const char *label)
{
    if (t < d->from_s || t > d->to_s)
        return;
    d->marks_total++;
    long i = (long)((t - d->from_s) / (d->to_s - d->from_s) * d->nmark_slots);
    if (i >= d->nmark_slots)
        i = d->nmark_slots - 1;
    struct plot_mark *m = &d->marks[i];
    if (m->count++ == 0) {
        m->t = t;
        m->label = strndup(label, MARK_LABEL_MAX);   /* a drawn label, bounded */
    }
}

/* A value that holds over [t0, t1] (seconds), as a step: both ends, cut
 * to the range drawn so that a span reaching into it is drawn from its
 * edge. A span that starts at or before the previous one's end takes over
 * from that end, as export's counters do: GPM samples and per-process
 * readings are stamped apart from their rows, so on a driver that takes
 * time to answer consecutive spans overlap by its latency. The start is
 * then a microsecond late: where one span ends and the next begins, the
 * downsampler keeps the old value before the new one (it orders a
 * bucket's points by time, and ties have no order). */
#define HELD_START_S 1e-6
static void add_held(struct held_line *h, double t0, double t1, double v)
{
    if (isnan(v) || t1 <= t0)
        return;
    if (h->open && t0 < h->end_s)
        t0 = h->end_s;
    if (t0 >= t1)
        return;
    h->open = 1;
    h->end_s = t1;
    struct downsample *ds = &h->ds;
    if (t1 < ds->t0 || t0 > ds->t1)
        return;
    t0 += HELD_START_S;
    downsample_add(ds, t0 < ds->t0 ? ds->t0 : t0 > t1 ? t1 : t0, v);
    downsample_add(ds, t1 > ds->t1 ? ds->t1 : t1, v);
}

/* The row's GPM SM activity over its span, and a new per-process reading
 * over the span proc_share.c gives it (as export draws them). -1 when out
 * of memory. */
static int add_held_values(const struct plot_data *d, struct plot_gpu *g, const struct trace_row *row,
                           double t)
{
    double span = row->v[COL_GPU_GPM_SPAN_NS];
    if (!isnan(span) && span > 0)
        add_held(&g->sm_active, t - span / 1e9, t, row->v[COL_GPU_SM_ACTIVE_PCT]);
    struct proc_reading r;
    int got = proc_share_next(&g->proc, row, &r);
    if (got == 1)
        add_held(&g->job_sm, (double)(r.t0 - d->t0_ns) / 1e9, (double)(r.t1 - d->t0_ns) / 1e9, r.proc_pct);
    return got < 0 ? -1 : 0;
}

/* Pass 2: every row into its series. */
static int feed(const char *path, struct plot_data *d, int nbuckets)
{
    struct trace_reader tr;
    if (trace_reader_open(&tr, path) != 0) {
        diag_error("%s", tr.error);
        return EXIT_USAGE;
    }
    struct trace_row row;
    int rc, host_gpu = -2;
    double cores;
    struct proc_rate rate;
    proc_rate_init(&rate);
    while ((rc = trace_reader_next(&tr, &row)) == 1) {
        double t = (double)(row.t_mono_ns - d->t0_ns) / 1e9;
        if (row.starts_recording && d->nbreaks < PLOT_MAX_BREAKS)
            d->breaks[d->nbreaks++] = t;
        if (row.type == TRACE_MARK) {
            add_mark(d, t, row.label);
            continue;
        }
        if (row.type != TRACE_SAMPLE)
            continue;
        /* host-wide cells repeat on every GPU's row: the first GPU's are
         * taken, or a host-only row's (--gpu auto before a GPU joined) */
        int host_only = trace_row_host_only(&row);
        if (!host_only) {
            struct plot_gpu *g = gpu_for(d, row.gpu < 0 ? 0 : row.gpu, nbuckets);
            if (!g) {
                trace_reader_close(&tr);
                return EXIT_USAGE;
            }
            downsample_add(&g->power_instant, t, row.v[COL_GPU_POWER_INSTANT_W]);
            downsample_add(&g->power_avg, t, row.v[COL_GPU_POWER_W]);
            downsample_add(&g->util, t, row.v[COL_GPU_UTIL_PCT]);
            if (add_held_values(d, g, &row, t) != 0) {
                diag_error("out of memory");
                trace_reader_close(&tr);
                return EXIT_RUNTIME;
            }
            if (host_gpu == -2)
                host_gpu = row.gpu;
        }
        if (!host_only && row.gpu != host_gpu)
            continue;
        downsample_add(&d->host_cpu, t, row.v[COL_HOST_CPU_BUSY_PCT]);
        if (proc_rate_step(&rate, &row, &cores))
            downsample_add(&d->proc_cores, t, cores);
    }
    if (rc < 0)
        diag_error("%s", tr.error);
    trace_reader_close(&tr);
    return rc < 0 ? EXIT_USAGE : 0;
}

static int by_gpu_id(const void *a, const void *b)
{
    const struct plot_gpu *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

int plot_data_read(const char *path, double from_s, double to_s, int nbuckets,
                   struct plot_data *d)
{
    memset(d, 0, sizeof *d);
    d->path = path;
    int rc = scan_range(path, d);
    if (rc != 0)
        return rc;
    d->from_s = isnan(from_s) ? 0 : from_s;
    d->to_s = isnan(to_s) ? d->trace_s : to_s;
    if (isnan(to_s) && d->to_s <= d->from_s)
        d->to_s = d->from_s + 1;   /* a one-row trace still gets an axis */
    if (d->to_s <= d->from_s) {
        diag_error("--from %g must be before --to %g", d->from_s, d->to_s);
        return EXIT_USAGE;
    }
    d->nmark_slots = nbuckets;
    d->marks = calloc((size_t)nbuckets, sizeof *d->marks);
    if (!d->marks || downsample_init(&d->host_cpu, d->from_s, d->to_s, nbuckets) != 0 ||
        downsample_init(&d->proc_cores, d->from_s, d->to_s, nbuckets) != 0) {
        diag_error("out of memory");
        return EXIT_RUNTIME;
    }
    rc = feed(path, d, nbuckets);
    qsort(d->gpu, (size_t)d->ngpu, sizeof d->gpu[0], by_gpu_id);
    if (rc == 0)
        rc = thread_lanes_read(path, d->t0_ns, d->from_s, d->to_s, nbuckets, &d->lanes);
    if (rc == 0)
        rc = kernel_lanes_read(path, d->t0_ns, d->from_s, d->to_s, nbuckets, &d->klanes);
    return rc;
}

void plot_data_free(struct plot_data *d)
{
    for (int i = 0; i < d->ngpu; i++) {
        downsample_free(&d->gpu[i].power_instant);
        downsample_free(&d->gpu[i].power_avg);
        downsample_free(&d->gpu[i].util);
        downsample_free(&d->gpu[i].sm_active.ds);
        downsample_free(&d->gpu[i].job_sm.ds);
        proc_share_free(&d->gpu[i].proc);
    }
    downsample_free(&d->host_cpu);
    downsample_free(&d->proc_cores);
    thread_lanes_free(&d->lanes);
    kernel_lanes_free(&d->klanes);
    if (d->marks)
        for (int i = 0; i < d->nmark_slots; i++)
            free(d->marks[i].label);
    free(d->marks);
    d->marks = NULL;
    for (int i = 0; i < d->nlabels_seen; i++)
        free(d->labels_seen[i]);
    d->nlabels_seen = 0;
    d->ngpu = 0;
}
