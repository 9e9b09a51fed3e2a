/*
 * metrics_text.c — see metrics_text.h.
 *
 * Values are printed with %.10g (10 significant digits, as the Perfetto
 * export writes its counters): 1.457749624, not 1.4577496239999999,
 * the double's last bits being noise in a sensor reading or a sum of them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics_text.h"
#include "utf8.h"
#include "version.h"

const double metrics_bucket_bounds[METRICS_BUCKETS] = {
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300,
};

void metrics_state_init(struct metrics_state *s, const char *host)
{
    memset(s, 0, sizeof *s);
    snprintf(s->version, sizeof s->version, "%s", FLINCH_VERSION);
    snprintf(s->host, sizeof s->host, "%s", host ? host : "");
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
    g->sm_active_pct = g->proc_sm_pct = g->other_sm_pct = NAN;
    return g;
}

int metrics_state_ranges(struct metrics_state *s, int cap)
{
    if (cap < 1 || cap > METRICS_RANGES_MAX)
        return -1;
    s->range = calloc((size_t)cap + 1, sizeof *s->range);
    if (!s->range)
        return -1;
    s->range_cap = cap;
    snprintf(s->range[cap].name, sizeof s->range[cap].name, "%s", METRICS_RANGE_OTHER);
    return 0;
}

void metrics_state_free(struct metrics_state *s)
{
    free(s->range);
    s->range = NULL;
    s->range_cap = s->nrange = 0;
}

/* Names that agree up to the cut share a series (README). */
void metrics_label_value(char *out, const char *label)
{
    const size_t room = METRICS_NAME_MAX - 1;
    size_t n = 0, len = strlen(label), cut = 0;
    int cutting = 0;
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)label[i];
        int clen = utf8_char_len(label + i, len - i);
        const char *src = label + i;
        size_t w = (size_t)clen;
        if (clen == 0 || c < 0x20 || c == 0x7f) {
            src = "\xEF\xBF\xBD";
            w = 3;
            clen = 1;
        }
        if (n + w > room - 3 && !cutting) {
            cut = n;                    /* where "..." goes if the rest does not fit */
            cutting = 1;
        }
        if (n + w > room) {
            memcpy(out + cut, "...", 3);
            n = cut + 3;
            break;
        }
        memcpy(out + n, src, w);
        n += w;
        i += (size_t)clen;
    }
    out[n] = '\0';
}

const char *metrics_range_name(void *state, const char *label)
{
    struct metrics_state *s = state;
    if (!s->range_cap)
        return NULL;
    char key[METRICS_NAME_MAX];
    metrics_label_value(key, label);
    struct metrics_window *other = &s->range[s->range_cap];
    if (strcmp(key, METRICS_RANGE_OTHER) != 0) {
        for (int i = 0; i < s->nrange; i++)
            if (strcmp(s->range[i].name, key) == 0)
                return s->range[i].name;
        if (s->nrange < s->range_cap) {
            struct metrics_window *m = &s->range[s->nrange++];
            memcpy(m->name, key, sizeof m->name);
            return m->name;
        }
    }
    s->other_used = 1;
    return other->name;
}

/* The compute / host-cpu / waiting seconds are the window's breakdown
 * (breakdown.c, as analyze makes it); a window without one (no GPU signal)
 * adds to none of the three. */
static void add_window(struct metrics_window *m, const struct window *w)
{
    if (!isfinite(w->duration_s))
        return;
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

void metrics_add_window(struct metrics_state *s, int win, const struct window *w)
{
    if (win >= 0 && win < s->nwin)
        add_window(&s->win[win], w);
}

void metrics_add_range_window(struct metrics_state *s, const struct window *w)
{
    for (int i = 0; i <= s->range_cap && s->range; i++)
        if (w->start_label == s->range[i].name) {
            add_window(&s->range[i], w);
            return;
        }
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

/* A family's HELP and TYPE lines. OpenMetrics names a counter's family
 * without its _total, says the unit of a name that ends in one, and has
 * an info type for flinch_build_info. */
static void head(FILE *f, int om, const char *name, const char *type, const char *help)
{
    if (!om) {
        fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
        return;
    }
    static const char *const units[] = { "watts", "joules", "seconds", "hertz", "ratio" };
    size_t n = strlen(name);
    if (strcmp(type, "counter") == 0 && n > 6 && strcmp(name + n - 6, "_total") == 0)
        n -= 6;
    if (strcmp(name, "flinch_build_info") == 0) {
        n -= 5;
        type = "info";
    }
    fprintf(f, "# HELP %.*s %s\n# TYPE %.*s %s\n", (int)n, name, help, (int)n, name, type);
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
        size_t ul = strlen(units[u]);
        if (n > ul + 1 && name[n - ul - 1] == '_' && strncmp(name + n - ul, units[u], ul) == 0)
            fprintf(f, "# UNIT %.*s %s\n", (int)n, name, units[u]);
    }
}

static void gpu_series(FILE *f, int om, const struct metrics_state *s, const char *name,
                       const char *type, const char *help, size_t offset, double scale)
{
    int any = 0;
    for (int i = 0; i < s->ngpu; i++) {
        const struct metrics_gpu *g = &s->gpu[i];
        double v = *(const double *)((const char *)g + offset);
        if (isnan(v))
            continue;
        if (!any++)
            head(f, om, name, type, help);
        char uuid[2 * METRICS_UUID_MAX];
        metrics_escape_label(uuid, sizeof uuid, g->uuid);
        fprintf(f, "%s{gpu=\"%d\",uuid=\"%s\"} %.10g\n", name, g->index, uuid, v * scale);
    }
}

static void counter(FILE *f, int om, const char *name, const char *help, long long v)
{
    head(f, om, name, "counter", help);
    fprintf(f, "%s %lld\n", name, v);
}

/* The window families: the configured windows (label `window`), then the
 * ranges (label `range`: each name given a series, then "other" once used). */
struct series_ref { const char *label; char value[2 * METRICS_NAME_MAX]; const struct metrics_window *m; };

static void window_series(FILE *f, int om, const struct metrics_state *s,
                          const struct series_ref *ref, int n)
{
    head(f, om, "flinch_window_duration_seconds", "histogram",
         "Duration of finished windows (MARK to MARK), by window definition or range name.");
    for (int i = 0; i < n; i++) {
        const struct metrics_window *m = ref[i].m;
        const char *l = ref[i].label, *v = ref[i].value;
        for (int b = 0; b < METRICS_BUCKETS; b++)
            fprintf(f, "flinch_window_duration_seconds_bucket{%s=\"%s\",le=\"%g\"} %llu\n",
                    l, v, metrics_bucket_bounds[b], (unsigned long long)m->bucket[b]);
        fprintf(f, "flinch_window_duration_seconds_bucket{%s=\"%s\",le=\"+Inf\"} %llu\n",
                l, v, (unsigned long long)m->count);
        fprintf(f, "flinch_window_duration_seconds_sum{%s=\"%s\"} %.10g\n", l, v, m->duration_sum_s);
        fprintf(f, "flinch_window_duration_seconds_count{%s=\"%s\"} %llu\n", l, v,
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
        head(f, om, sums[k].name, "counter", sums[k].help);
        for (int i = 0; i < n; i++)
            fprintf(f, "%s{%s=\"%s\"} %.10g\n", sums[k].name, ref[i].label, ref[i].value,
                    *(const double *)((const char *)ref[i].m + sums[k].off));
    }
    counter(f, om, "flinch_windows_abandoned_total",
            "Windows dropped unfinished: more than 1024 of one definition were open at once "
            "(ranges whose end never came).", s->windows_abandoned);
    head(f, om, "flinch_windows_total", "counter",
         "Finished windows, by window definition or range name, and verdict.");
    for (int i = 0; i < n; i++)
        for (int v = 0; v < VERDICT_COUNT; v++)
            fprintf(f, "flinch_windows_total{%s=\"%s\",verdict=\"%s\"} %llu\n", ref[i].label,
                    ref[i].value, verdict_name((enum verdict)v),
                    (unsigned long long)ref[i].m->by_verdict[v]);
}

static int window_refs(const struct metrics_state *s, struct series_ref **out)
{
    int n = 0;
    struct series_ref *ref = malloc(sizeof *ref * (size_t)(s->nwin + s->range_cap + 1));
    *out = ref;
    if (!ref)
        return 0;
    for (int i = 0; i < s->nwin; i++)
        ref[n++] = (struct series_ref){ "window", "", &s->win[i] };
    for (int i = 0; i < s->nrange; i++)
        ref[n++] = (struct series_ref){ "range", "", &s->range[i] };
    if (s->other_used)
        ref[n++] = (struct series_ref){ "range", "", &s->range[s->range_cap] };
    for (int i = 0; i < n; i++)
        metrics_escape_label(ref[i].value, sizeof ref[i].value, ref[i].m->name);
    return n;
}

char *metrics_render(const struct metrics_state *s, enum metrics_format fmt, size_t *len)
{
    int om = fmt == METRICS_OPENMETRICS;
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f)
        return NULL;
    char host[2 * sizeof s->host], version[2 * sizeof s->version];
    metrics_escape_label(host, sizeof host, s->host);
    metrics_escape_label(version, sizeof version, s->version);
    head(f, om, "flinch_build_info", "gauge", "flinch version and host; always 1.");
    fprintf(f, "flinch_build_info{version=\"%s\",host=\"%s\"} 1\n", version, host);
    gpu_series(f, om, s, "flinch_gpu_power_watts", "gauge",
               "GPU power draw as NVML reports it (gpu_power_W; a 1 s average on Ampere and later).",
               offsetof(struct metrics_gpu, power_w), 1);
    gpu_series(f, om, s, "flinch_gpu_power_instant_watts", "gauge",
               "Instantaneous GPU power (gpu_power_instant_W).",
               offsetof(struct metrics_gpu, power_instant_w), 1);
    gpu_series(f, om, s, "flinch_gpu_utilization_ratio", "gauge",
               "Share of the last sample period a kernel ran on the GPU (gpu_util_pct / 100).",
               offsetof(struct metrics_gpu, util_pct), 0.01);
    gpu_series(f, om, s, "flinch_gpu_sm_active_ratio", "gauge",
               "GPM SM activity over the latest GPM span, about 200 ms (gpu_sm_active_pct / 100; "
               "Hopper and newer).",
               offsetof(struct metrics_gpu, sm_active_pct), 0.01);
    gpu_series(f, om, s, "flinch_gpu_proc_sm_ratio", "gauge",
               "The traced process tree's share of the GPU's SM time, latest per-process reading, "
               "about 1 s (gpu_proc_sm_pct / 100; with --pid or a command).",
               offsetof(struct metrics_gpu, proc_sm_pct), 0.01);
    gpu_series(f, om, s, "flinch_gpu_other_sm_ratio", "gauge",
               "Every other process's share of the GPU's SM time, same reading "
               "(gpu_other_sm_pct / 100).",
               offsetof(struct metrics_gpu, other_sm_pct), 0.01);
    gpu_series(f, om, s, "flinch_gpu_sm_clock_hertz", "gauge", "SM clock.",
               offsetof(struct metrics_gpu, sm_clock_mhz), 1e6);
    gpu_series(f, om, s, "flinch_gpu_energy_joules_total", "counter",
               "GPU energy counter since the driver loaded (gpu_energy_mJ / 1000).",
               offsetof(struct metrics_gpu, energy_mj), 1e-3);
    counter(f, om, "flinch_samples_total", "SAMPLE rows written (one per GPU per tick).", s->samples);
    counter(f, om, "flinch_ticks_skipped_total",
            "Sampling ticks skipped because the recorder woke too late.", s->ticks_skipped);
    counter(f, om, "flinch_marks_received_total", "MARK lines accepted from the marks FIFO.",
            s->marks_received);
    counter(f, om, "flinch_marks_rejected_total", "MARK lines refused (malformed or too long).",
            s->marks_rejected);
    counter(f, om, "flinch_live_rows_dropped_total",
            "Trace rows the live analysis could not keep up with (window metrics may miss them).",
            s->live_rows_dropped);
    struct series_ref *ref;
    int nref = window_refs(s, &ref);
    if (nref)
        window_series(f, om, s, ref, nref);
    free(ref);
    if (om)
        fputs("# EOF\n", f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}
