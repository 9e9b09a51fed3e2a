/*
 * gpu_pool.h — one thread per GPU, woken each tick, so the GPUs of a tick
 * are read at the same time.
 *
 * Owns: the worker threads and the hand-off between them and the sampling
 * thread. Why: an NVML query can take 100-200 us on a busy 8-GPU host and a
 * sample is about 9 queries, so reading 8 GPUs one after another takes
 * longer than a 10 ms interval and stamps GPU 7 milliseconds after GPU 0.
 * Each worker calls gpu_sample for its own GPU into its own reading; NVML
 * (and the simulated library) is thread-safe. The workers block every
 * signal: SIGINT/SIGTERM must reach the sampling thread, whose sleep they
 * interrupt. The pool is only worth its threads with two GPUs or more and
 * a slow driver: the recorder starts it when reading the GPUs in turn
 * takes over a millisecond (sample_tick in recorder.c).
 */
#ifndef FLINCH_GPU_POOL_H
#define FLINCH_GPU_POOL_H

#include <pthread.h>
#include <stdint.h>

#include "gpu_sampler.h"

struct gpu_pool_worker;

struct gpu_pool {
    const struct nvml_lib *lib;
    struct gpu_dev *devs;
    struct gpu_reading *readings;
    int n;                      /* workers running; 0: not started or stopped */
    struct gpu_pool_worker *workers;
    pthread_mutex_t lock;
    pthread_cond_t go;          /* sampler -> workers: a new generation */
    pthread_cond_t done;        /* workers -> sampler: pending reached 0 */
    uint64_t generation;        /* bumped once per tick */
    int pending;                /* workers still reading this generation */
    int stopping;
};

/* Starts one worker per GPU: worker i reads devs[i] into readings[i]. The
 * arrays must outlive the pool. Returns 0, or -1 after an error message
 * (no thread left running). */
int gpu_pool_start(struct gpu_pool *p, const struct nvml_lib *lib, struct gpu_dev *devs,
                   struct gpu_reading *readings, int n);

/* Reads every GPU at once and waits for all of them; rc[i] is GPU i's
 * gpu_sample result (NVML_SUCCESS or NVML_ERROR_GPU_IS_LOST). */
void gpu_pool_sample(struct gpu_pool *p, nvmlReturn_t *rc);

/* Ends and joins the workers (none is reading between samples). Safe to
 * call on a pool that was never started or is already stopped. */
void gpu_pool_stop(struct gpu_pool *p);

#endif
