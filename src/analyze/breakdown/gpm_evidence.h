/*
 * gpm_evidence.h — GPM metrics (SM activity, SM occupancy, tensor activity,
 * DRAM bandwidth; Hopper and newer) as evidence for a window.
 *
 * Owns: which of the recorder's GPM spans (gpu_gpm_span_ns ending at a row,
 * ~200 ms each) a window holds whole, their span-weighted means, and
 * whether they are enough to speak for the window: at least GPM_MIN_SPANS
 * whole spans, else the window is "too coarse" for GPM. SM activity says
 * what share of the SMs had work, where utilization only says a kernel was
 * running; it enters the breakdown (breakdown.c, the SM-activity signal)
 * only for windows that hold enough spans: a span that straddles a window
 * edge describes time outside it. The reason a trace has no GPM at all
 * comes from its flinch_gpm EVENT rows (struct gpu_ident).
 */
#ifndef FLINCH_GPM_EVIDENCE_H
#define FLINCH_GPM_EVIDENCE_H

#include "analysis.h"

#define GPM_MIN_SPANS 2

/* Fills every w->gpu[i].gpm from w->tape (before breakdown_window, which
 * uses a GPU's SM activity only where its evidence is GPM_OK). */
void gpm_window(struct window *w);

/* Appends the GPM evidence to w->evidence (after verdict_window):
 * "; SM active 90% (GPM, 3 spans)" or "; GPM too coarse for this window". */
void gpm_evidence_append(struct window *w);

/* "ok", "too_coarse", "absent". */
const char *gpm_status_name(enum gpm_status s);

/* Why the trace has no GPM for GPU gpu (its flinch_gpm row's reason), or
 * "not recorded" (no such row: an older recorder, or a trace from
 * elsewhere). */
const char *gpm_absent_reason(const struct analysis *a, int host, int gpu);

#endif
