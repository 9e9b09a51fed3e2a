/*
 * sim_nvml.c — the simulated NVML's exported entry points.
 *
 * Owns: what happens when a caller crosses the ABI: init/shutdown with
 * NVML's reference count, loading the scenario (FLINCH_SIM_SCENARIO or the
 * built-in demo) and the epoch (FLINCH_SIM_EPOCH_NS or the init time),
 * argument checks and return codes, per-GPU query counting and the faults
 * driven by it (latency, stalls, GPU lost, NOT_SUPPORTED), and the two test
 * hooks. The entry points that return a reading are sim_readings.c's; the
 * readings themselves come from timeline.c.
 *
 * One mutex guards all state. A device query takes it to count and decide,
 * drops it while sleeping (latency, stall) so another thread's query is not
 * held up by this one's stall, and takes it again to read the timeline.
 *
 * Built with -DSIM_LEGACY_ABI it exports what an old driver does: no _v2
 * entry points, no energy counter, no field values, no ClocksEventReasons.
 */
#include "sim_internal.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_SCENARIO_BYTES (1 << 20)

struct nvmlDevice_st {
    unsigned index;
};

pthread_mutex_t sim_lock = PTHREAD_MUTEX_INITIALIZER;
#define lock sim_lock
static int init_count;              /* nvmlInit minus nvmlShutdown calls */
struct sim_scenario sim_scn;
#define scenario sim_scn
static long long epoch_ns;          /* CLOCK_MONOTONIC ns of scenario time 0 */
long long sim_wall_at_zero_ns;
static long long queries[SIM_MAX_GPUS];
static struct nvmlDevice_st devices[SIM_MAX_GPUS];
/* Virtual time (FLINCH_SIM_VIRTUAL_TIME=1): the library's clock is vclock,
 * which only moves when a caller sleeps through flinchsim_vclock_sleep_until
 * or a query's latency passes; nothing sleeps for real. */
static int virtual_time;
static int64_t vclock_ns, vwall_offset_ns;
#define VCLOCK_START_NS 1000000000000LL  /* 1000 s, like a host up a while */

static long long clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The library's CLOCK_MONOTONIC (virtual or real). Lock held. */
static long long now_mono_ns(void)
{
    return virtual_time ? vclock_ns : clock_ns(CLOCK_MONOTONIC);
}

#ifndef SIM_LEGACY_ABI
long long sim_now_wall_ns(void)
{
    return virtual_time ? vclock_ns + vwall_offset_ns : clock_ns(CLOCK_REALTIME);
}
#endif

/* Parses an integer environment variable; 0 when unset, -1 (with a
 * flinch-sim: line) when malformed. */
static int env_ll(const char *name, long long *out, int *set)
{
    const char *v = getenv(name);
    *set = v && *v;
    if (!*set)
        return 0;
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || *end) {
        fprintf(stderr, "flinch-sim: %s: expected an integer, got '%s'\n", name, v);
        return -1;
    }
    *out = x;
    return 0;
}

static void sleep_ns(long long ns)
{
    struct timespec ts = { (time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL) };
    while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
        ;
}

/* Reads the scenario file into a NUL-terminated buffer. */
static char *read_scenario_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "flinch-sim: %s: %s\n", path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(MAX_SCENARIO_BYTES + 1);
    size_t n = buf ? fread(buf, 1, MAX_SCENARIO_BYTES + 1, f) : 0;
    int bad = !buf || ferror(f) || n > MAX_SCENARIO_BYTES;
    fclose(f);
    if (bad) {
        fprintf(stderr, "flinch-sim: %s: unreadable or larger than %d bytes\n",
                path, MAX_SCENARIO_BYTES);
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    return buf;
}

/* First init: load the scenario (with FLINCH_SIM_PRESET's sensors and
 * FLINCH_SIM_SENSOR_SEED's phases unless the file sets them), start the
 * virtual clock when asked, and fix the epoch. Lock held. */
static nvmlReturn_t load_state(void)
{
    const char *path = getenv("FLINCH_SIM_SCENARIO");
    const char *preset = getenv("FLINCH_SIM_PRESET");
    char *text = NULL;
    if (path && *path) {
        text = read_scenario_file(path);
        if (!text)
            return NVML_ERROR_UNKNOWN;
    }
    char err[512];
    int rc = scenario_parse(&scenario, text ? text : sim_builtin_scenario,
                            text ? path : "<builtin demo.scn>", preset && *preset ? preset : NULL,
                            err, sizeof err);
    free(text);
    if (rc) {
        fprintf(stderr, "flinch-sim: %s\n", err);
        return NVML_ERROR_UNKNOWN;
    }
    long long epoch = 0, seed = 0, vt = 0;
    int have_epoch, have_seed, have_vt;
    if (env_ll("FLINCH_SIM_EPOCH_NS", &epoch, &have_epoch) || env_ll("FLINCH_SIM_SENSOR_SEED", &seed, &have_seed)
        || env_ll("FLINCH_SIM_VIRTUAL_TIME", &vt, &have_vt) || seed < 0) {
        if (seed < 0)
            fprintf(stderr, "flinch-sim: FLINCH_SIM_SENSOR_SEED: expected a non-negative integer\n");
        scenario_free(&scenario);
        return NVML_ERROR_UNKNOWN;
    }
    unsigned long long useed = (unsigned long long)seed;
    sensor_finish(&scenario, have_seed ? &useed : NULL);
    virtual_time = have_vt && vt != 0;
    if (virtual_time) {
        vclock_ns = VCLOCK_START_NS;
        /* whole seconds: the fields' microsecond timestamps then fall on
         * the same virtual instants every run, and so does what analyze
         * computes from them (reading_instant.h) */
        vwall_offset_ns = clock_ns(CLOCK_REALTIME) / 1000000000LL * 1000000000LL - vclock_ns;
    }
    epoch_ns = have_epoch ? epoch : now_mono_ns();
    sim_wall_at_zero_ns = epoch_ns + (virtual_time ? vwall_offset_ns
                                                   : clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC));
    if (scenario.no_driver) {
        scenario_free(&scenario);
        return NVML_ERROR_DRIVER_NOT_LOADED;
    }
    memset(queries, 0, sizeof queries);
    sim_stats_reset();
    for (unsigned g = 0; g < SIM_MAX_GPUS; g++)
        devices[g].index = g;
    return NVML_SUCCESS;
}

static nvmlReturn_t sim_init(void)
{
    pthread_mutex_lock(&lock);
    nvmlReturn_t rc = init_count > 0 ? NVML_SUCCESS : load_state();
    if (rc == NVML_SUCCESS)
        init_count++;
    pthread_mutex_unlock(&lock);
    return rc;
}

#ifndef SIM_LEGACY_ABI
EXPORT nvmlReturn_t nvmlInit_v2(void) { return sim_init(); }
#endif
EXPORT nvmlReturn_t nvmlInit(void) { return sim_init(); }

EXPORT nvmlReturn_t nvmlShutdown(void)
{
    pthread_mutex_lock(&lock);
    nvmlReturn_t rc = NVML_SUCCESS;
    if (init_count == 0)
        rc = NVML_ERROR_UNINITIALIZED;
    else if (--init_count == 0) {
        sim_stats_write();
        scenario_free(&scenario);
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

EXPORT const char *nvmlErrorString(nvmlReturn_t result)
{
    switch (result) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
    case 5: return "Already Initialized";
    case NVML_ERROR_NOT_FOUND: return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
    case 8: return "Insufficient External Power";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    case NVML_ERROR_TIMEOUT: return "Timeout";
    case 11: return "Interrupt Request Issue";
    case NVML_ERROR_LIBRARY_NOT_FOUND: return "NVML Shared Library Not Found";
    case NVML_ERROR_FUNCTION_NOT_FOUND: return "Function Not Found";
    case 14: return "Corrupted infoROM";
    case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
    case 16: return "GPU requires restart";
    case 17: return "The operating system has blocked the request.";
    case 18: return "RM has detected an NVML/RM version mismatch.";
    case NVML_ERROR_ARGUMENT_VERSION_MISMATCH: return "Argument version mismatch";
    case NVML_ERROR_DEPRECATED: return "Deprecated";
    default: return "Unknown Error";
    }
}

/* Counts one call of FUNC on GPU gpu (or one request of field FIELD_ID
 * when is_field) against the faults; the code it must answer, NVML_SUCCESS
 * when none. Lock held. */
static nvmlReturn_t fault_now(int gpu, int func, int is_field, unsigned field_id)
{
    nvmlReturn_t hit = NVML_SUCCESS;
    for (size_t i = 0; i < scenario.n_unsupported; i++) {
        struct sim_unsupported *u = &scenario.unsupported[i];
        if (is_field ? (u->func != -1 || u->field_id != field_id) : u->func != func)
            continue;
        if (u->gpu >= 0 && u->gpu != gpu)
            continue;
        if (++u->calls > u->after && hit == NVML_SUCCESS)
            hit = u->rc;
    }
    return hit;
}

int sim_initialized(void)
{
    return init_count > 0;
}

nvmlReturn_t sim_field_fault(unsigned gpu, unsigned field_id)
{
    return fault_now((int)gpu, -1, 1, field_id);
}

/* The start of every query on GPU gpu: counts it, sleeps for latency or a
 * stall, and decides lost / not supported. Returns with the lock held when
 * the result is NVML_SUCCESS, released otherwise; *t_ns is the scenario
 * time of the reading (after the sleep, as a slow call returns late). */
static nvmlReturn_t begin_query(unsigned gpu, int func, long long *t_ns)
{
    long long n = ++queries[gpu];
    sim_stats_count(gpu, func);
    nvmlReturn_t fault;
    long long delay = scenario.latency_us * 1000;
    for (size_t i = 0; i < scenario.n_stalls; i++)
        if (scenario.stalls[i].gpu == gpu && scenario.stalls[i].at_query == n)
            delay += scenario.stalls[i].ms * 1000000LL;
    nvmlReturn_t rc = NVML_SUCCESS;
    if (scenario.lost_after[gpu] >= 0 && n > scenario.lost_after[gpu])
        rc = NVML_ERROR_GPU_IS_LOST;
    else if ((fault = fault_now((int)gpu, func, 0, 0)) != NVML_SUCCESS)
        rc = fault;
    if (delay > 0 && virtual_time) {
        vclock_ns += delay;
    } else if (delay > 0) {
        pthread_mutex_unlock(&lock);
        sleep_ns(delay);
        pthread_mutex_lock(&lock);
        if (init_count == 0)
            rc = NVML_ERROR_UNINITIALIZED; /* shut down while we slept */
    }
    *t_ns = now_mono_ns() - epoch_ns;
    if (rc != NVML_SUCCESS)
        pthread_mutex_unlock(&lock);
    return rc;
}

/* Validates init, handle and out pointer, then begins the query. Same lock
 * contract as begin_query; *gpu is the device's index. */
nvmlReturn_t sim_device_query(nvmlDevice_t dev, const void *out, int func,
                                 unsigned *gpu, long long *t_ns)
{
    pthread_mutex_lock(&lock);
    nvmlReturn_t rc = NVML_SUCCESS;
    uintptr_t p = (uintptr_t)dev, base = (uintptr_t)devices;
    if (init_count == 0)
        rc = NVML_ERROR_UNINITIALIZED;
    else if (p < base || p >= base + sizeof devices ||
             (p - base) % sizeof devices[0] != 0 ||
             dev->index >= (scenario.no_gpus ? 0 : scenario.gpus) || !out)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc != NVML_SUCCESS) {
        pthread_mutex_unlock(&lock);
        return rc;
    }
    *gpu = dev->index;
    return begin_query(*gpu, func, t_ns);
}

static nvmlReturn_t device_count(unsigned int *count)
{
    pthread_mutex_lock(&lock);
    nvmlReturn_t rc = NVML_SUCCESS;
    if (init_count == 0)
        rc = NVML_ERROR_UNINITIALIZED;
    else if (!count)
        rc = NVML_ERROR_INVALID_ARGUMENT;
    else if ((rc = fault_now(-1, SIM_FN_COUNT, 0, 0)) != NVML_SUCCESS)
        ;
    else
        *count = scenario.no_gpus ? 0 : scenario.gpus;
    pthread_mutex_unlock(&lock);
    return rc;
}

#ifndef SIM_LEGACY_ABI
EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count) { return device_count(count); }
#endif
EXPORT nvmlReturn_t nvmlDeviceGetCount(unsigned int *count) { return device_count(count); }

/* Getting a handle counts as a query on that GPU: a lost GPU refuses it. */
static nvmlReturn_t handle_by_index(unsigned int index, nvmlDevice_t *device)
{
    pthread_mutex_lock(&lock);
    nvmlReturn_t rc = NVML_SUCCESS;
    if (init_count == 0)
        rc = NVML_ERROR_UNINITIALIZED;
    else if (!device || index >= (scenario.no_gpus ? 0 : scenario.gpus))
        rc = NVML_ERROR_INVALID_ARGUMENT;
    if (rc != NVML_SUCCESS) {
        pthread_mutex_unlock(&lock);
        return rc;
    }
    long long t_ns;
    rc = begin_query(index, SIM_FN_HANDLE, &t_ns);
    if (rc != NVML_SUCCESS)
        return rc;
    *device = &devices[index];
    pthread_mutex_unlock(&lock);
    return NVML_SUCCESS;
}

#ifndef SIM_LEGACY_ABI
EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
    return handle_by_index(index, device);
}
#endif
EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device)
{
    return handle_by_index(index, device);
}
/* Test hooks, not part of NVML. Both need nvmlInit to have loaded a
 * scenario; before that they return NaN and -1. */
EXPORT double flinchsim_energy_J(unsigned gpu, double t0_s, double t1_s)
{
    double j = NAN;
    pthread_mutex_lock(&lock);
    if (init_count > 0 && gpu < scenario.gpus)
        j = timeline_energy_mj(&scenario, gpu, llround(t0_s * 1e9), llround(t1_s * 1e9)) / 1000.0;
    pthread_mutex_unlock(&lock);
    return j;
}

EXPORT long long flinchsim_epoch_ns(void)
{
    pthread_mutex_lock(&lock);
    long long e = init_count > 0 ? epoch_ns : -1;
    pthread_mutex_unlock(&lock);
    return e;
}

/* The virtual clock (FLINCH_SIM_VIRTUAL_TIME): a recorder that finds these
 * two reads and sleeps through them, so the whole recording runs on the
 * simulator's time without sleeping. now: -1 when time is real. */
EXPORT int64_t flinchsim_vclock_now(void)
{
    pthread_mutex_lock(&lock);
    int64_t t = virtual_time ? vclock_ns : -1;   /* still readable after nvmlShutdown */
    pthread_mutex_unlock(&lock);
    return t;
}

/* CLOCK_REALTIME minus the virtual clock, fixed at nvmlInit: the recorder
 * stamps t_wall_ns with the same offset the library stamps its per-process
 * samples with, so the two agree to the ns (read apart, they would differ
 * by the real time between two reads: tens of us, more on a busy host). */
EXPORT int64_t flinchsim_vclock_wall_offset_ns(void)
{
    pthread_mutex_lock(&lock);
    int64_t off = virtual_time ? vwall_offset_ns : 0;
    pthread_mutex_unlock(&lock);
    return off;
}

EXPORT int flinchsim_vclock_sleep_until(int64_t ns)
{
    pthread_mutex_lock(&lock);
    int ok = virtual_time;
    if (ok && ns > vclock_ns)
        vclock_ns = ns;
    pthread_mutex_unlock(&lock);
    return ok ? 0 : -1;
}

/* The built-in scenario's text, so a test can compare it with demo.scn. */
EXPORT const char *flinchsim_builtin_scenario(void)
{
    return sim_builtin_scenario;
}
