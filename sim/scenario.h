/*
 * scenario.h — a parsed scenario of the simulated NVML (see sim/SCENARIO.md).
 *
 * Owns: the in-memory form of a scenario file (settings, faults, one
 * piecewise-constant timeline per GPU), the parser that builds it, and the
 * timeline arithmetic: the reading at a time and the exact integral of power.
 * sim_nvml.c owns everything that happens at call time (counting queries,
 * sleeping, return codes); this part is pure and never looks at a clock.
 *
 * Everything declared here is internal to the shared library: the pragma
 * keeps it out of the dynamic symbol table, so the library exports NVML's
 * names and the two test hooks, nothing else.
 */
#ifndef FLINCH_SIM_SCENARIO_H
#define FLINCH_SIM_SCENARIO_H

#include <stddef.h>

#pragma GCC visibility push(hidden)

#define SIM_MAX_GPUS 72   /* above the trace's 64 (trace_limits.h), so its limit is testable */
#define SIM_MAX_FAULTS 64
#define SIM_NAME_MAX 64 /* NVML_DEVICE_NAME_BUFFER_SIZE */
#define SIM_MEM_TOTAL_MIB 143771ULL /* an H200's 141 GB */
/* nvmlDeviceGetMaxClockInfo's SM (and graphics) clock unless `max_clock_MHz`
 * says otherwise: an H100 SXM's and an H200's, the GPUs both presets play
 * (NVIDIA's data sheets: 1980 MHz max boost) */
#define SIM_MAX_CLOCK_MHZ 1980
/* The memory clock, current and maximum alike, on every preset: an H100
 * SXM's HBM3 figure; flinch records it but reads no level from it */
#define SIM_MEM_CLOCK_MHZ 2619

/* NVML entry points a fault can name, without their _v2 suffix. */
enum sim_func {
    SIM_FN_COUNT, SIM_FN_HANDLE, SIM_FN_NAME, SIM_FN_POWER, SIM_FN_UTIL,
    SIM_FN_MEMORY, SIM_FN_CLOCK, SIM_FN_TEMP, SIM_FN_ENERGY, SIM_FN_FIELDS,
    SIM_FN_LIMIT, SIM_FN_EVENT_REASONS, SIM_FN_THROTTLE_REASONS, SIM_FN_TEMP_V,
    SIM_FN_PSTATE, SIM_FN_UUID, SIM_FN_PCI, SIM_FN_PERSISTENCE, SIM_FN_COMPUTE_MODE,
    SIM_FN_MIG_MODE, SIM_FN_PROCS, SIM_FN_GPM_SUPPORT, SIM_FN_GPM_SAMPLE, SIM_FN_GPM_METRICS,
    SIM_FN_PROC_UTIL, SIM_FN_MAX_CLOCK, SIM_FN_N
};

struct sim_reading {
    double power_w;
    unsigned util_pct, mem_util_pct, clock_mhz, temp_c, mem_used_mib;
    unsigned long long reasons;
    unsigned pstate;
    unsigned pcie_tx_mbps, pcie_rx_mbps; /* PCIe traffic, MB/s (10^6 bytes) */
    unsigned compute;           /* who has a compute context: SIM_COMPUTE_* bits */
    /* GPM activity in percent (sim_gpm.c); -1: derived from util / mem_util */
    int sm_active_pct, sm_occupancy_pct, tensor_pct, dram_bw_pct;
    unsigned proc_child_pct, proc_other_pct; /* SM % of the recorder's descendants / the tenant */
};

/* `at T compute=none|child|tenant|child+tenant` (sim_compute.c). */
enum { SIM_COMPUTE_CHILD = 1, SIM_COMPUTE_TENANT = 2 };
/* `pid_namespace foreign` adds this to every reported pid: PID_MAX_LIMIT
 * on 64-bit Linux, so no such pid exists here (a host pid seen from a
 * container). */
#define SIM_FOREIGN_PID_OFFSET 4194304u

/* One step: from t_ms on (until the next step) the GPU reads r.
 * energy_mj caches the integral of power from 0 to t_ms. */
struct sim_step {
    long long t_ms;
    struct sim_reading r;
    double energy_mj;
};

struct sim_timeline {
    struct sim_step *steps; /* steps[0].t_ms == 0, t_ms strictly increasing */
    size_t n, cap;
};

/* `unsupported FUNC` (after 0), `unsupported_after N FUNC` and `error CODE
 * FUNC [gpu G]`; func is -1 for `field:ID`. calls counts the calls (or
 * field requests) seen so far; rc is what they answer; gpu -1: any GPU. */
struct sim_unsupported {
    int func;
    unsigned field_id;
    long long after;
    long long calls;
    int rc;
    int gpu;
};

struct sim_stall {
    unsigned gpu;
    long long at_query;
    long long ms;
};

/* How the sensors sample the timeline (sensor_model.c, sim/SCENARIO.md).
 * Times in ns of scenario time; a period of 0 means continuous (the value
 * at the query instant), a window of 0 the value at the refresh instant.
 * phase_set bits say which phases a directive gave (the rest come from the
 * seed). */
struct sim_sensors {
    long long energy_phase_ns, energy_jitter_ns;
    long long instant_window_ns, instant_period_ns, instant_phase_ns;
    long long average_period_ns, average_phase_ns;
    long long util_period_ns, util_phase_ns;
    long long event_lag_ns;        /* clock-event reasons and SM clock report t - lag (0..50 ms) */
    unsigned long long seed;
    int have_seed;
    unsigned phase_set;
};

/* `sensor_fault KIND T0 T1 [VALUE]`: bad sensor data, as real drivers
 * sometimes give it (sensor_model.c). */
enum sim_fault_kind { SIM_FAULT_COUNTER_STUCK, SIM_FAULT_COUNTER_RESET, SIM_FAULT_COUNTER_JUMP,
                      SIM_FAULT_INSTANT_FROZEN };
struct sim_sensor_fault {
    int kind;
    long long t0_ns, t1_ns;
    double value;
};
#define SIM_MAX_SENSOR_FAULTS 16

enum { SIM_PHASE_ENERGY = 1, SIM_PHASE_INSTANT = 2, SIM_PHASE_AVERAGE = 4, SIM_PHASE_UTIL = 8 };

struct sim_scenario {
    unsigned gpus;
    const char *preset;         /* "ideal" or "h100": the last preset applied */
    struct sim_sensors sensors;
    struct sim_sensor_fault sensor_faults[SIM_MAX_SENSOR_FAULTS];
    size_t n_sensor_faults;
    char name[SIM_NAME_MAX];
    char gpu_name[SIM_MAX_GPUS][SIM_NAME_MAX]; /* `gpu_name G TEXT`; "" = name */
    unsigned max_clock_mhz[SIM_MAX_GPUS]; /* `max_clock_MHz N [gpu G]`: nvmlDeviceGetMaxClockInfo */
    int power_instant;          /* power_readout instant */
    long long average_window_ms;
    long long energy_update_ms;
    unsigned long long energy_base_mj;
    long long latency_us;
    unsigned power_limit_w;
    long long period_ms;
    int pcie_bits;              /* `pcie_counter_bits`: 32 (wraps, UNSIGNED_INT) or 64 */
    unsigned long long pcie_base_bytes; /* `pcie_base_bytes`: both PCIe counters at time 0 */
    long long pcie_reset_ms;    /* `pcie_reset_ms`: the counters restart from 0 then; -1 never */
    int no_driver, no_gpus;
    int persistence_off;        /* `persistence off`: nvmlDeviceGetPersistenceMode says disabled */
    int mig_on;                 /* `mig on`: nvmlDeviceGetMigMode says enabled (current and pending) */
    unsigned tenant_pid;        /* `tenant_pid N`: the other tenant's process (default 1) */
    int foreign_pids;           /* `pid_namespace foreign` */
    unsigned char gpm_off[SIM_MAX_GPUS]; /* `gpm off [gpu G]`: a GPU before Hopper (no GPM) */
    long long gpm_refresh_ms;   /* GPM counters refresh period (sim_gpm.c); 0: continuous */
    long long lost_after[SIM_MAX_GPUS]; /* -1: never lost */
    struct sim_unsupported unsupported[SIM_MAX_FAULTS];
    size_t n_unsupported;
    struct sim_stall stalls[SIM_MAX_FAULTS];
    size_t n_stalls;
    struct sim_timeline gpu[SIM_MAX_GPUS];
    long long proc_util_period_ns; /* per-process samples: one per period (sim_proc_util.c) */
};

/* The built-in scenario: sim/scenarios/demo.scn, byte for byte. */
extern const char sim_builtin_scenario[];

/* Parses TEXT (named FILE in messages) into *sc, starting from PRESET's
 * sensor figures (NULL: ideal; the file's own `preset` line wins). On error
 * returns -1 with "FILE:LINE: message" in err; *sc is then freed. */
int scenario_parse(struct sim_scenario *sc, const char *text, const char *file,
                   const char *preset, char *err, size_t errlen);
void scenario_free(struct sim_scenario *sc);

/* The function a name designates (with or without _v2), or -1. */
int sim_func_lookup(const char *name);
const char *sim_func_name(int func);

/* Timeline arithmetic; t_ns is scenario time in ns (may be negative). */
const struct sim_reading *timeline_reading_at(const struct sim_scenario *sc,
                                              unsigned gpu, long long t_ns);
double timeline_power_w(const struct sim_scenario *sc, unsigned gpu, long long t_ns);
double timeline_energy_mj(const struct sim_scenario *sc, unsigned gpu,
                          long long t0_ns, long long t1_ns);
double timeline_average_power_w(const struct sim_scenario *sc, unsigned gpu,
                                long long t_ns);
/* The integral from scenario time 0 to t_ns of a quantity that each step's
 * reading adds at a constant rate: amount(r, ns, arg) is what reading r
 * adds over ns nanoseconds. Exact integer arithmetic; across repeated
 * periods whole periods times one period's amount plus the remainder.
 * t_ns <= 0: the amount of the time-0 reading over -t_ns, negated. */
typedef long long (*step_amount_fn)(const struct sim_reading *r, long long ns, const void *arg);
long long timeline_amount_to(const struct sim_scenario *sc, unsigned gpu, step_amount_fn amount,
                             const void *arg, long long t_ns);
/* The time-weighted mean over [a, b] of the unsigned reading at byte offset
 * field_off of struct sim_reading (b <= a: the reading at a). */
double timeline_mean_uint(const struct sim_scenario *sc, unsigned gpu, long long a, long long b,
                          size_t field_off);
/* The first instant after t_ns (>= 0 or not) at which GPU gpu's reading
 * changes; INT64_MAX when it never does. */
long long timeline_next_change_ns(const struct sim_scenario *sc, unsigned gpu, long long t_ns);

/* sensor_model.c: what each sensor reports when queried at scenario time
 * t_ns, given the sensors' periods, windows, phases and jitter. */
int sensor_preset_apply(struct sim_scenario *sc, const char *name); /* -1: unknown */
void sensor_finish(struct sim_scenario *sc, const unsigned long long *env_seed);
unsigned long long sensor_energy_counter_mj(const struct sim_scenario *sc, unsigned gpu,
                                            long long t_ns);
double sensor_instant_w(const struct sim_scenario *sc, unsigned gpu, long long t_ns);
double sensor_average_w(const struct sim_scenario *sc, unsigned gpu, long long t_ns);
void sensor_util(const struct sim_scenario *sc, unsigned gpu, long long t_ns,
                 unsigned *gpu_pct, unsigned *mem_pct);
/* Update instant k of the energy counter (phase + k * period + jitter_k). */
long long sensor_energy_update_ns(const struct sim_scenario *sc, long long k);

/* Fills every step's energy_mj; the parser calls it once at the end. */
void timeline_finish(struct sim_timeline *tl);

#pragma GCC visibility pop

#endif
