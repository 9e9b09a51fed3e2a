/*
 * sim_fields.c — the simulated NVML's field values and the newer
 * single-reading entry points (nvmlDeviceGetTemperatureV,
 * nvmlDeviceGetPerformanceState).
 *
 * Owns: which field ids the simulated GPU answers and how. Each field gets
 * its own nvmlReturn: the call succeeds as a whole even when a field is
 * unknown, switched off by a fault (`unsupported field:ID`, `error CODE
 * field:ID`), or not on this GPU: field 185 (1 s average power) does not
 * exist where the scenario plays a pre-Ampere GPU (`power_readout
 * instant`), as on real hardware. The throttle-time counters are the
 * integral of the time the matching clock-event reason bit was set.
 */
#include "sim_internal.h"

#include <string.h>

#define NS_PER_MS 1000000LL

#ifndef SIM_LEGACY_ABI
/* What a counter field adds up over a step: ns while a reasons bit of
 * the mask is set, or PCIe bytes (MB/s x ns / 1000). */
struct counter_kind { unsigned long long mask; int pcie; };  /* pcie: 0 reasons, 1 TX, 2 RX */

static long long step_amount(const struct sim_reading *r, long long ns, const void *arg)
{
    const struct counter_kind *k = arg;
    if (k->pcie)
        return (long long)(k->pcie == 1 ? r->pcie_tx_mbps : r->pcie_rx_mbps) * ns / 1000;
    return r->reasons & k->mask ? ns : 0;
}

/* The cumulative amount from scenario time 0 to t_ns (pcie: 0 for reason
 * time under mask, 1 TX bytes, 2 RX bytes); 0 before time 0. */
static unsigned long long counter_at(const struct sim_scenario *sc, unsigned gpu,
                                     unsigned long long mask, int pcie, long long t_ns)
{
    const struct counter_kind k = { mask, pcie };
    if (t_ns <= 0)
        return 0;
    return (unsigned long long)timeline_amount_to(sc, gpu, step_amount, &k, t_ns);
}

/* One field at scenario time t: its code, and its value in v. */
static nvmlReturn_t field_at(unsigned gpu, long long t, nvmlFieldValue_t *v)
{
    const struct sim_scenario *sc = &sim_scn;
    v->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
    switch (v->fieldId) {
    case NVML_FI_DEV_POWER_INSTANT:
        v->value.uiVal = sim_watts_to_mw(sensor_instant_w(sc, gpu, t));
        return NVML_SUCCESS;
    case NVML_FI_DEV_POWER_AVERAGE:
        if (sc->power_instant)
            return NVML_ERROR_NOT_SUPPORTED;
        v->value.uiVal = sim_watts_to_mw(sensor_average_w(sc, gpu, t));
        return NVML_SUCCESS;
    case NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION:
        v->valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
        v->value.ullVal = sensor_energy_counter_mj(sc, gpu, t);
        return NVML_SUCCESS;
    case NVML_FI_DEV_PERF_POLICY_POWER:
    case NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN:
    case NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN:
    case NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN: {
        unsigned long long mask =
            v->fieldId == NVML_FI_DEV_PERF_POLICY_POWER ? NVML_CLOCKS_EVENT_REASON_SW_POWER_CAP :
            v->fieldId == NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN ? NVML_CLOCKS_EVENT_REASON_SW_THERMAL :
            v->fieldId == NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN ? NVML_CLOCKS_EVENT_REASON_HW_THERMAL :
            NVML_CLOCKS_EVENT_REASON_HW_POWER_BRAKE;
        v->valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
        v->value.ullVal = counter_at(sc, gpu, mask, 0, t);
        return NVML_SUCCESS;
    }
    case NVML_FI_DEV_PCIE_COUNT_TX_BYTES:
    case NVML_FI_DEV_PCIE_COUNT_RX_BYTES: {
        int dir = v->fieldId == NVML_FI_DEV_PCIE_COUNT_TX_BYTES ? 1 : 2;
        unsigned long long bytes = counter_at(sc, gpu, 0, dir, t);
        long long reset_ns = sc->pcie_reset_ms * NS_PER_MS;
        /* a driver reload: the count restarts from 0 (and the base is gone) */
        if (sc->pcie_reset_ms >= 0 && t >= reset_ns)
            bytes -= counter_at(sc, gpu, 0, dir, reset_ns);
        else
            bytes += sc->pcie_base_bytes;
        if (sc->pcie_bits == 32) {
            v->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
            v->value.uiVal = (unsigned)(bytes & 0xffffffffULL);
        } else {
            v->valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
            v->value.ullVal = bytes;
        }
        return NVML_SUCCESS;
    }
    default:
        return NVML_ERROR_NOT_SUPPORTED;
    }
}

EXPORT nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int valuesCount,
                                             nvmlFieldValue_t *values)
{
    unsigned gpu;
    long long t;
    nvmlReturn_t rc = sim_device_query(device, valuesCount >= 0 ? (const void *)values : NULL,
                                       SIM_FN_FIELDS, &gpu, &t);
    if (rc != NVML_SUCCESS)
        return rc;
    long long wall_us = sim_now_wall_ns() / 1000;
    for (int i = 0; i < valuesCount; i++) {
        nvmlFieldValue_t *v = &values[i];
        v->timestamp = wall_us;
        v->latencyUsec = 0;
        memset(&v->value, 0, sizeof v->value);
        nvmlReturn_t fault = sim_field_fault(gpu, v->fieldId);
        v->nvmlReturn = field_at(gpu, t, v);
        if (fault != NVML_SUCCESS) {
            memset(&v->value, 0, sizeof v->value);
            v->nvmlReturn = fault;
        }
    }
    pthread_mutex_unlock(&sim_lock);
    return NVML_SUCCESS;
}

/* The struct's version must be nvml.h's nvmlTemperature_v1 (its size | 1 << 24). */
EXPORT nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t device, nvmlTemperature_v1_t *temp)
{
    unsigned gpu;
    long long t;
    int ok = temp && temp->version == nvmlTemperature_v1 && temp->sensorType == NVML_TEMPERATURE_GPU;
    if (temp && temp->version != nvmlTemperature_v1)
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    nvmlReturn_t rc = sim_device_query(device, ok ? temp : NULL, SIM_FN_TEMP_V, &gpu, &t);
    if (rc != NVML_SUCCESS)
        return rc;
    temp->temperature = (int)timeline_reading_at(&sim_scn, gpu, t)->temp_c;
    pthread_mutex_unlock(&sim_lock);
    return NVML_SUCCESS;
}
#endif

EXPORT nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t device, nvmlPstates_t *pstate)
{
    unsigned gpu;
    long long t;
    nvmlReturn_t rc = sim_device_query(device, pstate, SIM_FN_PSTATE, &gpu, &t);
    if (rc != NVML_SUCCESS)
        return rc;
    *pstate = (nvmlPstates_t)timeline_reading_at(&sim_scn, gpu, t)->pstate;
    pthread_mutex_unlock(&sim_lock);
    return NVML_SUCCESS;
}
