/*
 * metrics_text.c — see metrics_text.h.
 *
 * Numbers are printed with %.17g, so a scraped value is the double flinch
 * holds, bit for bit (what the tests compare against `flinch analyze`).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics_text.h"
#include "version.h"

const double metrics_bucket_bounds[METRICS_BUCKETS] = {
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300,
};

void metrics_state_init(struct metrics_state *s, const char *host)
{
    memset(s, 0, sizeof *s);
    snprintf(s->version, sizeof s->version, "%s", FLINCH_VERSION);
    snprintf(s->host, sizeof s->host, "%s", host ? host : "");
    s->last_tick = -1;
}

struct metrics_gpu *metrics_gpu(struct metrics_state *s, int index)
{
    for (int i = 0; i < s->ngpu; i++)
        if (s->gpu[i].index == index)
            return &s->gpu[i];
    if (s->ngpu == METRICS_MAX_GPUS)
        return NULL;
    struct metrics_gpu *g = &s->gpu[s->ngpu++];
    memset(g, 0, sizeof *g);
    g->index = index;
    g->power_w = g->power_instant_w = g->util_pct = g->sm_clock_mhz = g->energy_mj = NAN;
    return g;
}

/* The compute / host-cpu / waiting seconds are the window's breakdown
 * (breakdown.c, as analyze makes it); a window without one (no GPU signal)
 * adds to none of the three. */
void metrics_add_window(struct metrics_state *s, int win, const struct window *w)
{
    if (win < 0 || win >= s->nwin || !isfinite(w->duration_s))
        return;
    struct metrics_window *m = &s->win[win];
    for (int b = 0; b < METRICS_BUCKETS; b++)
        if (w->duration_s <= metrics_bucket_bounds[b])
            m->bucket[b]++;
    m->count++;
    m->duration_sum_s += w->duration_s;
    if (isfinite(w->energy_j))
        m->energy_j += w->energy_j;
    if (w->bd.valid) {
        m->compute_s += w->bd.ms[CLASS_COMPUTE] / 1000;
        m->host_cpu_s += w->bd.ms[CLASS_HOST_CPU] / 1000;
        m->waiting_s += w->bd.ms[CLASS_WAITING] / 1000;
    }
    if ((unsigned)w->verdict < VERDICT_COUNT)
        m->by_verdict[w->verdict]++;
}

void metrics_escape_label(char *out, size_t cap, const char *value)
{
    size_t n = 0;
    for (const char *p = value; *p && n + 3 < cap; p++) {
        if (*p == '\\' || *p == '"') {
            out[n++] = '\\';
            out[n++] = *p;
        } else if (*p == '\n') {
            out[n++] = '\\';
            out[n++] = 'n';
        } else {
            out[n++] = *p;
        }
    }
    if (cap)
        out[n < cap ? n : cap - 1] = '\0';
}

static void head(FILE *f, const char *name, const char *type, const char *help)
{
    fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void gpu_series(FILE *f, const struct metrics_state *s, const char *name,
                       const char *type, const char *help, size_t offset, double scale)
{
    int any = 0;
    for (int i = 0; i < s->ngpu; i++) {
        const struct metrics_gpu *g = &s->gpu[i];
        double v = *(const double *)((const char *)g + offset);
        if (isnan(v))
            continue;
        if (!any++)
            head(f, name, type, help);
        char uuid[2 * METRICS_UUID_MAX];
        metrics_escape_label(uuid, sizeof uuid, g->uuid);
        fprintf(f, "%s{gpu=\"%d\",uuid=\"%s\"} %.17g\n", name, g->index, uuid, v * scale);
    }
}

static void counter(FILE *f, const char *name, const char *help, long long v)
{
    head(f, name, "counter", help);
    fprintf(f, "%s %lld\n", name, v);
}

static void window_series(FILE *f, const struct metrics_state *s)
{
    char esc[METRICS_MAX_WINDOWS][2 * METRICS_NAME_MAX];
    for (int i = 0; i < s->nwin; i++)
        metrics_escape_label(esc[i], sizeof esc[i], s->win[i].name);
    head(f, "flinch_window_duration_seconds", "histogram",
         "Duration of finished windows (MARK to MARK), by window definition.");
    for (int i = 0; i < s->nwin; i++) {
        const struct metrics_window *m = &s->win[i];
        for (int b = 0; b < METRICS_BUCKETS; b++)
            fprintf(f, "flinch_window_duration_seconds_bucket{window=\"%s\",le=\"%g\"} %llu\n",
                    esc[i], metrics_bucket_bounds[b], (unsigned long long)m->bucket[b]);
        fprintf(f, "flinch_window_duration_seconds_bucket{window=\"%s\",le=\"+Inf\"} %llu\n",
                esc[i], (unsigned long long)m->count);
        fprintf(f, "flinch_window_duration_seconds_sum{window=\"%s\"} %.17g\n", esc[i], m->duration_sum_s);
        fprintf(f, "flinch_window_duration_seconds_count{window=\"%s\"} %llu\n", esc[i],
                (unsigned long long)m->count);
    }
    static const struct { const char *name, *help; size_t off; } sums[] = {
        { "flinch_window_energy_joules_total",
          "GPU energy of finished windows, all recorded GPUs (as flinch analyze measures it).",
          offsetof(struct metrics_window, energy_j) },
        { "flinch_window_compute_seconds_total",
          "Seconds of finished windows attributed to GPU compute.",
          offsetof(struct metrics_window, compute_s) },
        { "flinch_window_host_cpu_seconds_total",
          "Seconds of finished windows attributed to host CPU work.",
          offsetof(struct metrics_window, host_cpu_s) },
        { "flinch_window_waiting_seconds_total",
          "Seconds of finished windows attributed to waiting (GPU and CPU idle).",
          offsetof(struct metrics_window, waiting_s) },
    };
    for (size_t k = 0; k < sizeof sums / sizeof sums[0]; k++) {
        head(f, sums[k].name, "counter", sums[k].help);
        for (int i = 0; i < s->nwin; i++)
            fprintf(f, "%s{window=\"%s\"} %.17g\n", sums[k].name, esc[i],
                    *(const double *)((const char *)&s->win[i] + sums[k].off));
    }
    head(f, "flinch_windows_total", "counter", "Finished windows, by window definition and verdict.");
    for (int i = 0; i < s->nwin; i++)
        for (int v = 0; v < VERDICT_COUNT; v++)
            fprintf(f, "flinch_windows_total{window=\"%s\",verdict=\"%s\"} %llu\n", esc[i],
                    verdict_name((enum verdict)v), (unsigned long long)s->win[i].by_verdict[v]);
}

char *metrics_render(const struct metrics_state *s, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f)
        return NULL;
    char host[2 * sizeof s->host], version[2 * sizeof s->version];
    metrics_escape_label(host, sizeof host, s->host);
    metrics_escape_label(version, sizeof version, s->version);
    head(f, "flinch_build_info", "gauge", "flinch version and host; always 1.");
    fprintf(f, "flinch_build_info{version=\"%s\",host=\"%s\"} 1\n", version, host);
    gpu_series(f, s, "flinch_gpu_power_watts", "gauge",
               "GPU power draw as NVML reports it (gpu_power_W; a 1 s average on Ampere and later).",
               offsetof(struct metrics_gpu, power_w), 1);
    gpu_series(f, s, "flinch_gpu_power_instant_watts", "gauge",
               "Instantaneous GPU power (gpu_power_instant_W).",
               offsetof(struct metrics_gpu, power_instant_w), 1);
    gpu_series(f, s, "flinch_gpu_utilization_ratio", "gauge",
               "Share of the last sample period a kernel ran on the GPU (gpu_util_pct / 100).",
               offsetof(struct metrics_gpu, util_pct), 0.01);
    gpu_series(f, s, "flinch_gpu_sm_clock_hertz", "gauge", "SM clock.",
               offsetof(struct metrics_gpu, sm_clock_mhz), 1e6);
    gpu_series(f, s, "flinch_gpu_energy_joules_total", "counter",
               "GPU energy counter since the driver loaded (gpu_energy_mJ / 1000).",
               offsetof(struct metrics_gpu, energy_mj), 1e-3);
    counter(f, "flinch_samples_total", "SAMPLE rows written (one per GPU per tick).", s->samples);
    counter(f, "flinch_ticks_skipped_total",
            "Sampling ticks skipped because the recorder woke too late.", s->ticks_skipped);
    counter(f, "flinch_marks_received_total", "MARK lines accepted from the marks FIFO.",
            s->marks_received);
    counter(f, "flinch_marks_rejected_total", "MARK lines refused (malformed or too long).",
            s->marks_rejected);
    counter(f, "flinch_live_rows_dropped_total",
            "Trace rows the live analysis could not keep up with (window metrics may miss them).",
            s->live_rows_dropped);
    if (s->nwin)
        window_series(f, s);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}
