/*
 * sim_identity.c — the simulated NVML's identity entry points: driver and
 * NVML versions, and each GPU's UUID, PCI bus id, persistence, compute and
 * MIG mode.
 *
 * Owns: the simulated GPUs' names and numbers. GPU G has UUID
 * GPU-5151a000-0000-4000-8000-00000000000G (G in hex, 12 digits) and the
 * PCI bus id of the G-th GPU of an 8-GPU HGX board (00000000:18:00.0,
 * 2A, 3A, 5D, 9A, AB, BA, DB, then 0xE0 + G), so tests can tell an NVML
 * index from a bus id. Persistence mode is on unless the scenario says
 * `persistence off`; compute mode is default, MIG off; the maximum SM and
 * graphics clock is `max_clock_MHz` (1980 unless set), the memory clock's
 * 2619 MHz. The legacy build has no nvmlDeviceGetMigMode (R450 and later);
 * it keeps nvmlDeviceGetMaxClockInfo, which every driver has.
 */
#include "sim_internal.h"

#include <stdio.h>
#include <string.h>

#define SIM_DRIVER_VERSION "580.65.06"
#define SIM_NVML_VERSION "13.580.65.06"

static nvmlReturn_t system_string(const char *value, char *out, unsigned int length)
{
    pthread_mutex_lock(&sim_lock);
    nvmlReturn_t rc = NVML_SUCCESS;
    if (!sim_initialized())
        rc = NVML_ERROR_UNINITIALIZED;
    else if (!out)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    else if (length < strlen(value) + 1)
        rc = NVML_ERROR_INSUFFICIENT_SIZE;
    else
        memcpy(out, value, strlen(value) + 1);
    pthread_mutex_unlock(&sim_lock);
    return rc;
}

EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
    return system_string(SIM_DRIVER_VERSION, version, length);
}

EXPORT nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length)
{
    return system_string(SIM_NVML_VERSION, version, length);
}

EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
    unsigned gpu;
    long long t;
    nvmlReturn_t rc = sim_device_query(device, uuid, SIM_FN_UUID, &gpu, &t);
    if (rc != NVML_SUCCESS)
        return rc;
    char buf[64];
    snprintf(buf, sizeof buf, "GPU-5151a000-0000-4000-8000-%012x", gpu);
    if (length < strlen(buf) + 1)
        rc = NVML_ERROR_INSUFFICIENT_SIZE;
    else
        memcpy(uuid, buf, strlen(buf) + 1);
    pthread_mutex_unlock(&sim_lock);
    return rc;
}

EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
    static const unsigned hgx_bus[8] = { 0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb };
    unsigned gpu;
    long long t;
    nvmlReturn_t rc = sim_device_query(device, pci, SIM_FN_PCI, &gpu, &t);
    if (rc != NVML_SUCCESS)
        return rc;
    memset(pci, 0, sizeof *pci);
    /* 8..15 on 0xE0 + G; from 16 on (a host larger than any real one, for
     * the 64-GPU trace limit) the board's buses again, in domain G / 8 */
    pci->domain = gpu < 16 ? 0 : gpu / 8;
    pci->bus = gpu < 8 ? hgx_bus[gpu] : gpu < 16 ? 0xe0 + gpu : hgx_bus[gpu % 8];
    pci->pciDeviceId = 0x233510de;    /* vendor 10de (NVIDIA), device 2335 (H200) */
    pci->pciSubSystemId = 0x18a810de;
    snprintf(pci->busId, sizeof pci->busId, "%08X:%02X:00.0", pci->domain, pci->bus);
    snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:00.0", pci->domain, pci->bus);
    pthread_mutex_unlock(&sim_lock);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device, nvmlEnableState_t *mode)
{
    unsigned gpu;
    long long t;
    nvmlReturn_t rc = sim_device_query(device, mode, SIM_FN_PERSISTENCE, &gpu, &t);
    if (rc != NVML_SUCCESS)
        return rc;
    *mode = sim_scn.persistence_off ? 0 : 1;
    pthread_mutex_unlock(&sim_lock);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t device, nvmlComputeMode_t *mode)
{
    unsigned gpu;
    long long t;
    nvmlReturn_t rc = sim_device_query(device, mode, SIM_FN_COMPUTE_MODE, &gpu, &t);
    if (rc != NVML_SUCCESS)
        return rc;
    *mode = 0;
    pthread_mutex_unlock(&sim_lock);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock)
{
    unsigned gpu;
    long long t;
    const void *out = type >= NVML_CLOCK_GRAPHICS && type <= NVML_CLOCK_MEM ? clock : NULL;
    nvmlReturn_t rc = sim_device_query(device, out, SIM_FN_MAX_CLOCK, &gpu, &t);
    if (rc != NVML_SUCCESS)
        return rc;
    *clock = type == NVML_CLOCK_MEM ? SIM_MEM_CLOCK_MHZ : sim_scn.max_clock_mhz[gpu];
    pthread_mutex_unlock(&sim_lock);
    return NVML_SUCCESS;
}

#ifndef SIM_LEGACY_ABI
EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *current,
                                         unsigned int *pending)
{
    unsigned gpu;
    long long t;
    nvmlReturn_t rc = sim_device_query(device, current && pending ? current : NULL,
                                       SIM_FN_MIG_MODE, &gpu, &t);
    if (rc != NVML_SUCCESS)
        return rc;
    *current = *pending = sim_scn.mig_on ? 1 : 0;
    pthread_mutex_unlock(&sim_lock);
    return NVML_SUCCESS;
}
#endif
