/* gpu_gpm.c — GPM samples and metrics for one GPU; see gpu_gpm.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_gpm.h"

#include "clock.h"
#include "diag.h"

static const unsigned metric_ids[GPM_N] = {
    NVML_GPM_METRIC_SM_UTIL, NVML_GPM_METRIC_SM_OCCUPANCY, NVML_GPM_METRIC_ANY_TENSOR_UTIL,
    NVML_GPM_METRIC_DRAM_BW_UTIL,
};
static const char *const metric_names[GPM_N] = {
    "SM activity", "SM occupancy", "tensor activity", "DRAM bandwidth",
};

/* Off for good, with its reason (set once: the first reason stays). */
static void turn_off(struct gpu_gpm *g, const char *why, const char *detail)
{
    g->on = 0;
    g->why = why;
    snprintf(g->detail, sizeof g->detail, "%s", detail ? detail : "");
    for (char *p = g->detail; *p; p++)   /* the EVENT label quotes it */
        if (*p == '"' || *p == '\\' || *p == ',' || *p < 0x20 || *p > 0x7e)
            *p = '_';
    g->changed = 1;
}

/* A call's failure that ends GPM for this GPU, or 0 for one that only
 * spoils this span. */
static const char *fatal_reason(nvmlReturn_t rc)
{
    if (rc == NVML_ERROR_NO_PERMISSION)
        return "no_permission";
    if (rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_FUNCTION_NOT_FOUND)
        return "unsupported";
    return NULL;
}

void gpm_open(const struct nvml_lib *lib, nvmlDevice_t h, struct gpu_gpm *g, int interval_ms)
{
    memset(g, 0, sizeof *g);
    g->interval_ms = interval_ms > 0 ? interval_ms : 1;
    g->every = (GPU_GPM_MS + g->interval_ms / 2) / g->interval_ms;
    if (g->every < 1)
        g->every = 1;
    g->at = -1;
    const char *missing = !lib->gpm_query_support ? "nvmlGpmQueryDeviceSupport" :
                          !lib->gpm_sample_alloc ? "nvmlGpmSampleAlloc" :
                          !lib->gpm_sample_free ? "nvmlGpmSampleFree" :
                          !lib->gpm_sample_get ? "nvmlGpmSampleGet" :
                          !lib->gpm_metrics_get ? "nvmlGpmMetricsGet" : NULL;
    if (missing) {
        turn_off(g, "missing_symbol", missing);
        return;
    }
    nvmlGpmSupport_t support;
    memset(&support, 0, sizeof support);
    support.version = NVML_GPM_SUPPORT_VERSION;
    nvmlReturn_t rc = lib->gpm_query_support(h, &support);
    if (rc != NVML_SUCCESS) {
        const char *why = fatal_reason(rc);
        turn_off(g, why ? why : "error", nvml_strerror(lib, rc));
        return;
    }
    if (!support.isSupportedDevice) {
        turn_off(g, "unsupported", "isSupportedDevice=0 (GPM needs Hopper or newer)");
        return;
    }
    g->get = calloc(1, sizeof *g->get);
    if (!g->get) {
        turn_off(g, "error", "out of memory");
        return;
    }
    for (int i = 0; i < 2; i++) {
        rc = lib->gpm_sample_alloc(&g->sample[i]);
        if (rc != NVML_SUCCESS) {
            g->sample[i].handle = NULL;
            gpm_close(lib, g);
            turn_off(g, "error", nvml_strerror(lib, rc));
            return;
        }
    }
    g->on = 1;
    g->changed = 1;
}

void gpm_close(const struct nvml_lib *lib, struct gpu_gpm *g)
{
    for (int i = 0; i < 2; i++) {
        if (g->sample[i].handle && lib->gpm_sample_free)
            lib->gpm_sample_free(g->sample[i]);
        g->sample[i].handle = NULL;
    }
    free(g->get);
    g->get = NULL;
    g->on = 0;
}

/* Warns once per GPU about an error that spoils spans but not GPM itself. */
static void warn_once(const struct nvml_lib *lib, struct gpu_gpm *g, unsigned index, int bit,
                      const char *what, nvmlReturn_t rc)
{
    if (g->warned & (1u << bit))
        return;
    g->warned |= 1u << bit;
    diag_warn("GPU %u: GPM %s failed: %s; leaving it empty", index, what, nvml_strerror(lib, rc));
}

/* A failed GPM call: GPM ends for a reason (fatal_reason), else this
 * span is lost with one warning per GPU. */
static void call_failed(const struct nvml_lib *lib, struct gpu_gpm *g, unsigned index,
                        const char *what, nvmlReturn_t rc)
{
    const char *why = fatal_reason(rc);
    if (why)
        turn_off(g, why, nvml_strerror(lib, rc));
    else
        warn_once(lib, g, index, GPM_N, what, rc);
}

/* The metrics between sample[cur] and sample[next]; 1 when the GPU is lost. */
static int read_metrics(const struct nvml_lib *lib, unsigned index, struct gpu_gpm *g, int next,
                        struct gpm_reading *out)
{
    nvmlGpmMetricsGet_t *m = g->get;
    m->version = NVML_GPM_METRICS_GET_VERSION;
    m->numMetrics = GPM_N;
    m->sample1 = g->sample[g->cur];
    m->sample2 = g->sample[next];
    for (int i = 0; i < GPM_N; i++) {
        memset(&m->metrics[i], 0, sizeof m->metrics[i]);
        m->metrics[i].metricId = metric_ids[i];
    }
    nvmlReturn_t rc = lib->gpm_metrics_get(m);
    if (rc == NVML_ERROR_GPU_IS_LOST)
        return 1;
    if (rc != NVML_SUCCESS) {
        call_failed(lib, g, index, "metrics", rc);
        return 0;
    }
    /* Each metric has its own code; a value outside 0..100 (or NaN) is
     * not a percentage and is left out rather than written. */
    for (int i = 0; i < GPM_N; i++) {
        const nvmlGpmMetric_t *x = &m->metrics[i];
        if (x->nvmlReturn == NVML_SUCCESS && isfinite(x->value) && x->value >= 0 && x->value <= 100) {
            out->pct[i] = x->value;
            out->have |= 1u << i;
        } else if (x->nvmlReturn != NVML_ERROR_NOT_SUPPORTED) {
            warn_once(lib, g, index, i, metric_names[i],
                      x->nvmlReturn != NVML_SUCCESS ? x->nvmlReturn : NVML_ERROR_UNKNOWN);
        }
    }
    return 0;
}

int gpm_sample(const struct nvml_lib *lib, nvmlDevice_t h, unsigned index, struct gpu_gpm *g,
               int64_t tick, struct gpm_reading *out)
{
    memset(out, 0, sizeof *out);
    if (!g->on)
        return 0;
    if (g->at >= 0 && tick - g->at < g->every && tick >= g->at)
        return 0;
    int64_t now = mono_ns();
    if (g->have_prev && now - g->prev_ns <= GPM_MIN_GAP_NS)
        return 0;                       /* too soon by the clock: the next tick takes it */
    int next = g->have_prev ? 1 - g->cur : g->cur;
    nvmlReturn_t rc = lib->gpm_sample_get(h, g->sample[next]);
    g->at = tick;
    if (rc == NVML_ERROR_GPU_IS_LOST)
        return 1;
    if (rc != NVML_SUCCESS) {
        call_failed(lib, g, index, "sample", rc);
        g->have_prev = 0;               /* start over from the next good sample */
        return 0;
    }
    int lost = 0;
    if (g->have_prev) {
        out->span_ns = now - g->prev_ns;
        lost = read_metrics(lib, index, g, next, out);
        if (!out->have)
            out->span_ns = 0;
    }
    g->cur = next;
    g->prev_ns = now;
    g->have_prev = 1;
    return lost;
}

void gpm_label(const struct gpu_gpm *g, unsigned index, char *buf, size_t len)
{
    if (g->on)
        snprintf(buf, len, "flinch_gpm gpu=%u status=on every_ms=%lld", index,
                 (long long)g->every * g->interval_ms);
    else
        snprintf(buf, len, "flinch_gpm gpu=%u status=off reason=%s detail=\"%s\"", index,
                 g->why ? g->why : "error", g->detail);
}
