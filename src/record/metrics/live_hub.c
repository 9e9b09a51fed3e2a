/*
 * live_hub.c — see live_hub.h.
 *
 * The feed is a pipe because the trace reader already knows how to read a
 * stream: the hub thread opens /dev/fd/N of the read end and reads exactly
 * the bytes the trace file gets, in the same order (the tee runs under the
 * writer's lock), so the live windows are analyze's windows of the same
 * rows. Rows are under PIPE_BUF, so each copy goes in whole or not at all.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "diag.h"
#include "gpu_sampler.h"
#include "live_hub.h"
#include "live_line.h"
#include "live_windows.h"
#include "metrics_text.h"
#include "mark_fifo.h"
#include "metrics_file.h"
#include "trace_event.h"
#include "trace_reader.h"

struct live_hub_state {
    struct metrics_state st;
    struct live_windows lw;
    int64_t next_publish_ns, next_file_ns;
    int file_warned;
};

int live_hub_open(struct live_hub *h, const struct live_hub_opts *o)
{
    memset(h, 0, sizeof *h);
    h->pipe_r = h->pipe_w = -1;
    live_counts_init(&h->counts);
    h->o = *o;
    h->on = o->metrics || o->metrics_file || o->live;
    if (!h->on)
        return 0;
    h->s = calloc(1, sizeof *h->s);
    if (!h->s) {
        diag_error("out of memory");
        return -1;
    }
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    metrics_state_init(&h->s->st, host);
    h->s->st.nwin = o->ndefs < METRICS_MAX_WINDOWS ? o->ndefs : METRICS_MAX_WINDOWS;
    for (int i = 0; i < h->s->st.nwin; i++)
        snprintf(h->s->st.win[i].name, sizeof h->s->st.win[i].name, "%s", o->defs[i].name);
    if ((o->metrics || o->metrics_file) && o->metrics_ranges > 0
        && metrics_state_ranges(&h->s->st, o->metrics_ranges) != 0) {
        diag_error("out of memory");
        return -1;
    }
    /* the metrics file against the trace and every other path of the run:
     * record checks that by identity (path_identity.h) before it opens any */
    if (o->metrics_file && metrics_file_check(o->metrics_file) != 0)
        return -1;
    if (o->metrics) {
        if (metrics_server_open(&h->srv, o->metrics) != 0)
            return -1;
        h->have_srv = 1;
    }
    return 0;
}

void live_hub_gpus(struct live_hub *h, const struct nvml_lib *nvml, const struct gpu_dev *gpus,
                   int n)
{
    if (!h->on || (!h->o.metrics && !h->o.metrics_file))
        return;
    for (int i = 0; i < n; i++) {
        struct metrics_gpu *g = metrics_gpu(&h->s->st, (int)gpus[i].index);
        char uuid[METRICS_UUID_MAX];
        if (g && nvml->uuid && nvml->uuid(gpus[i].handle, uuid, sizeof uuid) == NVML_SUCCESS) {
            uuid[sizeof uuid - 1] = '\0';
            snprintf(g->uuid, sizeof g->uuid, "%s", uuid);
        }
    }
}

/* The tee, on whichever thread wrote the row, under the writer's lock. */
static void tee_row(void *arg, const char *row, size_t len)
{
    struct live_hub *h = arg;
    live_counts_row(&h->counts, row, len);
    ssize_t n;
    do
        n = write(h->pipe_w, row, len);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)len)
        __atomic_add_fetch(&h->dropped, 1, __ATOMIC_RELAXED);
}

static void publish(struct live_hub *h, int final)
{
    int64_t now = mono_ns();
    int to_srv = h->have_srv && (final || now >= h->s->next_publish_ns);
    int to_file = h->o.metrics_file && (final || now >= h->s->next_file_ns);
    if (!to_srv && !to_file)
        return;
    h->s->st.live_rows_dropped = __atomic_load_n(&h->dropped, __ATOMIC_RELAXED);
    struct live_counts c;
    live_counts_load(&h->counts, &c);
    h->s->st.samples = c.samples;
    h->s->st.ticks_skipped = c.ticks_skipped;
    h->s->st.marks_received = c.marks;
    if (h->fifo)
        h->s->st.marks_rejected = mark_fifo_rejected(h->fifo);
    size_t len;
    char *text = metrics_render(&h->s->st, METRICS_TEXT, &len);
    if (!text)
        return;
    if (to_srv) {
        metrics_server_publish(&h->srv, METRICS_TEXT, text, len);
        size_t om_len;
        char *om = metrics_render(&h->s->st, METRICS_OPENMETRICS, &om_len);
        if (om)
            metrics_server_publish(&h->srv, METRICS_OPENMETRICS, om, om_len);
        free(om);
        h->s->next_publish_ns = now + LIVE_PUBLISH_MS * NS_PER_MS;
    }
    if (to_file) {
        if (metrics_file_write(h->o.metrics_file, text, len) != 0) {
            if (!h->s->file_warned++)
                diag_warn("--metrics-file %s: cannot replace it: %s (will retry)",
                          h->o.metrics_file, strerror(errno));
        } else if (h->s->file_warned) {
            h->s->file_warned = 0;
        }
        h->s->next_file_ns = now + LIVE_FILE_MS * NS_PER_MS;
    }
    free(text);
}

static int on_window(void *arg, int def, long nth, const struct window *w, const char *origin)
{
    struct live_hub *h = arg;
    if (def == h->s->st.nwin) {         /* the per-range-name context */
        metrics_add_range_window(&h->s->st, w);
        return EXIT_OK;
    }
    metrics_add_window(&h->s->st, def, w);
    if (h->o.live) {
        char line[2048];
        live_line_format(line, sizeof line, h->o.defs[def].name, nth, w, origin,
                         !isnan(h->o.idle_w) || !isnan(h->o.busy_w),
                         __atomic_load_n(&h->dropped, __ATOMIC_RELAXED));
        fputs(line, stdout);
        fflush(stdout);
    }
    return EXIT_OK;
}

/* Gauges from one row (the counters of rows are the tee's, live_counts.h:
 * this row may be one of few that got through a full feed). A flinch_gpu
 * identity row names its GPU's UUID (a GPU that joins later, --gpu auto,
 * gets it this way). */
static void row_metrics(struct metrics_state *s, const struct trace_row *r)
{
    if (r->type == TRACE_EVENT && trace_event_is(r->label, EVENT_GPU) && r->gpu >= 0) {
        struct metrics_gpu *g = metrics_gpu(s, r->gpu);
        char uuid[METRICS_UUID_MAX];
        if (g && !g->uuid[0] && trace_event_value(r->label, "uuid", uuid, sizeof uuid) == 0 &&
            strncmp(uuid, "GPU-", 4) == 0)
            snprintf(g->uuid, sizeof g->uuid, "%s", uuid);
        return;
    }
    char status[8];
    if (r->type == TRACE_EVENT && trace_event_is(r->label, EVENT_GPM) && r->gpu >= 0 &&
        trace_event_value(r->label, "status", status, sizeof status) == 0 &&
        strcmp(status, "off") == 0) {
        struct metrics_gpu *g = metrics_gpu(s, r->gpu);
        if (g)
            g->sm_active_pct = NAN;        /* GPM stopped: no latest value any more */
        return;
    }
    if (r->type != TRACE_SAMPLE)
        return;
    struct metrics_gpu *g = r->gpu >= 0 ? metrics_gpu(s, r->gpu) : NULL;
    if (!g)
        return;
    g->power_w = r->v[COL_GPU_POWER_W];
    g->power_instant_w = r->v[COL_GPU_POWER_INSTANT_W];
    g->util_pct = r->v[COL_GPU_UTIL_PCT];
    g->sm_clock_mhz = r->v[COL_GPU_SM_CLOCK_MHZ];
    if (!isnan(r->v[COL_GPU_ENERGY_MJ]))
        g->energy_mj = r->v[COL_GPU_ENERGY_MJ];
    if (!isnan(r->v[COL_GPU_SM_ACTIVE_PCT]))
        g->sm_active_pct = r->v[COL_GPU_SM_ACTIVE_PCT];
    if (!isnan(r->v[COL_GPU_PROC_SM_PCT]) || !isnan(r->v[COL_GPU_OTHER_SM_PCT])) {
        g->proc_sm_pct = r->v[COL_GPU_PROC_SM_PCT];
        g->other_sm_pct = r->v[COL_GPU_OTHER_SM_PCT];
    }
}

static void *hub_main(void *arg)
{
    struct live_hub *h = arg;
    char path[64];
    snprintf(path, sizeof path, "/dev/fd/%d", h->pipe_r);
    struct trace_reader tr;
    if (trace_reader_open(&tr, path) != 0) {
        diag_warn("live: cannot read the trace feed: %s; no live answers", tr.error);
        trace_reader_close(&tr);
        /* keep draining so the tee never matters */
        char buf[4096];
        while (read(h->pipe_r, buf, sizeof buf) > 0)
            ;
        return NULL;
    }
    struct analysis_options base;
    analysis_default_options(&base);
    base.idle_w = h->o.idle_w;
    base.busy_w = h->o.busy_w;
    int ok = live_windows_open(&h->s->lw, &tr, h->o.defs, h->s->st.nwin, &base,
                               h->s->st.range_cap ? metrics_range_name : NULL, &h->s->st,
                               on_window, h) == EXIT_OK;
    struct trace_row row;
    int rc;
    publish(h, 1);
    while ((rc = trace_reader_next(&tr, &row)) == 1) {
        row_metrics(&h->s->st, &row);
        if (ok && live_windows_row(&h->s->lw, &row) != EXIT_OK) {
            diag_warn("live: window analysis stopped; metrics go on without windows");
            ok = 0;
        }
        h->s->st.windows_abandoned = h->s->lw.abandoned;
        publish(h, 0);
    }
    if (rc < 0)
        diag_warn("live: %s", tr.error);
    if (ok)
        live_windows_finish(&h->s->lw);
    live_windows_free(&h->s->lw);
    publish(h, 1);
    trace_reader_close(&tr);
    return NULL;
}

int live_hub_start(struct live_hub *h, struct csv_out *csv, const char *header,
                   struct mark_fifo *fifo)
{
    if (!h->on)
        return 0;
    h->fifo = fifo;
    h->csv = csv;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        diag_error("live: cannot create a pipe: %s", strerror(errno));
        return -1;
    }
    h->pipe_r = fds[0];
    h->pipe_w = fds[1];
    fcntl(h->pipe_w, F_SETPIPE_SZ, LIVE_PIPE_BYTES);   /* best effort */
    size_t hlen = strlen(header);
    if (write(h->pipe_w, header, hlen) != (ssize_t)hlen) {
        diag_error("live: cannot start the feed: %s", strerror(errno));
        return -1;
    }
    fcntl(h->pipe_w, F_SETFL, fcntl(h->pipe_w, F_GETFL) | O_NONBLOCK);
    if (h->have_srv && metrics_server_start(&h->srv) != 0)
        return -1;
    if (h->have_srv)
        fprintf(stderr, "%s: serving metrics on http://%s/metrics\n", diag_prog(), h->srv.bound);
    int rc = pthread_create(&h->thread, NULL, hub_main, h);
    if (rc != 0) {
        diag_error("live: cannot start the thread: %s", strerror(rc));
        return -1;
    }
    h->thread_running = 1;
    pthread_mutex_lock(&csv->lock);
    csv->tee = tee_row;
    csv->tee_arg = h;
    pthread_mutex_unlock(&csv->lock);
    return 0;
}

void live_hub_stop(struct live_hub *h)
{
    if (!h->on)
        return;
    if (h->csv) {
        pthread_mutex_lock(&h->csv->lock);
        h->csv->tee = NULL;
        pthread_mutex_unlock(&h->csv->lock);
    }
    if (h->pipe_w >= 0)
        close(h->pipe_w);
    h->pipe_w = -1;
    if (h->thread_running)
        pthread_join(h->thread, NULL);
    h->thread_running = 0;
    if (h->pipe_r >= 0)
        close(h->pipe_r);
    h->pipe_r = -1;
    if (h->have_srv)
        metrics_server_stop(&h->srv);
    h->have_srv = 0;
    h->on = 0;
    if (h->s)
        metrics_state_free(&h->s->st);
    free(h->s);
    h->s = NULL;
}
