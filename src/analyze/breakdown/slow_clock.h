/*
 * slow_clock.h — compute at a slow SM clock, named (issue 21 §3).
 *
 * Owns: how long a GPU computed while its SM clock read below half of its
 * maximum (the recorder's flinch_gpu row, max_sm_clock_MHz), whether that
 * was the first request after idle (the clock ramping up from its idle
 * level), and the evidence clause that says so: "clocks below half of max
 * for 155 ms (+-25 ms): the first request after idle". The clock decides
 * nothing in the breakdown (breakdown_gpu.c: a ramping clock is compute,
 * never waiting); it only says how fast the compute ran.
 *
 * The SM clock is read every ~50 ms (the medium group), so the time is
 * known to the clock's sampling: each reading stands for the time from the
 * midpoint with its predecessor to the midpoint with its successor, and
 * the slow readings' stretches are intersected with the GPU's compute
 * (ST_BUSY) in the window. A stretch no longer than half the widest gap
 * between readings (the resolution) cannot be told from a clock that
 * jumped between two readings (the idle reading just before compute, an
 * idle one just after it) and is not counted. Without a maximum (an older
 * trace, a driver that cannot tell) nothing is said.
 */
#ifndef FLINCH_SLOW_CLOCK_H
#define FLINCH_SLOW_CLOCK_H

#include <stddef.h>

#include "analysis.h"
#include "tape.h"

struct timeline;                /* breakdown_internal.h */

#define SLOW_CLOCK_FRAC 0.5     /* below this fraction of the maximum SM clock is slow */

/* Sets g->slow_clock_ms, _res_ms, _from_ms and _after_idle from one GPU's
 * fused timeline tl over [0, d] ms (from t0 ns) and its samples; NAN (and
 * 0) when g->max_sm_clock_mhz is unknown or no clock was read. every_tick:
 * the window tape's EVERY_TICK_* of this GPU. */
void slow_clock_gpu(const struct timeline *tl, const struct gpu_sample *smp, long n, int every_tick,
                    double t0, double d, struct window_gpu *g);

/* The index into w->gpu of the GPU with the most slow-clock compute, -1
 * when none has any. */
int slow_clock_top(const struct window *w);

/* Appends "; [gpu G ]clocks below half of max for N ms (+-R ms)[: the
 * first request after idle]" to buf (len used of cap) when a GPU has some;
 * returns the new length. */
size_t slow_clock_evidence(const struct window *w, char *buf, size_t cap, size_t len);

/* The same onto w->evidence, last (after the clauses of every other
 * stage: a long evidence loses this one, not theirs). */
void slow_clock_evidence_append(struct window *w);

#endif
