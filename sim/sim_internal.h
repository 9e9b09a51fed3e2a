/*
 * sim_internal.h — what the simulated NVML's entry-point files share.
 *
 * Owns nothing itself: sim_nvml.c owns the state (one mutex, the scenario,
 * the epoch) and the call protocol (device_query: check, count, sleep,
 * fault); other sim files (sim_fields.c, sim_stats.c, ...) add entry points
 * through the same protocol. Everything here is hidden from the dynamic
 * symbol table.
 */
#ifndef FLINCH_SIM_INTERNAL_H
#define FLINCH_SIM_INTERNAL_H

#include <pthread.h>
#include <time.h>

#include "nvml_api.h"
#include "scenario.h"

#define EXPORT __attribute__((visibility("default")))

#pragma GCC visibility push(hidden)

extern pthread_mutex_t sim_lock;
extern struct sim_scenario sim_scn;

long long sim_now_wall_ns(void);   /* CLOCK_REALTIME, or the virtual clock's */
/* CLOCK_REALTIME ns of scenario time 0, fixed at nvmlInit: a time-stamped
 * sample keeps its timestamp from one call to the next. */
extern long long sim_wall_at_zero_ns;
unsigned int sim_watts_to_mw(double w);

/* Validates init, handle and out pointer, counts the query against GPU
 * *gpu, sleeps its latency and decides its faults. Returns NVML_SUCCESS
 * with sim_lock held (the caller reads the timeline at *t_ns, scenario
 * time, and unlocks), or an error with the lock released. */
nvmlReturn_t sim_device_query(nvmlDevice_t dev, const void *out, int func,
                              unsigned *gpu, long long *t_ns);

/* Counts one request of field `field_id` on GPU gpu against the faults;
 * the code it must answer (NVML_SUCCESS when none). Lock held. */
nvmlReturn_t sim_field_fault(unsigned gpu, unsigned field_id);

/* nvmlInit has been called more often than nvmlShutdown. Lock held. */
int sim_initialized(void);

/* Per-GPU, per-function call counts (sim_stats.c). Lock held. */
void sim_stats_count(unsigned gpu, int func);
void sim_stats_reset(void);
/* Writes the counts to $FLINCH_SIM_STATS, if set (at the last shutdown). */
void sim_stats_write(void);

#pragma GCC visibility pop

#endif
