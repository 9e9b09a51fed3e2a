/* trace_schema.c — column names of the trace CSV; see trace_schema.h. */
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
};

int trace_column_by_name(const char *name)
{
    for (int i = 0; i < COL_COUNT; i++)
        if (strcmp(trace_column_names[i], name) == 0)
            return i;
    return -1;
}
