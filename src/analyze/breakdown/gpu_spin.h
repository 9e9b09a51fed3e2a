/*
 * gpu_spin.h — a GPU that spins is waiting: utilization says a kernel ran
 * the whole time, but the SMs did nothing and memory moved nothing.
 *
 * Owns: the rule that turns busy stretches of one GPU's fused timeline into
 * ST_SPIN (breakdown_internal.h), from the GPM spans that lie whole inside
 * the window. Utilization counts a kernel resident on the GPU, whatever it
 * does; a collective (NCCL all-reduce) waiting for a late peer, or any
 * busy-wait kernel, keeps one resident while it polls a flag: utilization
 * 100 %, the SM clock high, power a quarter of the busy range, SM activity a
 * few percent, DRAM bandwidth near zero. Memory-bound decode is the case to
 * keep apart: it too runs at moderate power, but its SMs are busy and its
 * DRAM bandwidth high. So a span is a spin when utilization >= 90 %, SM
 * activity <= 10 % and DRAM bandwidth <= 10 %; a busy stretch whose whole
 * GPM spans are all spins is a spin (one span that is not keeps it compute:
 * part of it computed, and GPM cannot say which part).
 */
#ifndef FLINCH_GPU_SPIN_H
#define FLINCH_GPU_SPIN_H

#include "breakdown_internal.h"
#include "tape.h"

#define SPIN_UTIL_PCT 90.0           /* at least: a kernel resident all the time */
#define SPIN_SM_ACTIVE_PCT 10.0      /* at most: the SMs did (almost) nothing */
#define SPIN_DRAM_BW_PCT 10.0        /* at most: nor did memory (decode moves a lot) */

/* Turns the stretches of tl (one GPU over [0, d] ms from t0 ns) that the
 * GPM spans whole inside [0, d] show spinning into ST_SPIN (an idle one
 * too: SM activity may have outvoted utilization there). Utilization is
 * read util_lag_ms later than the span it describes (its period). 0, or
 * -1 when out of memory (tl unchanged). */
int gpu_spin_mark(const struct gpu_sample *smp, long n, double t0, double d, double util_lag_ms,
                  struct timeline *tl);

/* "gpu-spin" */
extern const char gpu_spin_reason[];

#endif
