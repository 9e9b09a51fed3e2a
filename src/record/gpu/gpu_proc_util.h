/*
 * gpu_proc_util.h — whose SM time it was: the traced process tree's share
 * of a GPU's SM time and every other process's, from
 * nvmlDeviceGetProcessUtilization.
 *
 * Owns: the driver's calling protocol (samples newer than the last one
 * seen, a bounded buffer, NOT_FOUND when there is nothing new), how often
 * it is read, and how samples become the two readings:
 *
 *   proc   the sum of smUtil over the samples of processes in the traced
 *          tree, divided by the number of distinct sample timestamps
 *          (driver sampling periods) the call returned;
 *   other  the same over every other process on the GPU.
 *
 * Dividing both by the same count keeps their ratio exact (the share of
 * the GPU's SM time that was the job's) whether the driver stamps the
 * processes of one period alike or not; a period in which no process ran
 * has no sample, so both read as the mean over the periods in which some
 * process ran. Read every GPU_PROC_UTIL_MS (the driver refreshes these
 * samples every 1/6 s to 1 s): one call per GPU per read in the common
 * case: the bounded buffer is passed at once, without the NULL size query
 * first (INSUFFICIENT_SIZE then means more samples than it holds: that
 * span is skipped, said once). A reading covers the samples since the
 * previous one (the first, the GPU_PROC_UTIL_MS before it); its timestamp
 * is the newest sample's.
 *
 * Only with a traced process (--pid or -- CMD). NOT_SUPPORTED,
 * NO_PERMISSION or a library without the function switch it off for the
 * recording, with one warning saying why; the cells stay empty.
 */
#ifndef FLINCH_GPU_PROC_UTIL_H
#define FLINCH_GPU_PROC_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "nvml_loader.h"

#define GPU_PROC_UTIL_MS 1000     /* how often the per-process samples are read */
#define GPU_PROC_SAMPLES_MAX 512  /* samples taken per read; more is reported, not read */

struct gpu_proc_util {
    int on;                        /* reading: a traced tree and the entry point */
    int64_t every, at;             /* in ticks; at: tick of the last read, -1 never */
    int64_t phase;                 /* first read at this tick: GPUs spread over the period */
    unsigned long long last_seen_us; /* newest sample timestamp seen; 0: not yet */
    nvmlProcessUtilizationSample_t *buf;  /* GPU_PROC_SAMPLES_MAX */
    const pid_t *tree;             /* the traced tree's pids, sorted; set before each tick */
    int ntree;
    int tree_seen;                 /* a tree pid appeared in a sample */
    unsigned warned;               /* bit per kind of trouble already reported */
    char off_why[64];              /* set when reading stopped for good: why (for the EVENT row) */
    int off_written;               /* the recorder wrote that EVENT row */
};

/* The three readings of one read (valid when ok). */
struct proc_util_reading {
    int ok;
    unsigned proc_pct, other_pct;  /* 0..100 */
    unsigned long long ts_us;      /* newest sample's timestamp, us since 1970 */
};

/* The `flinch_proc_util gpu=N why="..."` EVENT label (trace_event.h) once
 * p->off_why is set and not yet written; 0 when there is none to write. */
int gpu_proc_util_off_label(const struct gpu_proc_util *p, unsigned index, char *buf, size_t len);

/* Starts reading GPU index's per-process samples every GPU_PROC_UTIL_MS.
 * Returns 0, or -1 (with one warning) when the library lacks the function. */
int gpu_proc_util_enable(const struct nvml_lib *lib, struct gpu_proc_util *p, unsigned index,
                         int interval_ms);
void gpu_proc_util_free(struct gpu_proc_util *p);

/* Whether tick is a read tick: the first at or after the GPU's phase
 * (index mod every: on a host with many GPUs their reads fall on
 * different ticks, not all on one), then every `every`. */
int gpu_proc_util_due(struct gpu_proc_util *p, int64_t tick);

/* One read. Returns 1 when the GPU is lost, else 0; out->ok says whether
 * there is a reading (no new sample, a refused call: none). */
int gpu_proc_util_read(const struct nvml_lib *lib, struct gpu_proc_util *p, nvmlDevice_t handle,
                       unsigned index, struct proc_util_reading *out);

#endif
