/*
 * sim_gpm.c — the simulated NVML's GPM entry points (GPU performance
 * monitoring, Hopper and newer): nvmlGpmQueryDeviceSupport,
 * nvmlGpmSampleAlloc/Free, nvmlGpmSampleGet and nvmlGpmMetricsGet.
 *
 * Owns: what a GPM sample holds and what the metrics between two samples
 * are. A sample is a snapshot of the GPU's activity counters as of their
 * last internal refresh (every `gpm_refresh_ms`, 100 by default, on a grid
 * from scenario time 0): NVIDIA's reference asks for samples more than
 * 100 ms apart "due to the internal sample refresh rate", and an NVIDIA
 * engineer called values taken closer "invalid" (DCGM issue #310), not
 * failed. So the metrics are the time averages of the scenario's readings
 * over the span between the two snapshots; two samples inside one refresh
 * period give a span of zero and every metric reads 0 with NVML_SUCCESS
 * (garbage, as on the real driver, which is why the recorder keeps its
 * samples over 100 ms apart). The readings: `sm_active`, `occupancy`,
 * `tensor`, `dram_bw` (percent), each derived when never set: sm_active =
 * util, occupancy = sm_active / 2, tensor = 0, dram_bw = mem_util.
 *
 * The awkward parts of a real driver: `gpm off` plays a GPU before Hopper
 * (nvmlGpmQueryDeviceSupport succeeds with isSupportedDevice 0, sampling
 * answers NOT_SUPPORTED); `error 4 nvmlGpmSampleGet` and the like play a
 * container without the permission; the legacy build exports none of
 * these symbols (an r515 or older driver). Structs carry the versions
 * nvml.h sets (1 for both), else NVML_ERROR_ARGUMENT_VERSION_MISMATCH.
 */
#include "sim_internal.h"

#include <stdlib.h>
#include <string.h>

#ifndef SIM_LEGACY_ABI

#define NS_PER_MS 1000000LL
#define SAMPLE_MAGIC 0x47504d53u   /* "GPMS" */

struct nvmlGpmSample_st {
    unsigned magic;
    int filled;
    nvmlDevice_t device;     /* the GPU it was taken on */
    long long snap_ns;       /* scenario time of the counters it holds */
};

/* Twice the percentage a GPM metric reads while reading r holds (twice:
 * the derived occupancy is half of SM activity, and integers keep the
 * integral exact); -1: no such metric. */
static long long metric2_of(const struct sim_reading *r, unsigned id)
{
    long long sm2 = 2LL * (r->sm_active_pct >= 0 ? r->sm_active_pct : (int)r->util_pct);
    switch (id) {
    case NVML_GPM_METRIC_SM_UTIL:         return sm2;
    case NVML_GPM_METRIC_SM_OCCUPANCY:    return r->sm_occupancy_pct >= 0 ? 2LL * r->sm_occupancy_pct : sm2 / 2;
    case NVML_GPM_METRIC_ANY_TENSOR_UTIL: return r->tensor_pct >= 0 ? 2LL * r->tensor_pct : 0;
    case NVML_GPM_METRIC_DRAM_BW_UTIL:    return 2LL * (r->dram_bw_pct >= 0 ? r->dram_bw_pct : (int)r->mem_util_pct);
    default:                              return -1;
    }
}

/* What a metric adds over ns at reading r: 2 x percent x ns. */
static long long metric_amount(const struct sim_reading *r, long long ns, const void *arg)
{
    return metric2_of(r, *(const unsigned *)arg) * ns;
}

/* The instant of the counters' last refresh at or before t_ns. */
static long long snapshot_ns(const struct sim_scenario *sc, long long t_ns)
{
    long long r = sc->gpm_refresh_ms * NS_PER_MS;
    if (r <= 0)
        return t_ns;
    long long k = t_ns / r;
    if (t_ns < 0 && k * r != t_ns)
        k--;
    return k * r;
}

EXPORT nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t device, nvmlGpmSupport_t *gpmSupport)
{
    unsigned gpu;
    long long t;
    if (gpmSupport && gpmSupport->version != NVML_GPM_SUPPORT_VERSION)
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    nvmlReturn_t rc = sim_device_query(device, gpmSupport, SIM_FN_GPM_SUPPORT, &gpu, &t);
    if (rc != NVML_SUCCESS)
        return rc;
    gpmSupport->isSupportedDevice = !sim_scn.gpm_off[gpu];
    pthread_mutex_unlock(&sim_lock);
    return NVML_SUCCESS;
}

/* Not a device query (no device): not counted, no latency. */
EXPORT nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t *gpmSample)
{
    if (!gpmSample)
        return NVML_ERROR_INVALID_ARGUMENT;
    pthread_mutex_lock(&sim_lock);
    int up = sim_initialized();
    pthread_mutex_unlock(&sim_lock);
    if (!up)
        return NVML_ERROR_UNINITIALIZED;
    struct nvmlGpmSample_st *s = calloc(1, sizeof *s);
    if (!s)
        return NVML_ERROR_UNKNOWN;   /* NVML_ERROR_MEMORY in nvml.h; not declared here */
    s->magic = SAMPLE_MAGIC;
    gpmSample->handle = s;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t gpmSample)
{
    struct nvmlGpmSample_st *s = gpmSample.handle;
    if (!s || s->magic != SAMPLE_MAGIC)
        return NVML_ERROR_INVALID_ARGUMENT;
    s->magic = 0;
    free(s);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t device, nvmlGpmSample_t gpmSample)
{
    unsigned gpu;
    long long t;
    struct nvmlGpmSample_st *s = gpmSample.handle;
    int ok = s && s->magic == SAMPLE_MAGIC;
    nvmlReturn_t rc = sim_device_query(device, ok ? s : NULL, SIM_FN_GPM_SAMPLE, &gpu, &t);
    if (rc != NVML_SUCCESS)
        return rc;
    if (sim_scn.gpm_off[gpu]) {
        rc = NVML_ERROR_NOT_SUPPORTED;
    } else {
        s->filled = 1;
        s->device = device;
        s->snap_ns = snapshot_ns(&sim_scn, t);
    }
    pthread_mutex_unlock(&sim_lock);
    return rc;
}

/* A device query on the GPU of sample1 (counted there, with its latency
 * and faults). Each metric gets its own nvmlReturn: an id the simulator
 * does not model answers NOT_SUPPORTED while the call succeeds. */
EXPORT nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t *metricsGet)
{
    nvmlGpmMetricsGet_t *m = metricsGet;
    if (!m)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (m->version != NVML_GPM_METRICS_GET_VERSION)
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    const struct nvmlGpmSample_st *a = m->sample1.handle, *b = m->sample2.handle;
    if (!a || !b || a->magic != SAMPLE_MAGIC || b->magic != SAMPLE_MAGIC || !a->filled ||
        !b->filled || a->device != b->device || m->numMetrics > NVML_GPM_METRIC_MAX)
        return NVML_ERROR_INVALID_ARGUMENT;
    unsigned gpu;
    long long t;
    nvmlReturn_t rc = sim_device_query(a->device, m, SIM_FN_GPM_METRICS, &gpu, &t);
    if (rc != NVML_SUCCESS)
        return rc;
    if (sim_scn.gpm_off[gpu]) {
        pthread_mutex_unlock(&sim_lock);
        return NVML_ERROR_NOT_SUPPORTED;
    }
    long long t0 = a->snap_ns, t1 = b->snap_ns;
    for (unsigned i = 0; i < m->numMetrics; i++) {
        nvmlGpmMetric_t *x = &m->metrics[i];
        memset(&x->metricInfo, 0, sizeof x->metricInfo);
        x->value = 0;
        if (metric2_of(&sim_scn.gpu[gpu].steps[0].r, x->metricId) < 0) {
            x->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
            continue;
        }
        x->nvmlReturn = NVML_SUCCESS;
        if (t1 != t0)   /* one refresh period: nothing counted between, 0 */
            x->value = (double)(timeline_amount_to(&sim_scn, gpu, metric_amount, &x->metricId, t1) -
                                timeline_amount_to(&sim_scn, gpu, metric_amount, &x->metricId, t0)) /
                       (2.0 * (double)(t1 - t0));
    }
    pthread_mutex_unlock(&sim_lock);
    return NVML_SUCCESS;
}

#endif
