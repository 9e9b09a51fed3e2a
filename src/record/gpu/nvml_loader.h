/*
 * nvml_loader.h — NVML loaded at run time with dlopen, never linked.
 *
 * Owns: finding libnvidia-ml.so.1 (or the --nvml-lib path), resolving each
 * entry point we use (the _v2 symbol first, then the original name), and
 * turning return codes into text with nvmlErrorString. Required entry points
 * are init/shutdown/count/handle/error string; every other one is optional
 * and NULL when the driver does not export it (old drivers), in which case
 * the sampler leaves that cell empty.
 */
#ifndef FLINCH_NVML_LOADER_H
#define FLINCH_NVML_LOADER_H

#include <stddef.h>

#include "nvml_api.h"

#define NVML_DEFAULT_LIB "libnvidia-ml.so.1"

struct nvml_lib {
    void *dl;
    /* required */
    nvml_init_fn init;
    nvml_shutdown_fn shutdown;
    nvml_error_string_fn error_string;
    nvml_device_count_fn device_count;
    nvml_device_by_index_fn device_by_index;
    /* optional: NULL when missing */
    nvml_device_name_fn device_name;
    nvml_device_uint_fn power_usage;        /* mW, 1 s average on Ampere+ */
    nvml_device_uint_fn power_limit;        /* nvmlDeviceGetEnforcedPowerLimit, mW */
    nvml_device_ull_fn total_energy;        /* mJ */
    nvml_device_ull_fn clock_event_reasons; /* ...ClocksEventReasons, else ...ThrottleReasons */
    nvml_device_utilization_fn utilization;
    nvml_device_memory_fn memory_info;
    nvml_device_clock_fn clock_info;
    nvml_device_temperature_fn temperature;
    nvml_device_field_values_fn field_values;
    nvml_device_temperature_v_fn temperature_v; /* CUDA 12.7+; the one left on CUDA 13 */
    nvml_device_pstate_fn pstate;
    nvml_device_process_util_fn process_util; /* per-process SM use (gpu_proc_util.c) */
    /* identity, read once at start (gpu_identity.c) */
    nvml_system_string_fn driver_version;
    nvml_system_string_fn nvml_version;
    nvml_device_string_fn uuid;
    nvml_device_pci_fn pci_info;
    nvml_device_enable_fn persistence_mode;
    nvml_device_compute_mode_fn compute_mode;
    nvml_device_mig_fn mig_mode;
    nvml_device_clock_fn max_clock_info;    /* nvmlDeviceGetMaxClockInfo */
    /* --gpu auto: the processes with a compute context (nvml_api.h says
     * which layout each symbol fills); at most one of the two is set */
    nvml_device_procs_v2_fn compute_procs;    /* _v3 where safe (R535+), else _v2 */
    nvml_device_procs_v1_fn compute_procs_v1; /* the original symbol, only without _v2 */
    const char *compute_procs_symbol;         /* the name resolved, NULL: none */
    /* GPM, Hopper and newer (gpu_gpm.c); drivers before r520 lack them */
    nvml_gpm_support_fn gpm_query_support;
    nvml_gpm_alloc_fn gpm_sample_alloc;
    nvml_gpm_free_fn gpm_sample_free;
    nvml_gpm_sample_fn gpm_sample_get;
    nvml_gpm_metrics_fn gpm_metrics_get;
    int initialized;
    int virtual_clock;                      /* the simulator's clock drives clock.h */
};

/* dlopen()s path (NULL: libnvidia-ml.so.1) and resolves the entry points.
 * Returns 0, or -1 with a one-line reason in err. */
int nvml_load(struct nvml_lib *lib, const char *path, char *err, size_t errlen);

/* The optional entry points this library lacks, as "name;name" (empty:
 * none; "nvmlGpm*" when every GPM one is missing), for the trace's record
 * of what was supported. */
void nvml_missing_symbols(const struct nvml_lib *lib, char *buf, size_t len);

/* nvmlInit; returns its code. */
nvmlReturn_t nvml_start(struct nvml_lib *lib);

/* nvmlErrorString(rc), or "NVML error N" when unavailable. */
const char *nvml_strerror(const struct nvml_lib *lib, nvmlReturn_t rc);

/* nvmlShutdown (when initialized) and dlclose. */
void nvml_unload(struct nvml_lib *lib);

#endif
