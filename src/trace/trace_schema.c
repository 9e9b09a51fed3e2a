/* trace_schema.c — column names of the trace CSV; see trace_schema.h. */
#include <stdio.h>
#include <string.h>

#include "trace_schema.h"

const char *const trace_column_names[COL_COUNT] = {
    "t_mono_ns", "t_wall_ns", "row_type", "label", "gpu_power_W",
    "gpu_util_pct", "gpu_mem_util_pct", "gpu_sm_clock_MHz", "gpu_temp_C",
    "rapl_energy_uj",
    "gpu_index", "gpu_energy_mJ", "gpu_power_instant_W", "gpu_mem_used_MiB",
    "gpu_clock_event_reasons", "gpu_power_limit_W", "host_cpu_busy_pct",
    "tick", "late_ns", "arrival_mono_ns", "proc_pid", "proc_cpu_ns",
    "proc_state", "mark_attrs",
    "proc_tree_cpu_ns", "proc_tree_procs", "proc_top_thread_cores", "proc_top_thread",
    "gpu_energy_ts_us", "gpu_power_instant_ts_us", "gpu_pstate",
    "gpu_throttle_power_cap_ns", "gpu_throttle_sw_thermal_ns",
    "gpu_throttle_hw_thermal_ns", "gpu_throttle_hw_brake_ns",
    "gpu_pcie_tx_bytes", "gpu_pcie_rx_bytes",
    "gpu_sm_active_pct", "gpu_sm_occupancy_pct", "gpu_tensor_active_pct", "gpu_dram_bw_pct",
    "gpu_gpm_span_ns",
    "gpu_proc_sm_pct", "gpu_other_sm_pct", "gpu_proc_util_ts_us",
    "proc_tree_runq_ns",
};

void trace_rapl_column_name(const char *domain, char *buf, size_t cap)
{
    size_t n = strlen(RAPL_CUM_PREFIX);
    if (cap == 0)
        return;
    snprintf(buf, cap, "%s", RAPL_CUM_PREFIX);
    for (; *domain && n + 1 < cap; domain++, n++) {
        char c = *domain;
        int plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_';
        buf[n] = plain ? c : '_';
    }
    if (n < cap)
        buf[n] = '\0';
}

int trace_column_by_name(const char *name)
{
    for (int i = 0; i < COL_COUNT; i++)
        if (strcmp(trace_column_names[i], name) == 0)
            return i;
    return -1;
}

/* Not listed: no range beyond "finite" (a column added later starts here). */
const struct trace_column_range trace_column_ranges[COL_COUNT] = {
    [COL_T_MONO_NS] = { 0, (double)TRACE_NS_MAX },
    [COL_T_WALL_NS] = { 0, (double)TRACE_NS_MAX },
    [COL_GPU_POWER_W] = { 0, 1e5 },             /* W: 100 kW, far above any GPU */
    [COL_GPU_POWER_INSTANT_W] = { 0, 1e5 },
    [COL_GPU_POWER_LIMIT_W] = { 0, 1e5 },
    [COL_GPU_UTIL_PCT] = { 0, 100 },
    [COL_GPU_MEM_UTIL_PCT] = { 0, 100 },
    [COL_HOST_CPU_BUSY_PCT] = { 0, 100 },
    [COL_GPU_SM_CLOCK_MHZ] = { 0, 1e6 },
    [COL_GPU_TEMP_C] = { -273.15, 1e4 },
    [COL_RAPL_ENERGY_UJ] = { 0, TRACE_COUNTER_MAX },
    [COL_GPU_INDEX] = { 0, 1e6 },               /* the GPU limit itself: trace_limits.h */
    [COL_GPU_ENERGY_MJ] = { 0, TRACE_COUNTER_MAX },
    [COL_GPU_MEM_USED_MIB] = { 0, TRACE_COUNTER_MAX },
    [COL_TICK] = { 0, TRACE_COUNTER_MAX },
    [COL_LATE_NS] = { -(double)TRACE_NS_MAX, (double)TRACE_NS_MAX },
    [COL_ARRIVAL_MONO_NS] = { 0, (double)TRACE_NS_MAX },
    [COL_PROC_PID] = { 0, 4294967295.0 },
    [COL_PROC_CPU_NS] = { 0, (double)TRACE_NS_MAX },
    [COL_GPU_SM_ACTIVE_PCT] = { 0, 100 },
    [COL_GPU_SM_OCCUPANCY_PCT] = { 0, 100 },
    [COL_GPU_TENSOR_ACTIVE_PCT] = { 0, 100 },
    [COL_GPU_DRAM_BW_PCT] = { 0, 100 },
    [COL_GPU_GPM_SPAN_NS] = { 0, (double)TRACE_NS_MAX },
    [COL_GPU_PROC_SM_PCT] = { 0, 100 },
    [COL_GPU_OTHER_SM_PCT] = { 0, 100 },
    [COL_GPU_PROC_UTIL_TS_US] = { 0, TRACE_COUNTER_MAX },
    [COL_PROC_TREE_RUNQ_NS] = { 0, (double)TRACE_NS_MAX },
};
