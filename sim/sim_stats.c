/*
 * sim_stats.c — how many calls the simulated NVML answered, per GPU and
 * entry point, for benchmarks (bench/nvml_calls.sh) and tests.
 *
 * Owns: the counts and their file. With FLINCH_SIM_STATS=PATH the last
 * nvmlShutdown writes one line per GPU and function that was called:
 * `gpu G FUNC N` (FUNC without its _v2 suffix), then `latency_us L`, so a
 * reader can compute the time the driver spent: calls times latency. Every
 * counted call is a device query (sim/SCENARIO.md), including the ones
 * answered with an error.
 */
#include "sim_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long long calls[SIM_MAX_GPUS][SIM_FN_N];

void sim_stats_count(unsigned gpu, int func)
{
    if (gpu < SIM_MAX_GPUS && func >= 0 && func < SIM_FN_N)
        calls[gpu][func]++;
}

void sim_stats_reset(void)
{
    memset(calls, 0, sizeof calls);
}

void sim_stats_write(void)
{
    const char *path = getenv("FLINCH_SIM_STATS");
    if (!path || !*path)
        return;
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "flinch-sim: FLINCH_SIM_STATS %s: cannot write\n", path);
        return;
    }
    for (unsigned g = 0; g < SIM_MAX_GPUS; g++)
        for (int fn = 0; fn < SIM_FN_N; fn++)
            if (calls[g][fn])
                fprintf(f, "gpu %u %s %lld\n", g, sim_func_name(fn), calls[g][fn]);
    fprintf(f, "latency_us %lld\n", sim_scn.latency_us);
    fclose(f);
}
