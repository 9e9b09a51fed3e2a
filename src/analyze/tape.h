/*
 * tape.h — the recent samples of one stream (a GPU, or the host) in compact
 * form, and the copy of them that a window keeps until its breakdown is made.
 *
 * Owns: what breakdown.c needs per sample and nothing more. The integrators
 * keep cumulative values for exact energy; the breakdown needs the readings
 * themselves (instantaneous power, utilization, the GpuIdle reason bit, SM
 * clock, the process tree's CPU clock) because it decides "busy or idle"
 * instant by instant against levels that are known only at the end of the
 * trace. A tape keeps at least the last ring_samples samples (as far back as
 * a late mark can reach) and everything since the oldest open window's
 * start; when a window's edges are resolved, its samples plus one on each
 * side are copied into its window_tape.
 */
#ifndef FLINCH_TAPE_H
#define FLINCH_TAPE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
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

/* Elements [head, n) of buf are live; every element starts with its int64_t t. */
struct tape {
    unsigned char *buf;
    size_t el;
    long head, n, cap;
};

void tape_init(struct tape *t, size_t el);
void tape_free(struct tape *t);
/* Appends a copy of *e. When full, first drops the elements before
 * keep_from_t (keeping at least keep_last). -1 when out of memory. */
int tape_push(struct tape *t, const void *e, int64_t keep_from_t, long keep_last);
/* Time of the element keep_last from the end (the oldest a late mark can
 * still reach), INT64_MIN when the tape holds fewer. */
int64_t tape_time_back(const struct tape *t, long keep_last);
/* A malloc'ed copy of the elements from the last one at or before t0 to the
 * first one at or after t1 (as many as there are). *n = 0 and NULL when
 * none; -1 when out of memory. */
int tape_slice(const struct tape *t, int64_t t0, int64_t t1, void **out, long *n);

/* Medium readings a recorder (an older one, or utilization today) reads
 * on every row rather than every ~50 ms. */
/* What a window's GPU tape holds beyond its edges (analysis_tape.c). */
#define TAPE_MARGIN_NS 250000000LL
#define EVERY_TICK_UTIL 0x1
#define EVERY_TICK_REASONS 0x2
#define EVERY_TICK_CLOCK 0x4

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

void window_tape_free(struct window_tape *wt);

#endif
