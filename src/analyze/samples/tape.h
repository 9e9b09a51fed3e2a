/*
 * tape.h — the recent samples of one stream (a GPU, or the host), and the
 * index ranges into them that a window keeps until its breakdown is made.
 *
 * Owns: what breakdown.c needs per sample and nothing more. The integrators
 * keep cumulative values for exact energy; the breakdown needs the readings
 * themselves (instantaneous power, utilization, the GpuIdle reason bit, SM
 * clock, the process tree's CPU clock) because it decides "busy or idle"
 * instant by instant against levels that are known only at the end of the
 * trace. A tape keeps at least the last ring_samples samples (as far back as
 * a late mark can reach) and everything since the oldest open window's
 * start; when a window's edges are resolved, the range of its samples plus
 * one on each side is noted in its window_samples, and the stream's
 * sample_store keeps them (once, however many windows share them) until
 * the window's breakdown decodes them into a window_tape.
 */
#ifndef FLINCH_TAPE_H
#define FLINCH_TAPE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "sample_store.h"
#include "trace_limits.h"

#define TAPE_MAX_GPUS TRACE_MAX_GPUS   /* one limit: trace_limits.h */

/* Every field NAN when the trace lacks it; idle_bit -1 when unknown. */
struct gpu_sample {
    int64_t t;
    float power_instant_w, power_average_w, util_pct, sm_clock_mhz;
    float sm_active_pct;       /* GPM SM activity over the span ending at t (see breakdown.c) */
    float sm_occupancy_pct, tensor_pct, dram_bw_pct; /* GPM, same span */
    float gpm_span_ms;         /* that span's length; NAN on rows without GPM values */
    double pcie_bytes;         /* PCIe TX + RX so far, continuous (pcie_counter.h) */
    double energy_mj;          /* the energy counter as read (gpu_energy_mJ), NAN when none */
    signed char idle_bit;      /* clock-event reason GpuIdle (0x1) */
    unsigned char medium_fresh; /* utilization, SM clock and reasons were read at this tick */
};

struct host_sample {
    int64_t t;
    double proc_cpu_s;         /* the traced tree's CPU time (proc_tree_cpu_ns, else proc_cpu_ns) */
    double runq_s;             /* its run-queue delay (proc_tree_runq_ns); NAN on rows without */
    float host_cpu_pct;        /* over the interval before t */
    float top_thread_cores;    /* over the interval before t */
    short top_thread;          /* index into the analysis' thread names, -1 if none */
};

/* The samples a window edge can still reach: [first, first + n) of the
 * stream's samples, held in store with those that windows captured still
 * need. n and cap follow the growth and trimming rules of the array these
 * samples once had to themselves (tape_push), because a window's range
 * depends on which samples were still there when its edges were resolved. */
/* The times of a tape's newest samples, kept apart from the store: a
 * window's range is found by searches near the tape's end, and each probe
 * through the store read a block entry and a packed block (~3 ms of CPU
 * with 10,000 windows); here it reads one word of an array in cache. */
#define TAPE_RECENT 1024               /* a power of two */

struct tape {
    struct sample_store store;
    long first, n, cap;
    int64_t *recent;                   /* sample i's time at i % TAPE_RECENT, for the last
                                          TAPE_RECENT pushed; NULL when out of memory */
    int64_t last_t;                    /* the last element's time */
    long disorder_at;                  /* the last element earlier than the one before
                                          it (0: none): from it on times only go forward */
};

void tape_init_gpu(struct tape *t);     /* struct gpu_sample */
void tape_init_host(struct tape *t);    /* struct host_sample */
void tape_free(struct tape *t);
/* Appends a copy of *e. When full, first drops the elements before
 * keep_from_t (keeping at least keep_last). -1 when out of memory. */
int tape_push(struct tape *t, const void *e, int64_t keep_from_t, long keep_last);
/* The time of the last element; INT64_MIN when none. */
int64_t tape_last_time(const struct tape *t);
/* The range from the last element at or before t0 to the first one at or
 * after t1 (as many as there are); *n = 0 when none. */
void tape_slice(const struct tape *t, int64_t t0, int64_t t1, long *first, long *n);

/* Medium readings a recorder (an older one, or utilization today) reads
 * on every row rather than every ~50 ms. */
/* What a window's GPU tape holds beyond its edges (analysis_tape.c). */
#define TAPE_MARGIN_NS 250000000LL
#define EVERY_TICK_UTIL 0x1
#define EVERY_TICK_REASONS 0x2
#define EVERY_TICK_CLOCK 0x4

/* What breakdown.c reads: the window's samples, decoded just before its
 * breakdown into the analysis' scratch arrays (analysis_tape.c). */
struct window_tape {
    int ngpu;
    int gpu_id[TAPE_MAX_GPUS];
    struct gpu_sample *gpu[TAPE_MAX_GPUS];
    long ngpu_samples[TAPE_MAX_GPUS];
    int medium_every_tick[TAPE_MAX_GPUS];  /* EVERY_TICK_*: which of those are fresh on every row */
    int idle_bit_live[TAPE_MAX_GPUS];      /* GpuIdle was seen both set and clear in the trace */
    struct host_sample *host;
    long nhost;
};

/* What a window keeps until its breakdown: where its samples lie in the
 * stream tapes (each range pins its store, sample_store.h), one entry per
 * GPU stream of the trace when its edges were resolved. */
struct window_sample_range {
    int gpu_id;
    int medium_every_tick;                 /* as it stood then */
    long first, n;
};
struct window_samples {
    long host_first, nhost;
    int ngpu;
    struct window_sample_range gpu[];
};

/* One stream's decoded samples [from, to) (whole blocks but at the
 * stream's end), kept from window to window: the windows come in order of
 * their start, and one's samples (with its margin) begin where the last
 * one's end, so each block is decoded once rather than once per window
 * that reaches it, with the samples before a range's first in its first
 * block decoded only to be passed over (a third of the decoding, by
 * callgrind, with a window every second). */
struct decoded_run {
    void *buf;
    long cap, from, to;
};

/* The decode buffers for one window at a time, reused. */
struct tape_scratch {
    struct window_tape wt;
    struct decoded_run gpu[TAPE_MAX_GPUS];
    struct decoded_run host;
};

void tape_scratch_free(struct tape_scratch *sc);

#endif
