/* gpu_sampler.c — NVML queries for one GPU; see gpu_sampler.h. */
#include <string.h>

#include "gpu_sampler.h"

#include "clock.h"
#include "diag.h"

static const char *const value_names[GV_COUNT] = {
    "power", "utilization", "memory utilization", "SM clock", "temperature",
    "energy counter", "instant power", "memory used", "clock-event reasons",
    "power limit", "energy timestamp", "instant-power timestamp", "P-state",
    "power-cap throttle time", "SW thermal throttle time", "HW thermal throttle time",
    "HW power-brake throttle time", "PCIe bytes sent", "PCIe bytes received",
    "traced processes' SM share", "other processes' SM share", "per-process sample time",
};

/* The fields asked for every tick, and the reading each fills. */
static const struct { unsigned id; enum gpu_value v; } fast_fields[] = {
    { NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION, GV_ENERGY_MJ },
    { NVML_FI_DEV_POWER_INSTANT, GV_POWER_INSTANT_MW },
    { NVML_FI_DEV_POWER_AVERAGE, GV_POWER_MW },
    { NVML_FI_DEV_PERF_POLICY_POWER, GV_THR_SW_POWER_NS },
    { NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN, GV_THR_SW_THERMAL_NS },
    { NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN, GV_THR_HW_THERMAL_NS },
    { NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN, GV_THR_HW_BRAKE_NS },
    { NVML_FI_DEV_PCIE_COUNT_TX_BYTES, GV_PCIE_TX_BYTES },
    { NVML_FI_DEV_PCIE_COUNT_RX_BYTES, GV_PCIE_RX_BYTES },
};
#define N_FAST_FIELDS (int)(sizeof fast_fields / sizeof fast_fields[0])

/* The readings of the medium and slow groups, kept between their reads. */
#define MEDIUM_MASK ((1u << GV_SM_CLOCK_MHZ) | (1u << GV_REASONS))
#define SLOW_MASK ((1u << GV_TEMP_C) | (1u << GV_MEM_USED_BYTES) | (1u << GV_POWER_LIMIT_MW) | \
                   (1u << GV_PSTATE))

static int64_t every(int period_ms, int interval_ms)
{
    int64_t n = ((int64_t)period_ms + interval_ms / 2) / interval_ms;
    return n < 1 ? 1 : n;
}

nvmlReturn_t gpu_dev_open(const struct nvml_lib *lib, struct gpu_dev *dev, unsigned index,
                          int interval_ms)
{
    memset(dev, 0, sizeof *dev);
    dev->index = index;
    dev->medium_every = every(GPU_MEDIUM_MS, interval_ms);
    dev->slow_every = every(GPU_SLOW_MS, interval_ms);
    dev->medium_at = dev->slow_at = -1;
    for (int i = 0; i < N_FAST_FIELDS; i++)
        dev->field_ids[dev->nfields++] = fast_fields[i].id;
    dev->no_field_call = !lib->field_values;
    dev->energy_by_func = dev->no_field_call;
    dev->power_by_func = dev->no_field_call;
    dev->temp_by_v = !lib->temperature;
    nvmlReturn_t rc = lib->device_by_index(index, &dev->handle);
    if (rc == NVML_SUCCESS)
        gpm_open(lib, dev->handle, &dev->gpm, interval_ms);
    return rc;
}

void gpu_dev_close(const struct nvml_lib *lib, struct gpu_dev *dev)
{
    gpm_close(lib, &dev->gpm);
    gpu_proc_util_free(&dev->proc);
}

/* Records the outcome of one query. Returns 1 when the GPU is lost. The
 * query must be made before the call (its output is read here, and the
 * order arguments are evaluated in is unspecified). */
static int note(const struct nvml_lib *lib, struct gpu_dev *dev, struct gpu_reading *r,
                enum gpu_value v, nvmlReturn_t rc, unsigned long long value)
{
    if (rc == NVML_SUCCESS) {
        r->v[v] = value;
        r->have |= 1u << v;
        return 0;
    }
    r->have &= ~(1u << v);
    if (rc == NVML_ERROR_GPU_IS_LOST)
        return 1;
    if (rc != NVML_ERROR_NOT_SUPPORTED && rc != NVML_ERROR_FUNCTION_NOT_FOUND &&
        !(dev->warned & (1u << v))) {
        dev->warned |= 1u << v;
        diag_warn("GPU %u: reading %s failed: %s; leaving it empty", dev->index,
                  value_names[v], nvml_strerror(lib, rc));
    }
    return 0;
}

/* A field value as an unsigned integer, whatever type the driver chose;
 * negative values (never valid for these fields) read as 0. */
static unsigned long long field_as_ull(const nvmlFieldValue_t *f)
{
    switch (f->valueType) {
    case NVML_VALUE_TYPE_DOUBLE:             return f->value.dVal > 0 ? (unsigned long long)(f->value.dVal + 0.5) : 0;
    case NVML_VALUE_TYPE_UNSIGNED_INT:       return f->value.uiVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG:      return f->value.ulVal;
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG:   return f->value.sllVal > 0 ? (unsigned long long)f->value.sllVal : 0;
    case NVML_VALUE_TYPE_SIGNED_INT:         return f->value.siVal > 0 ? (unsigned long long)f->value.siVal : 0;
    default:                                 return f->value.ullVal;
    }
}

static enum gpu_value field_value(unsigned id)
{
    for (int i = 0; i < N_FAST_FIELDS; i++)
        if (fast_fields[i].id == id)
            return fast_fields[i].v;
    return GV_COUNT;
}

/* Stops asking for field `id`; its function fallback (if any) takes over. */
static void drop_field(struct gpu_dev *dev, unsigned id)
{
    for (int i = 0; i < dev->nfields; i++)
        if (dev->field_ids[i] == id) {
            dev->field_ids[i] = dev->field_ids[--dev->nfields];
            break;
        }
    if (id == NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION)
        dev->energy_by_func = 1;
    if (id == NVML_FI_DEV_POWER_AVERAGE)
        dev->power_by_func = 1;
}

/* The one field-values call of a tick. Each entry carries its own return
 * code: a real driver answers the call with SUCCESS and sets NOT_SUPPORTED
 * (or another error) on the entries it cannot fill. An entry answering
 * NOT_SUPPORTED is dropped for good (its fallback function is called from
 * this tick on); other per-entry errors leave that reading empty. */
static int sample_fields(const struct nvml_lib *lib, struct gpu_dev *dev, struct gpu_reading *r)
{
    if (dev->no_field_call || dev->nfields == 0)
        return 0;
    nvmlFieldValue_t f[GPU_FIELD_MAX];
    memset(f, 0, sizeof f);
    int n = dev->nfields;
    for (int i = 0; i < n; i++)
        f[i].fieldId = dev->field_ids[i];
    nvmlReturn_t rc = lib->field_values(dev->handle, n, f);
    if (rc == NVML_ERROR_GPU_IS_LOST)
        return 1;
    if (rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_FUNCTION_NOT_FOUND) {
        dev->no_field_call = 1;
        dev->energy_by_func = dev->power_by_func = 1;
        return 0;
    }
    for (int i = 0; i < n; i++) {
        enum gpu_value v = field_value(f[i].fieldId);
        nvmlReturn_t frc = rc == NVML_SUCCESS ? f[i].nvmlReturn : rc;
        if (v == GV_COUNT)
            continue;
        if (frc == NVML_ERROR_NOT_SUPPORTED) {
            drop_field(dev, f[i].fieldId);
            continue;
        }
        if (note(lib, dev, r, v, frc, field_as_ull(&f[i])))
            return 1;
        /* where a counter wraps follows from its type (pcie_counter.h) */
        if (frc == NVML_SUCCESS && (v == GV_PCIE_TX_BYTES || v == GV_PCIE_RX_BYTES))
            dev->pcie_bits = f[i].valueType == NVML_VALUE_TYPE_UNSIGNED_INT ||
                             f[i].valueType == NVML_VALUE_TYPE_SIGNED_INT ? 32 : 64;
        if (frc == NVML_SUCCESS && f[i].timestamp > 0) {
            if (v == GV_ENERGY_MJ)
                note(lib, dev, r, GV_ENERGY_TS_US, NVML_SUCCESS, (unsigned long long)f[i].timestamp);
            if (v == GV_POWER_INSTANT_MW)
                note(lib, dev, r, GV_POWER_INSTANT_TS_US, NVML_SUCCESS,
                     (unsigned long long)f[i].timestamp);
        }
    }
    return 0;
}

/* Energy and average power from their own functions, where the fields are
 * not to be had. */
static int sample_fallbacks(const struct nvml_lib *lib, struct gpu_dev *dev, struct gpu_reading *r)
{
    int lost = 0;
    if (dev->energy_by_func && lib->total_energy) {
        unsigned long long mj = 0;
        nvmlReturn_t rc = lib->total_energy(dev->handle, &mj);
        lost |= note(lib, dev, r, GV_ENERGY_MJ, rc, mj);
    }
    if (!lost && dev->power_by_func && lib->power_usage) {
        unsigned mw = 0;
        nvmlReturn_t rc = lib->power_usage(dev->handle, &mw);
        lost |= note(lib, dev, r, GV_POWER_MW, rc, mw);
    }
    return lost;
}

/* Utilization every tick: the analysis decides busy from it sample by
 * sample (its edges would otherwise move by up to the medium period). */
static int sample_utilization(const struct nvml_lib *lib, struct gpu_dev *dev, struct gpu_reading *r)
{
    int lost = 0;
    if (lib->utilization) {
        nvmlUtilization_t u = { 0, 0 };
        nvmlReturn_t rc = lib->utilization(dev->handle, &u);
        lost |= note(lib, dev, r, GV_UTIL_GPU, rc, u.gpu);
        lost |= note(lib, dev, r, GV_UTIL_MEM, rc, u.memory);
    }
    return lost;
}

static int sample_medium(const struct nvml_lib *lib, struct gpu_dev *dev, struct gpu_reading *r)
{
    nvmlDevice_t h = dev->handle;
    int lost = 0;
    if (lib->clock_info) {
        unsigned mhz = 0;
        nvmlReturn_t rc = lib->clock_info(h, NVML_CLOCK_SM, &mhz);
        lost |= note(lib, dev, r, GV_SM_CLOCK_MHZ, rc, mhz);
    }
    if (!lost && lib->clock_event_reasons) {
        unsigned long long bits = 0;
        nvmlReturn_t rc = lib->clock_event_reasons(h, &bits);
        lost |= note(lib, dev, r, GV_REASONS, rc, bits);
    }
    return lost;
}

/* nvmlDeviceGetTemperature is deprecated since CUDA 13 and answers
 * NVML_ERROR_DEPRECATED there: switch to nvmlDeviceGetTemperatureV, whose
 * struct carries its version as nvml.h's nvmlTemperature_v1 macro sets it. */
static int sample_temperature(const struct nvml_lib *lib, struct gpu_dev *dev,
                              struct gpu_reading *r)
{
    if (!dev->temp_by_v) {
        unsigned c = 0;
        nvmlReturn_t rc = lib->temperature(dev->handle, NVML_TEMPERATURE_GPU, &c);
        if (rc != NVML_ERROR_DEPRECATED || !lib->temperature_v)
            return note(lib, dev, r, GV_TEMP_C, rc, c);
        dev->temp_by_v = 1;
    }
    if (!lib->temperature_v)
        return 0;
    nvmlTemperature_v1_t t;
    memset(&t, 0, sizeof t);
    t.version = nvmlTemperature_v1;
    t.sensorType = NVML_TEMPERATURE_GPU;
    nvmlReturn_t rc = lib->temperature_v(dev->handle, &t);
    if (rc == NVML_SUCCESS && t.temperature < 0)
        rc = NVML_ERROR_UNKNOWN;
    return note(lib, dev, r, GV_TEMP_C, rc, rc == NVML_SUCCESS ? (unsigned)t.temperature : 0);
}

static int sample_slow(const struct nvml_lib *lib, struct gpu_dev *dev, struct gpu_reading *r)
{
    nvmlDevice_t h = dev->handle;
    int lost = sample_temperature(lib, dev, r);
    if (!lost && lib->memory_info) {
        nvmlMemory_t m = { 0, 0, 0 };
        nvmlReturn_t rc = lib->memory_info(h, &m);
        lost |= note(lib, dev, r, GV_MEM_USED_BYTES, rc, m.used);
    }
    if (!lost && lib->power_limit) {
        unsigned mw = 0;
        nvmlReturn_t rc = lib->power_limit(h, &mw);
        lost |= note(lib, dev, r, GV_POWER_LIMIT_MW, rc, mw);
    }
    if (!lost && lib->pstate) {
        nvmlPstates_t p = NVML_PSTATE_UNKNOWN;
        nvmlReturn_t rc = lib->pstate(h, &p);
        if (rc == NVML_SUCCESS && (p < 0 || p > NVML_PSTATE_15))
            rc = NVML_ERROR_NOT_SUPPORTED;  /* NVML_PSTATE_UNKNOWN: no reading */
        lost |= note(lib, dev, r, GV_PSTATE, rc, rc == NVML_SUCCESS ? (unsigned)p : 0);
    }
    return lost;
}

/* A group is read on the first tick and then every `every` ticks. */
static int due(int64_t last, int64_t tick, int64_t every)
{
    return last < 0 || tick - last >= every || tick < last;
}

nvmlReturn_t gpu_sample(const struct nvml_lib *lib, struct gpu_dev *dev, struct gpu_reading *r)
{
    int lost = 0;
    r->have = 0;
    r->t_mono_ns = mono_ns();
    r->t_wall_ns = wall_ns();

    /* The exact readings first, closest to t_mono_ns: the energy counter and
     * the instantaneous power are what window energies are computed from. */
    lost |= sample_fields(lib, dev, r);
    if (!lost)
        lost |= sample_fallbacks(lib, dev, r);
    if (!lost)
        lost |= sample_utilization(lib, dev, r);
    if (!lost && due(dev->medium_at, dev->tick, dev->medium_every)) {
        dev->medium_at = dev->tick;
        lost |= sample_medium(lib, dev, &dev->last);
    }
    if (!lost && due(dev->slow_at, dev->tick, dev->slow_every)) {
        dev->slow_at = dev->tick;
        lost |= sample_slow(lib, dev, &dev->last);
    }
    if (!lost)
        lost |= gpm_sample(lib, dev->handle, dev->index, &dev->gpm, dev->tick, &r->gpm);
    else
        memset(&r->gpm, 0, sizeof r->gpm);
    if (!lost && gpu_proc_util_due(&dev->proc, dev->tick)) {
        struct proc_util_reading pr;
        lost |= gpu_proc_util_read(lib, &dev->proc, dev->handle, dev->index, &pr);
        if (pr.ok) {
            note(lib, dev, r, GV_PROC_SM_PCT, NVML_SUCCESS, pr.proc_pct);
            note(lib, dev, r, GV_OTHER_SM_PCT, NVML_SUCCESS, pr.other_pct);
            note(lib, dev, r, GV_PROC_UTIL_TS_US, NVML_SUCCESS, pr.ts_us);
        }
    }
    unsigned kept = dev->last.have & (MEDIUM_MASK | SLOW_MASK);
    for (int v = 0; v < GV_COUNT; v++)
        if (kept & (1u << v))
            r->v[v] = dev->last.v[v];
    r->have |= kept;
    return lost ? NVML_ERROR_GPU_IS_LOST : NVML_SUCCESS;
}
