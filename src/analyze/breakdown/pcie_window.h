/*
 * pcie_window.h — a window's host<->GPU traffic and the waiting it explains.
 *
 * Owns: the window's PCIe byte counts (from the continuous counts of
 * pcie_counter.h, differenced at the marks like the energy), which of its
 * waiting time was spent moving data over PCIe (TX + RX at or above
 * --copy-gbps over a waiting segment: "waiting on host<->GPU copies"), and
 * the words the verdict's evidence gets for it. The counters are read every
 * tick and are linear in between, so a segment's bytes are good to a tick at
 * each edge; a pause shorter than a tick cannot be told from its neighbours.
 */
#ifndef FLINCH_PCIE_WINDOW_H
#define FLINCH_PCIE_WINDOW_H

#include "analysis.h"

struct gpu_stream;
struct point;

/* Traffic of one GPU between two resolved edges (tx, rx, notes); the copy
 * numbers come later from pcie_window_copies. */
void pcie_window_gpu(const struct analysis *a, const struct gpu_stream *gs, struct window_gpu *g,
                     const struct point *ps, const struct point *pe);

/* From w->tape and the breakdowns (after breakdown_window): each GPU's and
 * the window's copy_ms / copy_bytes / waiting_bytes, and the window's sums. */
void pcie_window_copies(const struct analysis_options *o, struct window *w);

/* After verdict_window: a waiting window whose waiting was mostly copying
 * says so first in its evidence; some copying is appended. */
void pcie_window_evidence(const struct analysis_options *o, struct window *w);

#endif
