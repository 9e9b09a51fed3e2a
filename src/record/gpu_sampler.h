/*
 * gpu_sampler.h — one set of readings from one GPU, taken through NVML.
 *
 * Owns: which NVML call fills which reading, and what a failure means. A
 * reading the driver does not support (NVML_ERROR_NOT_SUPPORTED, or an
 * entry point the library does not export) is absent, never 0: the CSV cell
 * stays empty. NVML_ERROR_GPU_IS_LOST on any call means the GPU fell off
 * the bus; the caller ends the recording. Other errors leave the reading
 * absent and are reported once per GPU and reading.
 */
#ifndef FLINCH_GPU_SAMPLER_H
#define FLINCH_GPU_SAMPLER_H

#include <stdint.h>

#include "nvml_loader.h"

enum gpu_value {
    GV_POWER_MW,          /* nvmlDeviceGetPowerUsage */
    GV_UTIL_GPU,          /* nvmlDeviceGetUtilizationRates .gpu */
    GV_UTIL_MEM,          /*   .memory */
    GV_SM_CLOCK_MHZ,      /* nvmlDeviceGetClockInfo(NVML_CLOCK_SM) */
    GV_TEMP_C,            /* nvmlDeviceGetTemperature(NVML_TEMPERATURE_GPU) */
    GV_ENERGY_MJ,         /* nvmlDeviceGetTotalEnergyConsumption */
    GV_POWER_INSTANT_MW,  /* nvmlDeviceGetFieldValues(NVML_FI_DEV_POWER_INSTANT) */
    GV_MEM_USED_BYTES,    /* nvmlDeviceGetMemoryInfo .used */
    GV_REASONS,           /* nvmlDeviceGetCurrentClocksEventReasons */
    GV_POWER_LIMIT_MW,    /* nvmlDeviceGetEnforcedPowerLimit */
    GV_COUNT
};

struct gpu_reading {
    int64_t t_mono_ns;    /* when the first query was issued */
    int64_t t_wall_ns;
    unsigned have;        /* bit (1u << GV_x) set when v[GV_x] is valid */
    unsigned long long v[GV_COUNT];
};

struct gpu_dev {
    unsigned index;
    nvmlDevice_t handle;
    unsigned warned;      /* bit per gpu_value already reported */
};

/* Opens GPU index; returns its code (NVML_SUCCESS...). */
nvmlReturn_t gpu_dev_open(const struct nvml_lib *lib, struct gpu_dev *dev, unsigned index);

/* Takes every reading. Returns NVML_SUCCESS, or NVML_ERROR_GPU_IS_LOST when
 * any query said so (the reading is then incomplete and not to be kept). */
nvmlReturn_t gpu_sample(const struct nvml_lib *lib, struct gpu_dev *dev, struct gpu_reading *r);

static inline int gpu_has(const struct gpu_reading *r, enum gpu_value v)
{
    return (r->have >> v) & 1u;
}

#endif
