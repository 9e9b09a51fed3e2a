/* gpu_sampler.c — NVML queries for one GPU; see gpu_sampler.h. */
#include "gpu_sampler.h"

#include "clock.h"
#include "diag.h"

static const char *const value_names[GV_COUNT] = {
    "power", "utilization", "memory utilization", "SM clock", "temperature",
    "energy counter", "instant power", "memory used", "clock-event reasons",
    "power limit",
};

nvmlReturn_t gpu_dev_open(const struct nvml_lib *lib, struct gpu_dev *dev, unsigned index)
{
    dev->index = index;
    dev->warned = 0;
    dev->handle = NULL;
    return lib->device_by_index(index, &dev->handle);
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

/* A field value in mW, whatever integer or double type the driver chose. */
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

nvmlReturn_t gpu_sample(const struct nvml_lib *lib, struct gpu_dev *dev, struct gpu_reading *r)
{
    nvmlDevice_t h = dev->handle;
    int lost = 0;
    r->have = 0;
    r->t_mono_ns = mono_ns();
    r->t_wall_ns = wall_ns();

    /* The exact readings first, closest to t_mono_ns: on a real driver each
     * query takes tens to hundreds of us, and the energy counter and the
     * instantaneous power are what window energies are computed from. */
    if (lib->total_energy) {
        unsigned long long mj = 0;
        nvmlReturn_t rc = lib->total_energy(h, &mj);
        lost |= note(lib, dev, r, GV_ENERGY_MJ, rc, mj);
    }
    if (!lost && lib->field_values) {
        nvmlFieldValue_t f = { 0 };
        f.fieldId = NVML_FI_DEV_POWER_INSTANT;
        nvmlReturn_t rc = lib->field_values(h, 1, &f);
        if (rc == NVML_SUCCESS)
            rc = f.nvmlReturn;
        lost |= note(lib, dev, r, GV_POWER_INSTANT_MW, rc, field_as_ull(&f));
    }
    if (!lost && lib->power_usage) {
        unsigned mw = 0;
        nvmlReturn_t rc = lib->power_usage(h, &mw);
        lost |= note(lib, dev, r, GV_POWER_MW, rc, mw);
    }
    if (!lost && lib->utilization) {
        nvmlUtilization_t u = { 0, 0 };
        nvmlReturn_t rc = lib->utilization(h, &u);
        lost |= note(lib, dev, r, GV_UTIL_GPU, rc, u.gpu);
        lost |= note(lib, dev, r, GV_UTIL_MEM, rc, u.memory);
    }
    if (!lost && lib->clock_info) {
        unsigned mhz = 0;
        nvmlReturn_t rc = lib->clock_info(h, NVML_CLOCK_SM, &mhz);
        lost |= note(lib, dev, r, GV_SM_CLOCK_MHZ, rc, mhz);
    }
    if (!lost && lib->temperature) {
        unsigned c = 0;
        nvmlReturn_t rc = lib->temperature(h, NVML_TEMPERATURE_GPU, &c);
        lost |= note(lib, dev, r, GV_TEMP_C, rc, c);
    }
    if (!lost && lib->memory_info) {
        nvmlMemory_t m = { 0, 0, 0 };
        nvmlReturn_t rc = lib->memory_info(h, &m);
        lost |= note(lib, dev, r, GV_MEM_USED_BYTES, rc, m.used);
    }
    if (!lost && lib->clock_event_reasons) {
        unsigned long long bits = 0;
        nvmlReturn_t rc = lib->clock_event_reasons(h, &bits);
        lost |= note(lib, dev, r, GV_REASONS, rc, bits);
    }
    if (!lost && lib->power_limit) {
        unsigned mw = 0;
        nvmlReturn_t rc = lib->power_limit(h, &mw);
        lost |= note(lib, dev, r, GV_POWER_LIMIT_MW, rc, mw);
    }
    return lost ? NVML_ERROR_GPU_IS_LOST : NVML_SUCCESS;
}
