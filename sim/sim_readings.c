/*
 * sim_readings.c — the simulated NVML's reading entry points: name, power,
 * utilization, memory, clocks, temperature, enforced power limit,
 * clock-event (throttle) reasons and the energy counter.
 *
 * Each one goes through sim_device_query (sim_nvml.c: checks, counting,
 * faults), reads the scenario at the query's time with sim_lock held, and
 * unlocks. The legacy build has no ClocksEventReasons and no energy counter.
 */
#include "sim_internal.h"

#include <math.h>
#include <string.h>

EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
    unsigned gpu;
    long long t;
    nvmlReturn_t rc = sim_device_query(device, name, SIM_FN_NAME, &gpu, &t);
    if (rc != NVML_SUCCESS)
        return rc;
    const char *n = sim_scn.gpu_name[gpu][0] ? sim_scn.gpu_name[gpu] : sim_scn.name;
    size_t len = strlen(n);
    if (length < len + 1) {
        rc = NVML_ERROR_INSUFFICIENT_SIZE;
    } else {
        memcpy(name, n, len + 1);
    }
    pthread_mutex_unlock(&sim_lock);
    return rc;
}

unsigned int sim_watts_to_mw(double w)
{
    return (unsigned int)floor(w * 1000.0 + 1e-6);
}

EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power)
{
    unsigned gpu;
    long long t;
    nvmlReturn_t rc = sim_device_query(device, power, SIM_FN_POWER, &gpu, &t);
    if (rc != NVML_SUCCESS)
        return rc;
    *power = sim_watts_to_mw(sim_scn.power_instant ? sensor_instant_w(&sim_scn, gpu, t)
                                                   : sensor_average_w(&sim_scn, gpu, t));
    pthread_mutex_unlock(&sim_lock);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization)
{
    unsigned gpu;
    long long t;
    nvmlReturn_t rc = sim_device_query(device, utilization, SIM_FN_UTIL, &gpu, &t);
    if (rc != NVML_SUCCESS)
        return rc;
    sensor_util(&sim_scn, gpu, t, &utilization->gpu, &utilization->memory);
    pthread_mutex_unlock(&sim_lock);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
    unsigned gpu;
    long long t;
    nvmlReturn_t rc = sim_device_query(device, memory, SIM_FN_MEMORY, &gpu, &t);
    if (rc != NVML_SUCCESS)
        return rc;
    const struct sim_reading *r = timeline_reading_at(&sim_scn, gpu, t);
    memory->total = SIM_MEM_TOTAL_MIB * 1048576ULL;
    memory->used = (unsigned long long)r->mem_used_mib * 1048576ULL;
    memory->free = memory->total - memory->used;
    pthread_mutex_unlock(&sim_lock);
    return NVML_SUCCESS;
}

/* SM and graphics clocks follow the sim_scn; the memory clock is an
 * H200's fixed HBM3e clock. */
EXPORT nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock)
{
    unsigned gpu;
    long long t;
    const void *out = type >= NVML_CLOCK_GRAPHICS && type <= NVML_CLOCK_MEM ? clock : NULL;
    nvmlReturn_t rc = sim_device_query(device, out, SIM_FN_CLOCK, &gpu, &t);
    if (rc != NVML_SUCCESS)
        return rc;
    /* the SM clock lags the load by event_lag_us (sim/SCENARIO.md) */
    *clock = type == NVML_CLOCK_MEM ? SIM_MEM_CLOCK_MHZ
             : timeline_reading_at(&sim_scn, gpu, t - sim_scn.sensors.event_lag_ns)->clock_mhz;
    pthread_mutex_unlock(&sim_lock);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensor,
                                             unsigned int *temp)
{
    unsigned gpu;
    long long t;
    nvmlReturn_t rc = sim_device_query(device, sensor == NVML_TEMPERATURE_GPU ? temp : NULL,
                                   SIM_FN_TEMP, &gpu, &t);
    if (rc != NVML_SUCCESS)
        return rc;
    *temp = timeline_reading_at(&sim_scn, gpu, t)->temp_c;
    pthread_mutex_unlock(&sim_lock);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *limit)
{
    unsigned gpu;
    long long t;
    nvmlReturn_t rc = sim_device_query(device, limit, SIM_FN_LIMIT, &gpu, &t);
    if (rc != NVML_SUCCESS)
        return rc;
    *limit = sim_scn.power_limit_w * 1000u;
    pthread_mutex_unlock(&sim_lock);
    return NVML_SUCCESS;
}

static nvmlReturn_t clock_reasons(nvmlDevice_t device, unsigned long long *reasons, int func)
{
    unsigned gpu;
    long long t;
    nvmlReturn_t rc = sim_device_query(device, reasons, func, &gpu, &t);
    if (rc != NVML_SUCCESS)
        return rc;
    *reasons = timeline_reading_at(&sim_scn, gpu, t - sim_scn.sensors.event_lag_ns)->reasons;
    pthread_mutex_unlock(&sim_lock);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device,
                                                              unsigned long long *reasons)
{
    return clock_reasons(device, reasons, SIM_FN_THROTTLE_REASONS);
}

#ifndef SIM_LEGACY_ABI
EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device,
                                                           unsigned long long *reasons)
{
    return clock_reasons(device, reasons, SIM_FN_EVENT_REASONS);
}

EXPORT nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *energy)
{
    unsigned gpu;
    long long t;
    nvmlReturn_t rc = sim_device_query(device, energy, SIM_FN_ENERGY, &gpu, &t);
    if (rc != NVML_SUCCESS)
        return rc;
    *energy = sensor_energy_counter_mj(&sim_scn, gpu, t);
    pthread_mutex_unlock(&sim_lock);
    return NVML_SUCCESS;
}

#endif
