/*
 * perfetto_spans.h — counters whose value holds over a span the trace
 * states, for `flinch export`: GPM metrics (gpu_sm_active_pct ...,
 * over gpu_gpm_span_ns ending at their row) and the per-process SM split
 * (gpu_proc_sm_pct, gpu_other_sm_pct, over the span proc_share.c places
 * them on).
 *
 * Owns: writing such a value where it belongs in time. Trace viewers draw
 * a counter as a step held until its next event, so a span's value is
 * written at the span's start (which lies before the row that carries it:
 * the events are not in time order, and viewers sort them), and again at
 * its end only where no span follows at once (a gap, the last span): the
 * step then ends where the measurement ended. A span that directly follows
 * one with the same value writes nothing (counters only on change). A span
 * that began before the export's origin (the first GPM span, from the
 * sample taken before the recorder's first row; the first per-process
 * reading, over the second before it) is written from the origin, 0: the
 * timeline starts at the earliest row.
 */
#ifndef FLINCH_PERFETTO_SPANS_H
#define FLINCH_PERFETTO_SPANS_H

#include <stdint.h>
#include <stdio.h>

struct held_counter {
    const char *name, *unit;   /* event name, arg key */
    int open;                  /* a span was written and its end not yet */
    int64_t end_ns;            /* that span's end on the export timeline */
    double v;                  /* and its value */
};

/* A ("ph":"C") counter event; NAME and UNIT are plain ASCII constants. */
void perfetto_counter(FILE *f, int pid, const char *name, const char *unit, int64_t ts_ns,
                      double v);
/* The value V over [T0_NS, T1_NS] (export timeline; T0_NS < 0 taken as 0);
 * ignored unless finite and T0_NS < T1_NS. */
void perfetto_span(FILE *f, int pid, struct held_counter *c, int64_t t0_ns, int64_t t1_ns,
                   double v);
/* At the end of the trace: the open span's end. */
void perfetto_span_close(FILE *f, int pid, struct held_counter *c);

#endif
