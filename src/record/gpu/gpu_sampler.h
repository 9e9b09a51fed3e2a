/*
 * gpu_sampler.h — one set of readings from one GPU, taken through NVML, at
 * as few driver calls per tick as the values need.
 *
 * Owns: which NVML call fills which reading, how often each is read, and
 * what a failure means. On a real driver every call takes tens to hundreds
 * of microseconds and serializes on the driver's lock, so the recorder must
 * not spend a tick's worth of them per GPU:
 *
 *   every tick        one nvmlDeviceGetFieldValues call: energy (83),
 *                     instant power (186), 1 s average power (185), the
 *                     throttle-time counters (74, 251, 252, 253) and the
 *                     PCIe byte counters (197, 198), each with
 *                     the driver's own timestamp and return code;
 *                     and utilization (no field id; read every tick because
 *                     the analysis decides busy from it sample by sample);
 *   every MEDIUM_MS   SM clock, clock-event reasons (no field ids);
 *   every SLOW_MS     temperature, memory used, power limit, P-state;
 *   every GPU_GPM_MS  a GPM sample and the metrics since the previous one
 *                     (Hopper and newer; gpu_gpm.h).
 *   every GPU_PROC_UTIL_MS  per-process SM time (gpu_proc_util.h), with a
 *                     traced process only; written on the rows of the
 *                     ticks that read it, never repeated.
 *
 * Both periods are counted in scheduled ticks (round(period / interval),
 * at least 1), from the first tick, which reads everything: which tick reads
 * what does not depend on how late a tick ran, and a skipped tick counts.
 *
 * Between reads a value repeats its last reading (README: column
 * freshness). A field the driver answers NOT_SUPPORTED is no longer asked
 * for; the energy counter then comes from nvmlDeviceGetTotalEnergyConsumption
 * and gpu_power_W from nvmlDeviceGetPowerUsage (field 185 does not exist
 * before Ampere nor on GA100). Without nvmlDeviceGetFieldValues (old
 * drivers) those two functions are called every tick.
 *
 * A reading the driver does not support (NVML_ERROR_NOT_SUPPORTED, or an
 * entry point the library does not export) is absent, never 0: the CSV cell
 * stays empty. NVML_ERROR_GPU_IS_LOST on any call means the GPU fell off
 * the bus; the caller ends the recording. Other errors leave the reading
 * absent and are reported once per GPU and reading.
 */
#ifndef FLINCH_GPU_SAMPLER_H
#define FLINCH_GPU_SAMPLER_H

#include <stdint.h>

#include "gpu_gpm.h"
#include "gpu_proc_util.h"
#include "nvml_loader.h"

#define GPU_MEDIUM_MS 50     /* SM clock, reasons */
#define GPU_SLOW_MS 1000     /* temperature, memory, limit, P-state */

enum gpu_value {
    GV_POWER_MW,          /* field 185, else nvmlDeviceGetPowerUsage */
    GV_UTIL_GPU,          /* nvmlDeviceGetUtilizationRates .gpu (every tick) */
    GV_UTIL_MEM,          /*   .memory (every tick) */
    GV_SM_CLOCK_MHZ,      /* nvmlDeviceGetClockInfo(NVML_CLOCK_SM) (medium) */
    GV_TEMP_C,            /* nvmlDeviceGetTemperature, else ...TemperatureV (slow) */
    GV_ENERGY_MJ,         /* field 83, else nvmlDeviceGetTotalEnergyConsumption */
    GV_POWER_INSTANT_MW,  /* field 186 */
    GV_MEM_USED_BYTES,    /* nvmlDeviceGetMemoryInfo .used (slow) */
    GV_REASONS,           /* nvmlDeviceGetCurrentClocksEventReasons (medium) */
    GV_POWER_LIMIT_MW,    /* nvmlDeviceGetEnforcedPowerLimit (slow) */
    GV_ENERGY_TS_US,      /* field 83's timestamp: us since 1970, the driver's */
    GV_POWER_INSTANT_TS_US, /* field 186's timestamp */
    GV_PSTATE,            /* nvmlDeviceGetPerformanceState, 0..15 (slow) */
    GV_THR_SW_POWER_NS,   /* field 74: cumulative ns held by the power cap */
    GV_THR_SW_THERMAL_NS, /* field 251 */
    GV_THR_HW_THERMAL_NS, /* field 252 */
    GV_THR_HW_BRAKE_NS,   /* field 253 */
    GV_PCIE_TX_BYTES,     /* field 197: raw, as the driver gives it (may wrap) */
    GV_PCIE_RX_BYTES,     /* field 198 */
    GV_PROC_SM_PCT,       /* the traced tree's SM %, per-process samples (gpu_proc_util.h) */
    GV_OTHER_SM_PCT,      /*   every other process's */
    GV_PROC_UTIL_TS_US,   /*   the newest sample's timestamp, us since 1970 */
    GV_COUNT
};

_Static_assert(GV_COUNT <= 32, "gpu_reading.have holds one bit per gpu_value");

struct gpu_reading {
    int64_t t_mono_ns;    /* when the first query was issued */
    int64_t t_wall_ns;
    unsigned have;        /* bit (1u << GV_x) set when v[GV_x] is valid */
    unsigned long long v[GV_COUNT];
    struct gpm_reading gpm;   /* GPM metrics ending at this tick, if any */
};

#define GPU_FIELD_MAX 12

struct gpu_dev {
    unsigned index;
    nvmlDevice_t handle;
    unsigned warned;      /* bit per gpu_value already reported */
    int64_t medium_every, slow_every; /* in ticks */
    int64_t tick;         /* the tick being read: set by the caller before gpu_sample */
    /* Field values still asked for each tick (NOT_SUPPORTED ones dropped). */
    unsigned field_ids[GPU_FIELD_MAX];
    int nfields;
    int no_field_call;    /* the call itself is missing or unsupported */
    int energy_by_func;   /* field 83 unsupported: nvmlDeviceGetTotalEnergyConsumption */
    int power_by_func;    /* field 185 unsupported: nvmlDeviceGetPowerUsage */
    int temp_by_v;        /* nvmlDeviceGetTemperature missing or DEPRECATED */
    int pcie_bits;        /* width of the PCIe byte counters (their valueType): 32, 64; 0 unknown */
    int64_t medium_at, slow_at; /* tick of the last medium / slow read; -1: never */
    struct gpu_reading last;    /* the medium and slow values, repeated between reads */
    struct gpu_gpm gpm;
    struct gpu_proc_util proc;  /* per-process SM time; off unless the recorder enables it */
};

/* Opens GPU index; returns its code (NVML_SUCCESS...). interval_ms is the
 * recording's tick, for the medium and slow periods. */
nvmlReturn_t gpu_dev_open(const struct nvml_lib *lib, struct gpu_dev *dev, unsigned index,
                          int interval_ms);

/* Frees what gpu_dev_open allocated (the GPM sample buffers). */
void gpu_dev_close(const struct nvml_lib *lib, struct gpu_dev *dev);

/* Takes every reading due. Returns NVML_SUCCESS, or NVML_ERROR_GPU_IS_LOST
 * when any query said so (the reading is then incomplete and not to be
 * kept). */
nvmlReturn_t gpu_sample(const struct nvml_lib *lib, struct gpu_dev *dev, struct gpu_reading *r);

static inline int gpu_has(const struct gpu_reading *r, enum gpu_value v)
{
    return (r->have >> v) & 1u;
}

#endif
