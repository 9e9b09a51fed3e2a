/*
 * gpu_gpm.h — GPM metrics (GPU performance monitoring, Hopper and newer)
 * for one GPU: SM activity, SM occupancy, tensor activity and DRAM
 * bandwidth, each a percentage averaged over the span between two GPM
 * samples.
 *
 * Owns: whether this GPU has GPM (asked once at open with
 * nvmlGpmQueryDeviceSupport), the two sample buffers, when a sample is
 * taken and what a failure means. NVIDIA asks for samples more than 100 ms
 * apart (the counters' internal refresh; values taken closer are invalid,
 * not failed), so a sample is taken every GPU_GPM_MS, counted in scheduled
 * ticks like the sampler's medium and slow groups (round(GPU_GPM_MS /
 * interval), at least 1, from the first tick), and never less than
 * GPM_MIN_GAP_NS after the previous one by the clock: a tick that comes
 * too soon (a late tick followed by a punctual one) leaves the sample to
 * the next tick. Each sample after the first is followed by one
 * nvmlGpmMetricsGet against the previous sample: two driver calls per
 * GPU_GPM_MS, 0.1 per tick at 10 ms.
 *
 * A value covers the span ending at its sample (span_ns, from the previous
 * sample) and is written on that tick's row only; the rows between have
 * the cells empty. Where GPM is not to be had the cells stay empty and the
 * reason is kept for the trace's flinch_gpm EVENT row: `missing_symbol`
 * (a driver before r520), `unsupported` (isSupportedDevice 0: a GPU
 * before Hopper, or NOT_SUPPORTED), `no_permission` (NO_PERMISSION, from
 * the query or from a later call: GPM then stops), `error` (the sample
 * buffers could not be had). Other errors leave that span's cells empty
 * and start over from the next sample; NVML_ERROR_GPU_IS_LOST is passed up.
 */
#ifndef FLINCH_GPU_GPM_H
#define FLINCH_GPU_GPM_H

#include <stddef.h>
#include <stdint.h>

#include "nvml_loader.h"

#define GPU_GPM_MS 200
#define GPM_MIN_GAP_NS (100 * 1000000LL)

enum gpm_metric { GPM_SM_ACTIVE, GPM_SM_OCCUPANCY, GPM_TENSOR_ACTIVE, GPM_DRAM_BW, GPM_N };

struct gpm_reading {
    unsigned have;          /* bit (1u << GPM_x): pct[GPM_x] valid; 0: no value this tick */
    double pct[GPM_N];      /* 0..100 */
    int64_t span_ns;        /* the span the values cover, ending at this sample */
};

struct gpu_gpm {
    int on;                 /* sampling */
    const char *why;        /* off: missing_symbol, unsupported, no_permission, error */
    char detail[64];        /* the missing symbol or the driver's error string */
    int changed;            /* the state changed since the last flinch_gpm EVENT row */
    int64_t every, at;      /* in ticks; at: tick of the last sample, -1 none */
    int interval_ms;        /* the recording's tick */
    nvmlGpmSample_t sample[2];
    int cur;                /* sample[cur] holds the last sample */
    int have_prev;
    int64_t prev_ns;        /* when sample[cur] was taken */
    unsigned warned;        /* bit per metric already reported, bit GPM_N: the calls */
    nvmlGpmMetricsGet_t *get; /* ~13 KB: kept, not on a worker's stack */
};

/* Asks whether the GPU has GPM and, if so, allocates the sample buffers.
 * Never fails: an unusable GPM only leaves it off (with its reason). */
void gpm_open(const struct nvml_lib *lib, nvmlDevice_t h, struct gpu_gpm *g, int interval_ms);

/* Takes the tick's sample if one is due; fills *out (have 0 when no value
 * ends here). Returns 1 when the GPU is lost, else 0. */
int gpm_sample(const struct nvml_lib *lib, nvmlDevice_t h, unsigned index, struct gpu_gpm *g,
               int64_t tick, struct gpm_reading *out);

/* Frees the sample buffers. */
void gpm_close(const struct nvml_lib *lib, struct gpu_gpm *g);

/* "flinch_gpm gpu=N status=on every_ms=200" (every * the tick) or "flinch_gpm gpu=N
 * status=off reason=WHY detail=\"...\"". */
void gpm_label(const struct gpu_gpm *g, unsigned index, char *buf, size_t len);

#endif
