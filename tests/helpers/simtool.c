/*
 * simtool.c — drives the simulated NVML from shell tests, through dlopen and
 * dlsym exactly as flinch record does, so tests check the ABI, not a C API.
 *
 *   simtool now                         CLOCK_MONOTONIC ns
 *   simtool [--lib SO] energy SCN GPU T0_MS T1_MS
 *                                       exact energy (J, %.6f) of SCN's GPU
 *                                       over [T0, T1]; SCN "builtin" = default
 *   simtool [--lib SO] builtin          the built-in scenario's text
 *   simtool [--lib SO] syms             NVML and hook symbols the library exports
 *   simtool [--lib SO] query [-T] [--at MS] ITEM...
 *
 * The library is --lib SO, else $SIM. query calls nvmlInit_v2 (nvmlInit when
 * absent) once, then each ITEM in order, printing one line per item (with
 * " us=N", the call's duration, under -T). --at MS sets FLINCH_SIM_EPOCH_NS
 * so that scenario time is MS now (what a test would do with `simtool now`,
 * one process fewer). Items:
 *   count name power util mem clock maxclock temp tempv[:VERSION] pstate energy
 *   limit reasons throttle
 *   fields:ID[,ID...] (one line per field)   fieldts (timestamp - now, us)
 *   gpu:N (switch GPU; gets its handle)      handle:N (GetHandleByIndex only)
 *   null (GetPowerUsage with a NULL pointer) badhandle (with a bogus handle)
 *   sleep:MS   t (scenario ms now)   epoch   init   shutdown
 *   procs:v1|v2|v3 (nvmlDeviceGetComputeRunningProcesses, that symbol: a call
 *   with room for none, then one with room for what it said; prints
 *   "procs:V N pid:MiB...")
 *   gpmsupport (isSupportedDevice)   gpmsample:K (nvmlGpmSampleGet into
 *   buffer K, 0 or 1, allocated on first use)   gpmmetrics[:VERSION]
 *   (SM, occupancy, tensor, DRAM metrics from buffer 0 to 1, "ID=%.3f" or
 *   "ID=error CODE" each)
 *   putil[:CAP] putilsize putil0 (nvmlDeviceGetProcessUtilization; see putil_item)
 * A failing call prints "ITEM error CODE STRING"; an absent symbol prints
 * "ITEM missing SYMBOL". The handle of GPU 0 is fetched before the first item
 * that needs one, which counts as a device query on GPU 0.
 */
#include "nvml_api.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef double (*energy_hook_fn)(unsigned, double, double);
typedef long long (*epoch_hook_fn)(void);
typedef const char *(*builtin_hook_fn)(void);

static void *lib;
static nvmlDevice_t handle;
static int have_handle;

static long long clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* dlsym returns an object pointer; ISO C has no cast from it to a
 * function pointer, POSIX guarantees the bytes are one: copy them. */
typedef void (*any_fn)(void);

static any_fn sym(const char *name)
{
    void *p = dlsym(lib, name);
    any_fn f = NULL;
    if (p)
        memcpy(&f, &p, sizeof f);
    return f;
}

/* The _v2 symbol when exported, else the old one (what flinch does). */
static any_fn sym_v2(const char *name)
{
    char v2[128];
    snprintf(v2, sizeof v2, "%s_v2", name);
    any_fn f = sym(v2);
    return f ? f : sym(name);
}

static const char *error_string(nvmlReturn_t rc)
{
    nvml_error_string_fn f = (nvml_error_string_fn)sym("nvmlErrorString");
    return f ? f(rc) : "?";
}

/* Prints ITEM's failure and returns 1, or returns 0 on success. */
static int failed(const char *item, nvmlReturn_t rc)
{
    if (rc == NVML_SUCCESS)
        return 0;
    printf("%s error %d %s", item, rc, error_string(rc));
    return 1;
}

static int missing(const char *item, int present, const char *name)
{
    if (present)
        return 0;
    printf("%s missing %s", item, name);
    return 1;
}

static void get_handle(const char *item, unsigned index)
{
    nvml_device_by_index_fn f = (nvml_device_by_index_fn)sym_v2("nvmlDeviceGetHandleByIndex");
    nvmlDevice_t h = NULL;
    nvmlReturn_t rc = f ? f(index, &h) : NVML_ERROR_FUNCTION_NOT_FOUND;
    have_handle = 1;
    handle = rc == NVML_SUCCESS ? h : NULL;
    if (!failed(item, rc))
        printf("%s ok", item);
}

static void uint_item(const char *item, const char *name)
{
    nvml_device_uint_fn f = (nvml_device_uint_fn)sym(name);
    unsigned v = 0;
    if (!missing(item, f != NULL, name) && !failed(item, f(handle, &v)))
        printf("%s %u", item, v);
}

static void ull_item(const char *item, const char *name, int hex)
{
    nvml_device_ull_fn f = (nvml_device_ull_fn)sym(name);
    unsigned long long v = 0;
    if (!missing(item, f != NULL, name) && !failed(item, f(handle, &v)))
        printf(hex ? "%s 0x%llx" : "%s %llu", item, v);
}

static void fields_item(const char *item, const char *ids)
{
    nvml_device_field_values_fn f = (nvml_device_field_values_fn)sym("nvmlDeviceGetFieldValues");
    nvmlFieldValue_t v[16];
    int n = 0;
    memset(v, 0, sizeof v);
    char *s = (char *)ids;
    while (*s && n < 16) {
        v[n++].fieldId = (unsigned)strtoul(s, &s, 10);
        if (*s == ',')
            s++;
        else
            break;
    }
    if (missing(item, f != NULL, "nvmlDeviceGetFieldValues") || failed(item, f(handle, n, v)))
        return;
    for (int i = 0; i < n; i++) {
        if (i)
            printf("\n");
        if (v[i].nvmlReturn != NVML_SUCCESS)
            printf("field:%u error %d %s", v[i].fieldId, v[i].nvmlReturn,
                   error_string(v[i].nvmlReturn));
        else if (v[i].valueType != NVML_VALUE_TYPE_UNSIGNED_INT)
            printf("field:%u badtype %d", v[i].fieldId, v[i].valueType);
        else
            printf("field:%u %u", v[i].fieldId, v[i].value.uiVal);
    }
}

/* Two calls, as a real client makes them: how many, then that many. */
static void procs_item(const char *item, const char *ver)
{
    char name[64];
    snprintf(name, sizeof name, "nvmlDeviceGetComputeRunningProcesses%s%s",
             strcmp(ver, "v1") ? "_" : "", strcmp(ver, "v1") ? ver : "");
    int v1 = strcmp(ver, "v1") == 0;
    any_fn f = sym(name);
    if (missing(item, f != NULL, name))
        return;
    nvmlProcessInfo_v2_t buf2[64];
    nvmlProcessInfo_v1_t buf1[64];
    unsigned n = 0;
    nvmlReturn_t rc = v1 ? ((nvml_device_procs_v1_fn)f)(handle, &n, NULL)
                         : ((nvml_device_procs_v2_fn)f)(handle, &n, NULL);
    if (rc == NVML_ERROR_INSUFFICIENT_SIZE && n <= 64)
        rc = v1 ? ((nvml_device_procs_v1_fn)f)(handle, &n, buf1)
                : ((nvml_device_procs_v2_fn)f)(handle, &n, buf2);
    if (failed(item, rc))
        return;
    printf("%s %u", item, n);
    for (unsigned i = 0; i < n; i++)
        printf(" %u:%llu", v1 ? buf1[i].pid : buf2[i].pid,
               (v1 ? buf1[i].usedGpuMemory : buf2[i].usedGpuMemory) >> 20);
}

static nvmlGpmSample_t gpm_buf[2];

static void gpm_item(const char *item)
{
    if (strcmp(item, "gpmsupport") == 0) {
        nvml_gpm_support_fn f = (nvml_gpm_support_fn)sym("nvmlGpmQueryDeviceSupport");
        nvmlGpmSupport_t s = { NVML_GPM_SUPPORT_VERSION, 0 };
        if (!missing(item, f != NULL, "nvmlGpmQueryDeviceSupport") && !failed(item, f(handle, &s)))
            printf("gpmsupport %u", s.isSupportedDevice);
    } else if (strncmp(item, "gpmsample:", 10) == 0) {
        nvml_gpm_alloc_fn alloc = (nvml_gpm_alloc_fn)sym("nvmlGpmSampleAlloc");
        nvml_gpm_sample_fn get = (nvml_gpm_sample_fn)sym("nvmlGpmSampleGet");
        int k = atoi(item + 10) != 0;
        if (missing(item, alloc && get, "nvmlGpmSampleAlloc/Get"))
            return;
        if (!gpm_buf[k].handle && failed(item, alloc(&gpm_buf[k])))
            return;
        if (!failed(item, get(handle, gpm_buf[k])))
            printf("%s ok", item);
    } else {
        static nvmlGpmMetricsGet_t m;
        static const unsigned ids[] = { NVML_GPM_METRIC_SM_UTIL, NVML_GPM_METRIC_SM_OCCUPANCY,
                                        NVML_GPM_METRIC_ANY_TENSOR_UTIL, NVML_GPM_METRIC_DRAM_BW_UTIL };
        nvml_gpm_metrics_fn f = (nvml_gpm_metrics_fn)sym("nvmlGpmMetricsGet");
        memset(&m, 0, sizeof m);
        m.version = item[10] == ':' ? (unsigned)atoi(item + 11) : NVML_GPM_METRICS_GET_VERSION;
        m.numMetrics = 4;
        m.sample1 = gpm_buf[0];
        m.sample2 = gpm_buf[1];
        for (int i = 0; i < 4; i++)
            m.metrics[i].metricId = ids[i];
        if (missing(item, f != NULL, "nvmlGpmMetricsGet") || failed(item, f(&m)))
            return;
        printf("gpmmetrics");
        for (int i = 0; i < 4; i++) {
            if (m.metrics[i].nvmlReturn != NVML_SUCCESS)
                printf(" %u=error %d", ids[i], m.metrics[i].nvmlReturn);
            else
                printf(" %u=%.3f", ids[i], m.metrics[i].value);
        }
    }
}

/* putil[:CAP]: nvmlDeviceGetProcessUtilization with a CAP-sample buffer
 * (64) and the newest timestamp the previous putil item saw (0 at first,
 * and after putil0): "putil n=N periods=P step_us=S pids=PID:SM,...", where
 * step_us is the spacing of the distinct timestamps (0 with one); putilsize:
 * the NULL-buffer size query. Errors print the code and, for
 * INSUFFICIENT_SIZE, count=N. */
static unsigned long long putil_last_seen;

static void putil_item(const char *item, int size_only, unsigned cap)
{
    nvml_device_process_util_fn f = (nvml_device_process_util_fn)sym("nvmlDeviceGetProcessUtilization");
    nvmlProcessUtilizationSample_t s[256];
    if (missing(item, f != NULL, "nvmlDeviceGetProcessUtilization"))
        return;
    unsigned n = cap > 256 ? 256 : cap;
    nvmlReturn_t rc = f(handle, size_only ? NULL : s, &n, putil_last_seen);
    if (rc != NVML_SUCCESS) {
        printf("%s error %d %s count=%u", item, rc, error_string(rc), n);
        return;
    }
    unsigned long long newest = 0, prev = 0, step = 0;
    unsigned periods = 0;
    for (unsigned i = 0; i < n; i++) {
        if (s[i].timeStamp != prev) {
            if (periods++ && !step)
                step = s[i].timeStamp - prev;
            prev = s[i].timeStamp;
        }
        if (s[i].timeStamp > newest)
            newest = s[i].timeStamp;
    }
    printf("putil n=%u periods=%u step_us=%llu pids=", n, periods, step);
    for (unsigned i = 0; i < n; i++)
        printf("%s%u:%u", i ? "," : "", s[i].pid, s[i].smUtil);
    putil_last_seen = newest;
}

static void one_item(const char *item)
{
    if (!have_handle && strncmp(item, "gpu:", 4) && strncmp(item, "handle:", 7) &&
        strcmp(item, "count") && strncmp(item, "sleep:", 6) && strcmp(item, "t") &&
        strcmp(item, "epoch") && strcmp(item, "init") && strcmp(item, "shutdown") &&
        strcmp(item, "badhandle")) {
        get_handle("handle:0", 0);
        printf("\n");
    }
    if (strcmp(item, "count") == 0) {
        nvml_device_count_fn f = (nvml_device_count_fn)sym_v2("nvmlDeviceGetCount");
        unsigned n = 0;
        if (!missing(item, f != NULL, "nvmlDeviceGetCount") && !failed(item, f(&n)))
            printf("count %u", n);
    } else if (strncmp(item, "gpu:", 4) == 0 || strncmp(item, "handle:", 7) == 0) {
        const char *num = strchr(item, ':') + 1;
        if (item[0] == 'g') {
            get_handle(item, (unsigned)atoi(num));
        } else {
            nvmlDevice_t saved = handle;
            get_handle(item, (unsigned)atoi(num));
            handle = saved;
        }
    } else if (strcmp(item, "name") == 0) {
        nvml_device_name_fn f = (nvml_device_name_fn)sym("nvmlDeviceGetName");
        char name[64];
        if (!missing(item, f != NULL, "nvmlDeviceGetName") && !failed(item, f(handle, name, sizeof name)))
            printf("name %s", name);
    } else if (strcmp(item, "power") == 0) {
        uint_item(item, "nvmlDeviceGetPowerUsage");
    } else if (strcmp(item, "limit") == 0) {
        uint_item(item, "nvmlDeviceGetEnforcedPowerLimit");
    } else if (strcmp(item, "util") == 0) {
        nvml_device_utilization_fn f = (nvml_device_utilization_fn)sym("nvmlDeviceGetUtilizationRates");
        nvmlUtilization_t u;
        if (!missing(item, f != NULL, "nvmlDeviceGetUtilizationRates") && !failed(item, f(handle, &u)))
            printf("util %u %u", u.gpu, u.memory);
    } else if (strcmp(item, "mem") == 0) {
        nvml_device_memory_fn f = (nvml_device_memory_fn)sym("nvmlDeviceGetMemoryInfo");
        nvmlMemory_t m;
        if (!missing(item, f != NULL, "nvmlDeviceGetMemoryInfo") && !failed(item, f(handle, &m)))
            printf("mem %llu %llu %llu", m.total, m.free, m.used);
    } else if (strcmp(item, "clock") == 0) {
        nvml_device_clock_fn f = (nvml_device_clock_fn)sym("nvmlDeviceGetClockInfo");
        unsigned c;
        if (!missing(item, f != NULL, "nvmlDeviceGetClockInfo") && !failed(item, f(handle, NVML_CLOCK_SM, &c)))
            printf("clock %u", c);
    } else if (strcmp(item, "maxclock") == 0) {
        nvml_device_clock_fn f = (nvml_device_clock_fn)sym("nvmlDeviceGetMaxClockInfo");
        unsigned c, m;
        if (!missing(item, f != NULL, "nvmlDeviceGetMaxClockInfo") &&
            !failed(item, f(handle, NVML_CLOCK_SM, &c)) && !failed(item, f(handle, NVML_CLOCK_MEM, &m)))
            printf("maxclock %u %u", c, m);
    } else if (strcmp(item, "temp") == 0) {
        nvml_device_temperature_fn f = (nvml_device_temperature_fn)sym("nvmlDeviceGetTemperature");
        unsigned c;
        if (!missing(item, f != NULL, "nvmlDeviceGetTemperature") &&
            !failed(item, f(handle, NVML_TEMPERATURE_GPU, &c)))
            printf("temp %u", c);
    } else if (strncmp(item, "tempv", 5) == 0 && (item[5] == 0 || item[5] == ':')) {
        /* tempv: nvmlDeviceGetTemperatureV with nvml.h's version;
         * tempv:N: with version N instead */
        nvml_device_temperature_v_fn f = (nvml_device_temperature_v_fn)sym("nvmlDeviceGetTemperatureV");
        nvmlTemperature_v1_t t;
        memset(&t, 0, sizeof t);
        t.version = item[5] ? (unsigned)strtoul(item + 6, NULL, 0) : nvmlTemperature_v1;
        t.sensorType = NVML_TEMPERATURE_GPU;
        if (!missing(item, f != NULL, "nvmlDeviceGetTemperatureV") && !failed(item, f(handle, &t)))
            printf("tempv %d", t.temperature);
    } else if (strcmp(item, "pstate") == 0) {
        nvml_device_pstate_fn f = (nvml_device_pstate_fn)sym("nvmlDeviceGetPerformanceState");
        nvmlPstates_t p = NVML_PSTATE_UNKNOWN;
        if (!missing(item, f != NULL, "nvmlDeviceGetPerformanceState") && !failed(item, f(handle, &p)))
            printf("pstate %d", p);
    } else if (strcmp(item, "energy") == 0) {
        ull_item(item, "nvmlDeviceGetTotalEnergyConsumption", 0);
    } else if (strcmp(item, "reasons") == 0) {
        ull_item(item, "nvmlDeviceGetCurrentClocksEventReasons", 1);
    } else if (strcmp(item, "throttle") == 0) {
        ull_item(item, "nvmlDeviceGetCurrentClocksThrottleReasons", 1);
    } else if (strncmp(item, "fields:", 7) == 0) {
        fields_item(item, item + 7);
    } else if (strncmp(item, "procs:", 6) == 0) {
        procs_item(item, item + 6);
    } else if (strcmp(item, "fieldts") == 0) {
        nvml_device_field_values_fn f = (nvml_device_field_values_fn)sym("nvmlDeviceGetFieldValues");
        nvmlFieldValue_t v;
        memset(&v, 0, sizeof v);
        v.fieldId = NVML_FI_DEV_POWER_INSTANT;
        if (!missing(item, f != NULL, "nvmlDeviceGetFieldValues") && !failed(item, f(handle, 1, &v)))
            printf("fieldts %lld", v.timestamp - clock_ns(CLOCK_REALTIME) / 1000);
    } else if (strcmp(item, "putil0") == 0) {
        putil_last_seen = 0;
        printf("putil0 ok");
    } else if (strcmp(item, "putilsize") == 0) {
        putil_item(item, 1, 0);
    } else if (strncmp(item, "putil", 5) == 0 && (item[5] == 0 || item[5] == ':')) {
        putil_item(item, 0, item[5] ? (unsigned)strtoul(item + 6, NULL, 10) : 64);
    } else if (strcmp(item, "null") == 0) {
        nvml_device_uint_fn f = (nvml_device_uint_fn)sym("nvmlDeviceGetPowerUsage");
        if (!missing(item, f != NULL, "nvmlDeviceGetPowerUsage") && !failed(item, f(handle, NULL)))
            printf("null ok");
    } else if (strcmp(item, "badhandle") == 0) {
        nvml_device_uint_fn f = (nvml_device_uint_fn)sym("nvmlDeviceGetPowerUsage");
        unsigned v;
        static char not_a_device[16];
        if (!missing(item, f != NULL, "nvmlDeviceGetPowerUsage") &&
            !failed(item, f((nvmlDevice_t)(void *)not_a_device, &v)))
            printf("badhandle %u", v);
    } else if (strncmp(item, "sleep:", 6) == 0) {
        long long ms = atoll(item + 6);
        struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };
        nanosleep(&ts, NULL);
        printf("%s", item);
    } else if (strcmp(item, "t") == 0 || strcmp(item, "epoch") == 0) {
        epoch_hook_fn f = (epoch_hook_fn)sym("flinchsim_epoch_ns");
        if (!missing(item, f != NULL, "flinchsim_epoch_ns")) {
            long long e = f();
            if (item[0] == 't')
                printf("t %lld", (clock_ns(CLOCK_MONOTONIC) - e) / 1000000);
            else
                printf("epoch %lld", e);
        }
    } else if (strncmp(item, "gpm", 3) == 0) {
        gpm_item(item);
    } else if (strcmp(item, "init") == 0) {
        nvml_init_fn f = (nvml_init_fn)sym_v2("nvmlInit");
        if (!missing(item, f != NULL, "nvmlInit") && !failed(item, f()))
            printf("init ok");
    } else if (strcmp(item, "shutdown") == 0) {
        nvml_shutdown_fn f = (nvml_shutdown_fn)sym("nvmlShutdown");
        if (!missing(item, f != NULL, "nvmlShutdown") && !failed(item, f()))
            printf("shutdown ok");
    } else {
        printf("%s unknown-item", item);
    }
}

static int query(int argc, char **argv)
{
    int a = 0, timed = 0;
    for (; a < argc && argv[a][0] == '-'; a++) {
        if (strcmp(argv[a], "-T") == 0) {
            timed = 1;
        } else if (strcmp(argv[a], "--at") == 0 && a + 1 < argc) {
            char epoch[32];
            a++;
            snprintf(epoch, sizeof epoch, "%lld",
                     clock_ns(CLOCK_MONOTONIC) - atoll(argv[a]) * 1000000LL);
            setenv("FLINCH_SIM_EPOCH_NS", epoch, 1);
        } else {
            break;
        }
    }
    nvml_init_fn init = (nvml_init_fn)sym_v2("nvmlInit");
    if (!init) {
        printf("init missing nvmlInit\n");
        return 2;
    }
    nvmlReturn_t rc = init();
    if (rc != NVML_SUCCESS) {
        printf("init error %d %s\n", rc, error_string(rc));
        return 2;
    }
    for (int i = a; i < argc; i++) {
        long long t0 = clock_ns(CLOCK_MONOTONIC);
        one_item(argv[i]);
        if (timed)
            printf(" us=%lld", (clock_ns(CLOCK_MONOTONIC) - t0) / 1000);
        printf("\n");
    }
    return 0;
}

static int energy(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: simtool energy SCENARIO GPU T0_MS T1_MS\n");
        return 2;
    }
    if (strcmp(argv[0], "builtin") == 0)
        unsetenv("FLINCH_SIM_SCENARIO");
    else
        setenv("FLINCH_SIM_SCENARIO", argv[0], 1);
    nvml_init_fn init = (nvml_init_fn)sym_v2("nvmlInit");
    energy_hook_fn hook = (energy_hook_fn)sym("flinchsim_energy_J");
    nvmlReturn_t rc = init ? init() : NVML_ERROR_FUNCTION_NOT_FOUND;
    if (rc != NVML_SUCCESS || !hook) {
        fprintf(stderr, "simtool: init failed (%d)\n", rc);
        return 2;
    }
    printf("%.6f\n", hook((unsigned)atoi(argv[1]), atof(argv[2]) / 1000.0, atof(argv[3]) / 1000.0));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "now") == 0) {
        printf("%lld\n", clock_ns(CLOCK_MONOTONIC));
        return 0;
    }
    const char *path = getenv("SIM");
    int a = 1;
    if (argc > 2 && strcmp(argv[1], "--lib") == 0) {
        path = argv[2];
        a = 3;
    }
    if (!path || a >= argc) {
        fprintf(stderr, "usage: simtool now | [--lib SO] energy|builtin|syms|query ... (or set SIM)\n");
        return 2;
    }
    lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "simtool: %s\n", dlerror());
        return 2;
    }
    const char *mode = argv[a++];
    if (strcmp(mode, "query") == 0)
        return query(argc - a, argv + a);
    if (strcmp(mode, "energy") == 0)
        return energy(argc - a, argv + a);
    if (strcmp(mode, "builtin") == 0) {
        builtin_hook_fn f = (builtin_hook_fn)sym("flinchsim_builtin_scenario");
        if (!f)
            return 2;
        fputs(f(), stdout);
        return 0;
    }
    if (strcmp(mode, "syms") == 0) {
        static const char *const names[] = {
            "nvmlInit_v2", "nvmlInit", "nvmlShutdown", "nvmlErrorString",
            "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount",
            "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex",
            "nvmlDeviceGetName", "nvmlDeviceGetPowerUsage", "nvmlDeviceGetUtilizationRates",
            "nvmlDeviceGetMemoryInfo", "nvmlDeviceGetClockInfo", "nvmlDeviceGetTemperature",
            "nvmlDeviceGetTotalEnergyConsumption", "nvmlDeviceGetFieldValues",
            "nvmlDeviceGetEnforcedPowerLimit", "nvmlDeviceGetCurrentClocksEventReasons",
            "nvmlDeviceGetCurrentClocksThrottleReasons", "nvmlDeviceGetTemperatureV",
            "nvmlDeviceGetPerformanceState", "nvmlSystemGetDriverVersion",
            "nvmlSystemGetNVMLVersion", "nvmlDeviceGetUUID", "nvmlDeviceGetPciInfo_v3",
            "nvmlDeviceGetPersistenceMode", "nvmlDeviceGetComputeMode", "nvmlDeviceGetMigMode",
            "nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2",
            "nvmlDeviceGetComputeRunningProcesses",
            "nvmlGpmQueryDeviceSupport", "nvmlGpmSampleAlloc", "nvmlGpmSampleFree",
            "nvmlGpmSampleGet", "nvmlGpmMetricsGet",
            "nvmlDeviceGetProcessUtilization", "nvmlDeviceGetMaxClockInfo",
            "flinchsim_energy_J", "flinchsim_epoch_ns", "flinchsim_builtin_scenario",
            "flinchsim_vclock_now", "flinchsim_vclock_sleep_until", "flinchsim_vclock_wall_offset_ns",
        };
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (sym(names[i]))
                printf("%s\n", names[i]);
        return 0;
    }
    fprintf(stderr, "simtool: unknown mode '%s'\n", mode);
    return 2;
}
