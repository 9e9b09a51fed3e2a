/* sensor_figures.c — see sensor_figures.h. */
#include <math.h>
#include <string.h>

#include "sensor_figures.h"

/* GPUs whose instantaneous power sensor is documented: Yang et al., "Part-
 * time Power Measurements: nvidia-smi's Lack of Attention", arXiv
 * 2312.02741 (SC24), measured on A100 and H100 that the instantaneous
 * power is the mean over 25 ms, refreshed every 100 ms. Matched as a
 * substring of the NVML name ("NVIDIA H100 80GB HBM3"). Utilization is
 * left at the conservative period: NVML gives only a range. */
static const struct {
    const char *name;
    double power_refresh_ms, power_window_ms;
} known[] = {
    { "A100", 100, 25 },
    { "H100", 100, 25 },
};

static int row_of(const char *gpu_name)
{
    for (size_t i = 0; gpu_name && i < sizeof known / sizeof known[0]; i++)
        if (strstr(gpu_name, known[i].name))
            return (int)i;
    return -1;
}

const char *sensor_figures_source(const char *gpu_name)
{
    int r = row_of(gpu_name);
    return r < 0 ? "" : known[r].name;
}

void sensor_figures_settle(struct sensor_cadence *c, const char *gpu_name)
{
    int r = row_of(gpu_name);
    if (isnan(c->power_refresh_ms)) {
        c->power_refresh_ms = r >= 0 ? known[r].power_refresh_ms : FIGURE_POWER_REFRESH_MS;
        if (isnan(c->power_window_ms) && r >= 0)
            c->power_window_ms = known[r].power_window_ms;
    }
    if (isnan(c->power_window_ms))
        c->power_window_ms = c->power_refresh_ms;
    if (isnan(c->util_period_ms))
        c->util_period_ms = FIGURE_UTIL_PERIOD_MS;
    if (isnan(c->average_window_ms))
        c->average_window_ms = FIGURE_AVERAGE_WINDOW_MS;
    if (isnan(c->average_refresh_ms))
        c->average_refresh_ms = FIGURE_AVERAGE_REFRESH_MS;
    if (isnan(c->event_lag_ms))
        c->event_lag_ms = FIGURE_EVENT_LAG_MS;
}
