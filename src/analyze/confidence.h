/*
 * confidence.h — how far a window's answer can be trusted: high, medium or
 * low, and what lowers it.
 *
 * Owns: the stage after the verdict (and the evidence stages that follow it)
 * that grades each window from what the analysis already computed: the
 * breakdown's edge resolution against the window and each of its parts,
 * and the fallbacks, faults and flags that touched the window. It adds no
 * measurement. The thresholds are documented in README ("Confidence").
 */
#ifndef FLINCH_CONFIDENCE_H
#define FLINCH_CONFIDENCE_H

#include "analysis.h"

/* Edge resolution as a fraction of the window and of its shortest part. */
#define CONFIDENCE_HIGH_FRAC 0.05
#define CONFIDENCE_MEDIUM_FRAC 0.20

/* Sets w->confidence and w->confidence_reason ("" when nothing lowers it;
 * the inconclusive verdict's reason when it is inconclusive). */
void confidence_window(struct window *w);

/* "high", "medium", "low", "none" (inconclusive). */
const char *confidence_name(enum confidence c);

#endif
