/*
 * sensor_figures.h — what the breakdown assumes about a GPU's sensors where
 * the trace cannot show it.
 *
 * Owns: the conservative figures used when a sensor's period could not be
 * measured (too few changes in the trace), the small table of better-known
 * figures by GPU name, and the lag allowed to the GpuIdle clock-event
 * reason. A sensor assumed faster than it is makes every edge it places
 * look sharper than it is (an "edges +-5 ms" that missed by 100 ms); one
 * assumed slower only widens the printed resolution, so unknowns take the
 * slow end of what is documented.
 */
#ifndef FLINCH_SENSOR_FIGURES_H
#define FLINCH_SENSOR_FIGURES_H

#include "breakdown.h"

/* Conservative figures (NVML reference: utilization "over the past sample
 * period", "between 1 second and 1/6 second depending on the product";
 * nvmlDeviceGetPowerUsage "averaged over 1 sec" on Ampere and newer; the
 * instantaneous field refreshed every ~100 ms on A100/H100, arXiv
 * 2312.02741). */
#define FIGURE_UTIL_PERIOD_MS 1000.0
#define FIGURE_POWER_REFRESH_MS 100.0
#define FIGURE_AVERAGE_WINDOW_MS 1000.0
#define FIGURE_AVERAGE_REFRESH_MS 1000.0
/* How late the GpuIdle reason may report a change: not published; the
 * simulator's event_lag_us plays 0..50 ms and bench/sensors_real.sh
 * measures it on hardware. */
#define FIGURE_EVENT_LAG_MS 50.0

/* Fills every NAN figure of *c: from the table when gpu_name (NULL or ""
 * when unknown) names a GPU in it, else the conservative figure. A window
 * of NAN after a measured refresh becomes the refresh (the window is never
 * visible in a trace; it is at most the refresh). */
void sensor_figures_settle(struct sensor_cadence *c, const char *gpu_name);

/* The table row that matched gpu_name, "" when none (for the report). */
const char *sensor_figures_source(const char *gpu_name);

#endif
