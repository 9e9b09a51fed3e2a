/*
 * verdict.h — was the GPU computing, or was everything waiting?
 *
 * Owns: the idle and busy power levels (from a histogram of the trace's
 * power readings, the enforced power limit, or the user), the rules that
 * turn a window's numbers into compute / waiting / host-cpu / mixed /
 * inconclusive, the evidence text, and the uncertainty of a window's energy.
 * The rules and thresholds are documented in README ("flinch analyze").
 */
#ifndef FLINCH_VERDICT_H
#define FLINCH_VERDICT_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"

#define POWER_HIST_BINS 8192          /* 0.5 W bins: 0 .. 4096 W */

struct power_hist {
    uint32_t bin[POWER_HIST_BINS];
    long n;
};

void power_hist_add(struct power_hist *h, double watts);
/* The p-th percentile (0..100) in W, NAN when empty. */
double power_hist_percentile(const struct power_hist *h, double p);

/* A sample whose utilization is at most this (or unknown) may show the
 * GPU idle; the idle level is taken from those only. */
#define VERDICT_QUIET_UTIL_PCT 5

/* Idle and busy levels of one GPU from its histogram of every sample, the
 * histogram of its quiet samples (VERDICT_QUIET_UTIL_PCT; NULL: every
 * sample counts) and its power limit (NAN if unknown). Writes where they
 * came from into *origin. */
void verdict_levels(const struct power_hist *h, const struct power_hist *quiet,
                    double power_limit_w, double *idle_w, double *busy_w, const char **origin);

/* Uncertainty of a window GPU's energy; uses source, counter step, max gap,
 * levels and duration. */
double energy_uncertainty_j(const struct window_gpu *g, double duration_s);

/* Decides w->verdict and writes w->evidence (without the "verdict=" part). */
void verdict_window(const struct analysis_options *o, struct window *w);

/* The parts of a breakdown in order, without their ms or the edges:
 * "41% waiting, then 59% compute" (the answer line); "" without one. */
size_t verdict_parts_text(const struct breakdown *bd, double dur_ms, char *buf, size_t cap);

/* The verdict over all windows: a->verdict and a->evidence. */
void verdict_summary(const struct analysis_options *o, struct analysis *a);

/* Names of the clock-event reason bits worth reporting, NULL for others. */
const char *clock_reason_name(int bit);

#endif
