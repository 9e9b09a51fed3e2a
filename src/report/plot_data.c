/* plot_data.c — see plot_data.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "plot_data.h"
#include "proc_rate.h"
#include "trace_reader.h"
#include "trace_tail.h"

/* Errors met while feeding, said after the pass: a bad row anywhere in
 * the file is the reader's error, said first, and the series' own come
 * only for a file that reads to its end. */
enum { FEED_OK, FEED_TOO_MANY_GPUS, FEED_NO_MEMORY, FEED_NO_MEMORY_FOR_GPU };

static int feed_error_say(const struct plot_data *d, int e)
{
    if (e == FEED_TOO_MANY_GPUS)
        diag_error("%s: more than %d GPUs in one trace", d->path, PLOT_MAX_GPUS);
    else
        diag_error("out of memory");
    return e == FEED_NO_MEMORY ? EXIT_RUNTIME : EXIT_USAGE;
}

static struct plot_gpu *gpu_for(struct plot_data *d, int id, int nbuckets)
{
    for (int i = 0; i < d->ngpu; i++)
        if (d->gpu[i].id == id)
            return &d->gpu[i];
    if (d->ngpu == PLOT_MAX_GPUS) {
        d->feed_error = FEED_TOO_MANY_GPUS;
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
        d->ngpu++;                 /* what it holds is freed with the others */
        d->feed_error = FEED_NO_MEMORY_FOR_GPU;
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

/* One row into its series; an error is kept in d->feed_error. */
static void feed_row(struct plot_data *d, const struct trace_row *row)
{
    double t = (double)(row->t_mono_ns - d->t0_ns) / 1e9, cores;
    if (row->starts_recording && d->nbreaks < PLOT_MAX_BREAKS)
        d->breaks[d->nbreaks++] = t;
    if (row->type == TRACE_MARK) {
        add_mark(d, t, row->label);
        return;
    }
    if (row->type != TRACE_SAMPLE)
        return;
    /* host-wide cells repeat on every GPU's row: the first GPU's are
     * taken, or a host-only row's (--gpu auto before a GPU joined) */
    int host_only = trace_row_host_only(row);
    if (!host_only) {
        struct plot_gpu *g = gpu_for(d, row->gpu < 0 ? 0 : row->gpu, d->nbuckets);
        if (!g)
            return;
        downsample_add(&g->power_instant, t, row->v[COL_GPU_POWER_INSTANT_W]);
        downsample_add(&g->power_avg, t, row->v[COL_GPU_POWER_W]);
        downsample_add(&g->util, t, row->v[COL_GPU_UTIL_PCT]);
        if (add_held_values(d, g, row, t) != 0) {
            d->feed_error = FEED_NO_MEMORY;
            return;
        }
        if (d->host_gpu == -2)
            d->host_gpu = row->gpu;
    }
    if (!host_only && row->gpu != d->host_gpu)
        return;
    downsample_add(&d->host_cpu, t, row->v[COL_HOST_CPU_BUSY_PCT]);
    if (proc_rate_step(&d->rate, row, &cores))
        downsample_add(&d->proc_cores, t, cores);
}

/* The range drawn, from the rows' latest time LAST_NS. 0, or -1 when
 * --from is not before --to (no message). */
static int set_range(struct plot_data *d, int64_t last_ns)
{
    d->trace_s = (double)(last_ns - d->t0_ns) / 1e9;
    d->from_s = isnan(d->want_from_s) ? 0 : d->want_from_s;
    d->to_s = isnan(d->want_to_s) ? d->trace_s : d->want_to_s;
    if (isnan(d->want_to_s) && d->to_s <= d->from_s)
        d->to_s = d->from_s + 1;   /* a one-row trace still gets an axis */
    return d->to_s <= d->from_s ? -1 : 0;
}

/* The series' memory, for the range set; 0 or -1. */
static int series_init(struct plot_data *d)
{
    d->nmark_slots = d->nbuckets;
    d->marks = calloc((size_t)d->nbuckets, sizeof *d->marks);
    d->host_gpu = -2;
    proc_rate_init(&d->rate);
    d->feed_error = FEED_OK;
    return !d->marks || downsample_init(&d->host_cpu, d->from_s, d->to_s, d->nbuckets) != 0 ||
           downsample_init(&d->proc_cores, d->from_s, d->to_s, d->nbuckets) != 0 ? -1 : 0;
}

static void series_free(struct plot_data *d)
{
    for (int i = 0; i < d->ngpu; i++) {
        downsample_free(&d->gpu[i].power_instant);
        downsample_free(&d->gpu[i].power_avg);
        downsample_free(&d->gpu[i].util);
        downsample_free(&d->gpu[i].sm_active.ds);
        downsample_free(&d->gpu[i].job_sm.ds);
        proc_share_free(&d->gpu[i].proc);
    }
    d->ngpu = 0;
    downsample_free(&d->host_cpu);
    downsample_free(&d->proc_cores);
    if (d->marks)
        for (int i = 0; i < d->nmark_slots; i++)
            free(d->marks[i].label);
    free(d->marks);
    d->marks = NULL;
    d->marks_total = 0;
    d->nbreaks = 0;
}

/* The second pass, where the range was not known in the first: every row
 * into its series again. */
static int feed_again(struct plot_data *d)
{
    struct trace_reader tr;
    if (trace_reader_open(&tr, d->path) != 0) {
        diag_error("%s", tr.error);
        return EXIT_USAGE;
    }
    struct trace_row row;
    int rc = 0;
    while (!d->feed_error && (rc = trace_reader_next(&tr, &row)) == 1)
        feed_row(d, &row);
    if (!d->feed_error && rc < 0)
        diag_error("%s", tr.error);
    trace_reader_close(&tr);
    if (d->feed_error)
        return feed_error_say(d, d->feed_error);
    return rc < 0 ? EXIT_USAGE : 0;
}

int plot_data_open(struct plot_data *d, const char *path, double from_s, double to_s, int nbuckets,
                   struct trace_reader *tr)
{
    memset(d, 0, sizeof *d);
    d->path = path;
    d->nbuckets = nbuckets;
    d->want_from_s = from_s;
    d->want_to_s = to_s;
    if (trace_reader_open(tr, path) != 0) {
        diag_error("%s", tr->error);
        return EXIT_USAGE;
    }
    d->have_guess = trace_tail_max_t_mono(tr, &d->guess_last_ns) == 0;
    return 0;
}

void plot_data_row(struct plot_data *d, const struct trace_row *row)
{
    if (d->rows++ == 0) {
        d->t0_ns = d->last_ns = row->t_mono_ns;
        /* the range from the guessed end (or --to): the series start now */
        if ((d->have_guess || !isnan(d->want_to_s)) && set_range(d, d->guess_last_ns) == 0) {
            d->feeding = 1;
            d->fed_from_s = d->from_s;
            d->fed_to_s = d->to_s;
            if (series_init(d) != 0)
                d->feed_error = FEED_NO_MEMORY;
        }
    }
    if (row->t_mono_ns > d->last_ns)
        d->last_ns = row->t_mono_ns;
    if (row->type == TRACE_MARK) {
        labels_seen_add(d->labels_seen, &d->nlabels_seen, row->label);
        if (strcmp(row->label, "infer_start") == 0)
            d->has_label_infer_start = 1;
        else if (strcmp(row->label, "first_token") == 0)
            d->has_label_first_token = 1;
    }
    if (d->feeding && !d->feed_error)
        feed_row(d, row);
}

static int by_gpu_id(const void *a, const void *b)
{
    const struct plot_gpu *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

int plot_data_close(struct plot_data *d)
{
    if (d->rows == 0) {
        diag_error("%s: no rows after the header: nothing to plot", d->path);
        return EXIT_USAGE;
    }
    if (set_range(d, d->last_ns) != 0) {
        diag_error("--from %g must be before --to %g", d->from_s, d->to_s);
        return EXIT_USAGE;
    }
    int rc = 0;
    if (!d->feeding || d->fed_from_s != d->from_s || d->fed_to_s != d->to_s) {
        series_free(d);
        if (series_init(d) != 0) {
            diag_error("out of memory");
            return EXIT_RUNTIME;
        }
        rc = feed_again(d);
    } else if (d->feed_error) {
        rc = feed_error_say(d, d->feed_error);
    }
    qsort(d->gpu, (size_t)d->ngpu, sizeof d->gpu[0], by_gpu_id);
    if (rc == 0)
        rc = thread_lanes_read(d->path, d->t0_ns, d->from_s, d->to_s, d->nbuckets, &d->lanes);
    if (rc == 0)
        rc = kernel_lanes_read(d->path, d->t0_ns, d->from_s, d->to_s, d->nbuckets, &d->klanes);
    return rc;
}

void plot_data_free(struct plot_data *d)
{
    series_free(d);
    thread_lanes_free(&d->lanes);
    kernel_lanes_free(&d->klanes);
    for (int i = 0; i < d->nlabels_seen; i++)
        free(d->labels_seen[i]);
    d->nlabels_seen = 0;
}
