/* nvml_loader.c — dlopen NVML and resolve its entry points; see nvml_loader.h. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "nvml_loader.h"

/* Resolves name_v2 first (newer drivers keep the old name with the old
 * ABI for compatibility; the _v2 one is what nvml.h maps the name to), then
 * name. Function pointers come back through a void * as POSIX dlsym
 * requires; the memcpy keeps -Wpedantic quiet about the conversion. */
static void resolve(void *dl, const char *name, const char *v2, void *fn_out, size_t fn_size)
{
    void *p = v2 ? dlsym(dl, v2) : NULL;
    if (!p)
        p = dlsym(dl, name);
    memcpy(fn_out, &p, fn_size);
}

#define RESOLVE(field, name, v2) resolve(lib->dl, name, v2, &lib->field, sizeof lib->field)

/* nvmlDeviceGetComputeRunningProcesses: _v3 only where the driver also
 * exports nvmlDeviceGetRunningProcessDetailList (R535 and later), whose
 * _v3 fills the 24-byte v2 layout; the R525-R530 drivers' _v3 filled 32
 * bytes (usedGpuCcProtectedMemory, since moved to nvmlProcessDetail_v1_t),
 * so there _v2 is the safe call. Without _v2: the original, 16-byte v1. */
static void resolve_compute_procs(struct nvml_lib *lib)
{
    static const char *const v2_names[] = { "nvmlDeviceGetComputeRunningProcesses_v3",
                                            "nvmlDeviceGetComputeRunningProcesses_v2" };
    int v3_safe = dlsym(lib->dl, "nvmlDeviceGetRunningProcessDetailList") != NULL;
    for (int i = v3_safe ? 0 : 1; i < 2 && !lib->compute_procs; i++) {
        resolve(lib->dl, v2_names[i], NULL, &lib->compute_procs, sizeof lib->compute_procs);
        lib->compute_procs_symbol = lib->compute_procs ? v2_names[i] : NULL;
    }
    if (!lib->compute_procs) {
        RESOLVE(compute_procs_v1, "nvmlDeviceGetComputeRunningProcesses", NULL);
        if (lib->compute_procs_v1)
            lib->compute_procs_symbol = "nvmlDeviceGetComputeRunningProcesses";
    }
}

int nvml_load(struct nvml_lib *lib, const char *path, char *err, size_t errlen)
{
    memset(lib, 0, sizeof *lib);
    const char *name = path ? path : NVML_DEFAULT_LIB;
    lib->dl = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!lib->dl) {
        const char *why = dlerror();
        snprintf(err, errlen, "cannot load NVML (%s): %s; is the NVIDIA driver installed?",
                 name, why ? why : "unknown error");
        return -1;
    }
    RESOLVE(init, "nvmlInit", "nvmlInit_v2");
    RESOLVE(shutdown, "nvmlShutdown", NULL);
    RESOLVE(error_string, "nvmlErrorString", NULL);
    RESOLVE(device_count, "nvmlDeviceGetCount", "nvmlDeviceGetCount_v2");
    RESOLVE(device_by_index, "nvmlDeviceGetHandleByIndex", "nvmlDeviceGetHandleByIndex_v2");
    RESOLVE(device_name, "nvmlDeviceGetName", NULL);
    RESOLVE(power_usage, "nvmlDeviceGetPowerUsage", NULL);
    RESOLVE(power_limit, "nvmlDeviceGetEnforcedPowerLimit", NULL);
    RESOLVE(total_energy, "nvmlDeviceGetTotalEnergyConsumption", NULL);
    RESOLVE(clock_event_reasons, "nvmlDeviceGetCurrentClocksThrottleReasons",
            "nvmlDeviceGetCurrentClocksEventReasons");
    RESOLVE(utilization, "nvmlDeviceGetUtilizationRates", NULL);
    RESOLVE(memory_info, "nvmlDeviceGetMemoryInfo", NULL);
    RESOLVE(clock_info, "nvmlDeviceGetClockInfo", NULL);
    RESOLVE(temperature, "nvmlDeviceGetTemperature", NULL);
    RESOLVE(field_values, "nvmlDeviceGetFieldValues", NULL);
    RESOLVE(temperature_v, "nvmlDeviceGetTemperatureV", NULL);
    RESOLVE(pstate, "nvmlDeviceGetPerformanceState", NULL);
    RESOLVE(process_util, "nvmlDeviceGetProcessUtilization", NULL);
    RESOLVE(driver_version, "nvmlSystemGetDriverVersion", NULL);
    RESOLVE(nvml_version, "nvmlSystemGetNVMLVersion", NULL);
    RESOLVE(uuid, "nvmlDeviceGetUUID", NULL);
    RESOLVE(pci_info, "nvmlDeviceGetPciInfo_v3", NULL);
    RESOLVE(persistence_mode, "nvmlDeviceGetPersistenceMode", NULL);
    RESOLVE(compute_mode, "nvmlDeviceGetComputeMode", NULL);
    RESOLVE(mig_mode, "nvmlDeviceGetMigMode", NULL);
    RESOLVE(max_clock_info, "nvmlDeviceGetMaxClockInfo", NULL);
    resolve_compute_procs(lib);
    RESOLVE(gpm_query_support, "nvmlGpmQueryDeviceSupport", NULL);
    RESOLVE(gpm_sample_alloc, "nvmlGpmSampleAlloc", NULL);
    RESOLVE(gpm_sample_free, "nvmlGpmSampleFree", NULL);
    RESOLVE(gpm_sample_get, "nvmlGpmSampleGet", NULL);
    RESOLVE(gpm_metrics_get, "nvmlGpmMetricsGet", NULL);

    const char *missing = !lib->init ? "nvmlInit" :
                          !lib->shutdown ? "nvmlShutdown" :
                          !lib->error_string ? "nvmlErrorString" :
                          !lib->device_count ? "nvmlDeviceGetCount" :
                          !lib->device_by_index ? "nvmlDeviceGetHandleByIndex" : NULL;
    if (missing) {
        snprintf(err, errlen, "%s is not an NVML library (no %s)", name, missing);
        dlclose(lib->dl);
        lib->dl = NULL;
        return -1;
    }
    return 0;
}

/* The simulated NVML may run on virtual time (sim/SCENARIO.md): then it
 * exports its clock, and the recorder's clock seam (clock.h) follows it.
 * A real driver has no such symbols. */
static void follow_virtual_clock(struct nvml_lib *lib)
{
    int64_t (*now)(void) = NULL;
    int (*sleep_until)(int64_t) = NULL;
    int64_t (*wall_offset)(void) = NULL;
    resolve(lib->dl, "flinchsim_vclock_now", NULL, &now, sizeof now);
    resolve(lib->dl, "flinchsim_vclock_sleep_until", NULL, &sleep_until, sizeof sleep_until);
    resolve(lib->dl, "flinchsim_vclock_wall_offset_ns", NULL, &wall_offset, sizeof wall_offset);
    if (now && sleep_until && wall_offset && now() >= 0) {
        clock_virtualize(now, sleep_until, wall_offset());
        lib->virtual_clock = 1;
    }
}

void nvml_missing_symbols(const struct nvml_lib *lib, char *buf, size_t len)
{
    int gpm_none = !lib->gpm_query_support && !lib->gpm_sample_alloc && !lib->gpm_sample_free &&
                   !lib->gpm_sample_get && !lib->gpm_metrics_get;
    const struct { int fn; const char *name; } opt[] = {
        { lib->device_name != NULL, "nvmlDeviceGetName" },
        { lib->power_usage != NULL, "nvmlDeviceGetPowerUsage" },
        { lib->power_limit != NULL, "nvmlDeviceGetEnforcedPowerLimit" },
        { lib->total_energy != NULL, "nvmlDeviceGetTotalEnergyConsumption" },
        { lib->clock_event_reasons != NULL, "nvmlDeviceGetCurrentClocksEventReasons" },
        { lib->utilization != NULL, "nvmlDeviceGetUtilizationRates" },
        { lib->memory_info != NULL, "nvmlDeviceGetMemoryInfo" },
        { lib->clock_info != NULL, "nvmlDeviceGetClockInfo" },
        { lib->temperature != NULL, "nvmlDeviceGetTemperature" },
        { lib->field_values != NULL, "nvmlDeviceGetFieldValues" },
        { lib->temperature_v != NULL, "nvmlDeviceGetTemperatureV" },
        { lib->pstate != NULL, "nvmlDeviceGetPerformanceState" },
        { lib->process_util != NULL, "nvmlDeviceGetProcessUtilization" },
        { lib->driver_version != NULL, "nvmlSystemGetDriverVersion" },
        { lib->nvml_version != NULL, "nvmlSystemGetNVMLVersion" },
        { lib->uuid != NULL, "nvmlDeviceGetUUID" },
        { lib->pci_info != NULL, "nvmlDeviceGetPciInfo_v3" },
        { lib->persistence_mode != NULL, "nvmlDeviceGetPersistenceMode" },
        { lib->compute_mode != NULL, "nvmlDeviceGetComputeMode" },
        { lib->mig_mode != NULL, "nvmlDeviceGetMigMode" },
        { lib->max_clock_info != NULL, "nvmlDeviceGetMaxClockInfo" },
        { lib->compute_procs_symbol != NULL, "nvmlDeviceGetComputeRunningProcesses" },
        /* GPM: one token when the driver has none of it (before r520) */
        { gpm_none || lib->gpm_query_support != NULL, "nvmlGpmQueryDeviceSupport" },
        { gpm_none || lib->gpm_sample_alloc != NULL, "nvmlGpmSampleAlloc" },
        { gpm_none || lib->gpm_sample_free != NULL, "nvmlGpmSampleFree" },
        { gpm_none || lib->gpm_sample_get != NULL, "nvmlGpmSampleGet" },
        { gpm_none || lib->gpm_metrics_get != NULL, "nvmlGpmMetricsGet" },
        { !gpm_none, "nvmlGpm*" },
    };
    size_t n = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof opt / sizeof opt[0]; i++) {
        if (opt[i].fn)
            continue;
        int w = snprintf(buf + n, len - n, "%s%s", n ? ";" : "", opt[i].name);
        if (w < 0 || (size_t)w >= len - n) {
            buf[n] = 0;
            return;
        }
        n += (size_t)w;
    }
}

nvmlReturn_t nvml_start(struct nvml_lib *lib)
{
    nvmlReturn_t rc = lib->init();
    lib->initialized = rc == NVML_SUCCESS;
    if (lib->initialized)
        follow_virtual_clock(lib);
    return rc;
}

const char *nvml_strerror(const struct nvml_lib *lib, nvmlReturn_t rc)
{
    static __thread char fallback[32];
    const char *s = lib && lib->error_string ? lib->error_string(rc) : NULL;
    if (s && *s)
        return s;
    snprintf(fallback, sizeof fallback, "NVML error %d", rc);
    return fallback;
}

void nvml_unload(struct nvml_lib *lib)
{
    if (lib->initialized && lib->shutdown)
        lib->shutdown();
    lib->initialized = 0;
    if (lib->dl && !lib->virtual_clock)   /* the clock seam still points into it */
        dlclose(lib->dl);
    lib->dl = NULL;
}
