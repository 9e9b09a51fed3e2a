/*
 * kernels_busy.h — the breakdown's GPU-busy signal from traced kernels
 * (flinch record --cuda, TRACE.kernels; kernels_window.h), and the NVML
 * cross-check that then becomes the sensors' role.
 *
 * Owns: the timeline of one GPU from its kernel spans (busy: the union of
 * its kernels less its collectives; collective: NCCL kernels; idle: the
 * rest), the resolution of its edges, the split of its idle gaps between
 * kernels by the CPU side, and how far NVML's own busy/idle timeline
 * disagrees with it.
 */
#ifndef FLINCH_KERNELS_BUSY_H
#define FLINCH_KERNELS_BUSY_H

#include "breakdown_internal.h"

/* A kernel edge's resolution: CUPTI stamps are ns, but the library and the
 * sampler read CLOCK_MONOTONIC apart and CUPTI's stamps are taken on the
 * GPU's clock, kept to ~1 us of the host's. */
#define KERNELS_EDGE_RES_MS 0.001

/* The timeline over [0, d] ms from t0_ns: ST_BUSY, ST_COLL, ST_IDLE.
 * 0, or -1 when out of memory. */
int kernels_gpu_timeline(const struct kernels_device *kd, double t0_ns, double d, struct timeline *out);

/* Kernels against NVML over [0, d]: the time a kernel ran (or a collective)
 * while NVML's timeline read idle, and the time NVML read busy with no
 * kernel running, into g->kernels_nvml_idle_ms / g->nvml_busy_no_kernels_ms;
 * nvml_res: NVML's edge resolution (ms), the figure the disagreement must
 * pass to be reported (g->nvml_check_ms). */
/* The GPU's idle gaps between kernels (the idle time between its first and
 * last busy stretch in kern) split by what the CPU side did (cpu: the
 * breakdown's CPU timeline): host-cpu where it was busy, else waiting, the
 * waiting part also per segment of the window's breakdown win (the
 * segments the thread states are folded into, waiting_on.h), into out. */
void kernels_gap_split(const struct timeline *kern, const struct timeline *cpu, const struct breakdown *win,
                       double d, struct kernel_gaps *out);

void kernels_nvml_check(const struct timeline *kern, const struct timeline *nvml, double d,
                        double nvml_res, struct window_gpu *g);

#endif
