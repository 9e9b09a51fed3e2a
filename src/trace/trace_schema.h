/*
 * trace_schema.h — the columns of a flinch trace CSV and the row types.
 *
 * This is the contract between the recorder (writer) and everything that
 * reads traces (analyze, plot, export). The first ten columns are the
 * original nvml_trace.py header, in its order and spelling, so the original
 * analyze_trace.py reads a single-GPU flinch trace unchanged; flinch's own
 * columns follow. After the fixed columns a trace may carry one column per
 * RAPL domain, named RAPL_CUM_PREFIX + domain name, every byte outside
 * [A-Za-z0-9_] made '_' (e.g. "rapl_cum_uj_package_0": a plain identifier,
 * so SQL engines such as DuckDB need no quoting; flinch before issue 9
 * wrote "rapl_cum_uj:package-0", which readers still accept), holding that domain's wrap-corrected cumulative
 * energy in microjoules since the recording started.
 *
 * Readers look columns up by name (trace_column_by_name), never by position,
 * so a CSV from the original tracer (ten columns) reads too.
 */
#ifndef FLINCH_TRACE_SCHEMA_H
#define FLINCH_TRACE_SCHEMA_H

#include <stddef.h>

enum trace_column {
    /* the original ten */
    COL_T_MONO_NS,            /* CLOCK_MONOTONIC, ns */
    COL_T_WALL_NS,            /* CLOCK_REALTIME, ns since 1970 */
    COL_ROW_TYPE,             /* SAMPLE, MARK or EVENT */
    COL_LABEL,                /* MARK label; EVENT description */
    COL_GPU_POWER_W,          /* nvmlDeviceGetPowerUsage: 1 s average on Ampere+ */
    COL_GPU_UTIL_PCT,
    COL_GPU_MEM_UTIL_PCT,
    COL_GPU_SM_CLOCK_MHZ,
    COL_GPU_TEMP_C,
    COL_RAPL_ENERGY_UJ,       /* raw counter of the first RAPL domain (wraps) */
    /* flinch's additions */
    COL_GPU_INDEX,
    COL_GPU_ENERGY_MJ,        /* nvmlDeviceGetTotalEnergyConsumption, mJ since driver load */
    COL_GPU_POWER_INSTANT_W,  /* NVML_FI_DEV_POWER_INSTANT */
    COL_GPU_MEM_USED_MIB,
    COL_GPU_CLOCK_EVENT_REASONS, /* bitmask, 0x%016llx */
    COL_GPU_POWER_LIMIT_W,    /* nvmlDeviceGetEnforcedPowerLimit */
    COL_HOST_CPU_BUSY_PCT,    /* /proc/stat, all CPUs, since the previous tick */
    COL_TICK,                 /* scheduled tick number; a jump means ticks were skipped */
    COL_LATE_NS,              /* how late this tick started against its deadline */
    COL_ARRIVAL_MONO_NS,      /* MARK: when the line arrived (t_mono_ns may be the client's stamp) */
    COL_PROC_PID,             /* --pid / wrapped command */
    COL_PROC_CPU_NS,          /* that process's CPU time, all threads, ns */
    COL_PROC_STATE,           /* R, S, D, Z... from /proc/PID/stat; X once it exited */
    COL_MARK_ATTRS,           /* MARK: range edge and id, thread, domain (mark_line.h) */
    COL_PROC_TREE_CPU_NS,     /* CPU time of the process and all its descendants, live and reaped, ns */
    COL_PROC_TREE_PROCS,      /* processes alive in that tree */
    COL_PROC_TOP_THREAD_CORES, /* the tree's busiest thread since its previous reading, in cores */
    COL_PROC_TOP_THREAD,      /* that thread: "TID name" */
    COL_GPU_ENERGY_TS_US,     /* the driver's timestamp of gpu_energy_mJ, us since 1970 */
    COL_GPU_POWER_INSTANT_TS_US, /* the driver's timestamp of gpu_power_instant_W */
    COL_GPU_PSTATE,           /* nvmlDeviceGetPerformanceState, 0 (fastest)..15 */
    COL_GPU_THROTTLE_POWER_CAP_NS,   /* cumulative ns the clocks were held by the power cap */
    COL_GPU_THROTTLE_SW_THERMAL_NS,  /* ... by SW thermal slowdown */
    COL_GPU_THROTTLE_HW_THERMAL_NS,  /* ... by HW thermal slowdown */
    COL_GPU_THROTTLE_HW_BRAKE_NS,    /* ... by HW power-brake slowdown */
    COL_GPU_PCIE_TX_BYTES,    /* field 197: PCIe bytes sent by the GPU, raw counter (may wrap) */
    COL_GPU_PCIE_RX_BYTES,    /* field 198: PCIe bytes received */
    COL_GPU_SM_ACTIVE_PCT,    /* GPM: percent of SMs busy over the span ending here (Hopper+) */
    COL_GPU_SM_OCCUPANCY_PCT, /* GPM: resident warps vs the maximum, same span */
    COL_GPU_TENSOR_ACTIVE_PCT, /* GPM: tensor pipes busy, same span */
    COL_GPU_DRAM_BW_PCT,      /* GPM: DRAM bandwidth vs the peak, same span */
    COL_GPU_GPM_SPAN_NS,      /* GPM: the span those four cover, ending at this row */
    COL_GPU_PROC_SM_PCT,      /* SM % of the traced process tree (per-process samples, ~1 s) */
    COL_GPU_OTHER_SM_PCT,     /* SM % of every other process on the GPU */
    COL_GPU_PROC_UTIL_TS_US,  /* the newest per-process sample's driver timestamp, us since 1970 */
    COL_PROC_TREE_RUNQ_NS,    /* the tree's threads' run-queue delay (runnable, not running), ns (proc_runq.h) */
    COL_COUNT
};

#define TRACE_ORIGINAL_COLUMNS 10
#define RAPL_CUM_PREFIX "rapl_cum_uj_"
#define RAPL_CUM_PREFIX_OLD "rapl_cum_uj:"  /* read, never written */

/* Writes the column name of RAPL domain `domain` into buf: RAPL_CUM_PREFIX
 * and the domain with every byte outside [A-Za-z0-9_] replaced by '_'. */
void trace_rapl_column_name(const char *domain, char *buf, size_t cap);

extern const char *const trace_column_names[COL_COUNT];

/* Index of a fixed column by its header name, or -1. */
int trace_column_by_name(const char *name);

/* The values a reader accepts in a numeric column (README, "bad input"):
 * every number must be finite, and within [lo, hi] when the column has a
 * range (hi > lo). The bounds are far beyond any real reading but keep all
 * arithmetic on them exact and overflow-free (times and counters stay
 * below 2^62 ns or 2^53). Units are the column's own. */
struct trace_column_range { double lo, hi; };
extern const struct trace_column_range trace_column_ranges[COL_COUNT];
/* t_mono_ns, t_wall_ns, arrival_mono_ns: 0 .. TRACE_NS_MAX (2^62 - 1 ns,
 * 146 years), so a difference or sum of two times never overflows int64. */
#define TRACE_NS_MAX 4611686018427387903LL
/* The bound on cumulative counters read as doubles (energy, CPU time):
 * integers exact up to 2^53. */
#define TRACE_COUNTER_MAX 9007199254740992.0

#define ROW_SAMPLE "SAMPLE"
#define ROW_MARK   "MARK"
#define ROW_EVENT  "EVENT"

/* Longest label accepted from the marks FIFO, in bytes. */
#define MARK_LABEL_MAX 256

#endif
