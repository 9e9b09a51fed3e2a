/* gpu_row.c — a GPU reading into its SAMPLE row's cells; see gpu_row.h. */
#include "gpu_row.h"

/* GPM metrics on the row of the tick whose sample ended their span only. */
static void fill_gpm_cells(struct trace_row *row, const struct gpm_reading *m)
{
    static const int cols[GPM_N] = { COL_GPU_SM_ACTIVE_PCT, COL_GPU_SM_OCCUPANCY_PCT,
                                     COL_GPU_TENSOR_ACTIVE_PCT, COL_GPU_DRAM_BW_PCT };
    if (!m->have)
        return;
    for (int i = 0; i < GPM_N; i++)
        if (m->have & (1u << i))
            trace_row_pct1(row, cols[i], m->pct[i]);
    trace_row_int(row, COL_GPU_GPM_SPAN_NS, m->span_ns);
}

void gpu_row_fill(struct trace_row *row, const struct gpu_dev *dev,
                           const struct gpu_reading *g)
{
    trace_row_int(row, COL_T_MONO_NS, g->t_mono_ns);
    trace_row_int(row, COL_T_WALL_NS, g->t_wall_ns);
    trace_row_uint(row, COL_GPU_INDEX, dev->index);
    if (gpu_has(g, GV_POWER_MW))         trace_row_milli(row, COL_GPU_POWER_W, g->v[GV_POWER_MW]);
    if (gpu_has(g, GV_UTIL_GPU))         trace_row_uint(row, COL_GPU_UTIL_PCT, g->v[GV_UTIL_GPU]);
    if (gpu_has(g, GV_UTIL_MEM))         trace_row_uint(row, COL_GPU_MEM_UTIL_PCT, g->v[GV_UTIL_MEM]);
    if (gpu_has(g, GV_SM_CLOCK_MHZ))     trace_row_uint(row, COL_GPU_SM_CLOCK_MHZ, g->v[GV_SM_CLOCK_MHZ]);
    if (gpu_has(g, GV_TEMP_C))           trace_row_uint(row, COL_GPU_TEMP_C, g->v[GV_TEMP_C]);
    if (gpu_has(g, GV_ENERGY_MJ))        trace_row_uint(row, COL_GPU_ENERGY_MJ, g->v[GV_ENERGY_MJ]);
    if (gpu_has(g, GV_POWER_INSTANT_MW)) trace_row_milli(row, COL_GPU_POWER_INSTANT_W, g->v[GV_POWER_INSTANT_MW]);
    if (gpu_has(g, GV_MEM_USED_BYTES))   trace_row_uint(row, COL_GPU_MEM_USED_MIB, g->v[GV_MEM_USED_BYTES] >> 20);
    if (gpu_has(g, GV_REASONS))          trace_row_hex64(row, COL_GPU_CLOCK_EVENT_REASONS, g->v[GV_REASONS]);
    if (gpu_has(g, GV_POWER_LIMIT_MW))   trace_row_milli(row, COL_GPU_POWER_LIMIT_W, g->v[GV_POWER_LIMIT_MW]);
    if (gpu_has(g, GV_ENERGY_TS_US))     trace_row_uint(row, COL_GPU_ENERGY_TS_US, g->v[GV_ENERGY_TS_US]);
    if (gpu_has(g, GV_POWER_INSTANT_TS_US))
        trace_row_uint(row, COL_GPU_POWER_INSTANT_TS_US, g->v[GV_POWER_INSTANT_TS_US]);
    if (gpu_has(g, GV_PSTATE))           trace_row_uint(row, COL_GPU_PSTATE, g->v[GV_PSTATE]);
    if (gpu_has(g, GV_THR_SW_POWER_NS))  trace_row_uint(row, COL_GPU_THROTTLE_POWER_CAP_NS, g->v[GV_THR_SW_POWER_NS]);
    if (gpu_has(g, GV_THR_SW_THERMAL_NS)) trace_row_uint(row, COL_GPU_THROTTLE_SW_THERMAL_NS, g->v[GV_THR_SW_THERMAL_NS]);
    if (gpu_has(g, GV_THR_HW_THERMAL_NS)) trace_row_uint(row, COL_GPU_THROTTLE_HW_THERMAL_NS, g->v[GV_THR_HW_THERMAL_NS]);
    if (gpu_has(g, GV_THR_HW_BRAKE_NS))  trace_row_uint(row, COL_GPU_THROTTLE_HW_BRAKE_NS, g->v[GV_THR_HW_BRAKE_NS]);
    if (gpu_has(g, GV_PCIE_TX_BYTES))    trace_row_uint(row, COL_GPU_PCIE_TX_BYTES, g->v[GV_PCIE_TX_BYTES]);
    if (gpu_has(g, GV_PCIE_RX_BYTES))    trace_row_uint(row, COL_GPU_PCIE_RX_BYTES, g->v[GV_PCIE_RX_BYTES]);
    fill_gpm_cells(row, &g->gpm);
    if (gpu_has(g, GV_PROC_SM_PCT))      trace_row_uint(row, COL_GPU_PROC_SM_PCT, g->v[GV_PROC_SM_PCT]);
    if (gpu_has(g, GV_OTHER_SM_PCT))     trace_row_uint(row, COL_GPU_OTHER_SM_PCT, g->v[GV_OTHER_SM_PCT]);
    if (gpu_has(g, GV_PROC_UTIL_TS_US))  trace_row_uint(row, COL_GPU_PROC_UTIL_TS_US, g->v[GV_PROC_UTIL_TS_US]);
}
