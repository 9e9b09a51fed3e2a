/*
 * perfetto_export.h — traces as Chrome trace-event JSON, which
 * ui.perfetto.dev and chrome://tracing open.
 *
 * Owns: the JSON document. {"traceEvents":[...],"displayTimeUnit":"ms"}
 * with, per host (hosts.h): one process per GPU named "GPU N (HOST)" with
 * counter tracks ("ph":"C") for power (instant and 1 s average), GPU and
 * memory utilization, SM clock, memory used, temperature and PCIe, and
 * the values held over a span (GPM, the per-process SM split:
 * perfetto_spans.h); one process
 * "host CPU (HOST)" with CPU busy and the traced process's CPU as counters,
 * MARKs as instant events ("ph":"i", "s":"p") on its "marks" thread, EVENT
 * rows on its "events" thread and analyzed windows as complete events
 * ("ph":"X") on its "windows" thread, named "START→END" with verdict and
 * energy in args. Timestamps are microseconds since the earliest row of all
 * traces on the shared timeline, written with 3 decimals (exact: they are
 * integer nanoseconds). A counter is written only when its value changes:
 * trace viewers draw counters as steps, so nothing is lost.
 *
 * Process ids: host h (0-based) is 1000 * (h + 1), its GPU g is
 * 1000 * (h + 1) + 1 + g; never 0.
 */
#ifndef FLINCH_PERFETTO_EXPORT_H
#define FLINCH_PERFETTO_EXPORT_H

#include <stdio.h>

#include "analysis.h"
#include "hosts.h"

/* Open and close the document; every event goes between. */
void perfetto_event_start(FILE *f);   /* the separator before each event */
/* ,"KEY":MICROSECONDS with exactly 3 decimals, from integer nanoseconds. */
void perfetto_write_ts(FILE *f, const char *key, int64_t ns);
/* V as "%.10g", or null where it is NaN or infinite (JSON has neither). */
void perfetto_write_num(FILE *f, double v);
/* A metadata event: what is "process_name" or "thread_name". */
void perfetto_metadata(FILE *f, const char *what, int pid, int tid, const char *name);
/* The traced threads of host H's trace (TRACE.threads, perfetto_threads.c);
 * nothing without that file. 0, or an exit code after the message. */
int perfetto_write_threads(FILE *f, const struct host_trace *hosts, int h, int64_t origin_ns);
/* The traced kernels of host H's trace (TRACE.kernels, perfetto_kernels.c):
 * busy and collective slices per CUDA device; nothing without that file. */
void perfetto_write_kernels(FILE *f, const struct host_trace *hosts, int h, int64_t origin_ns);
void perfetto_begin(FILE *f);
void perfetto_end(FILE *f);

/* Streams host H's trace (HOSTS[h], already measured) into events, with
 * times relative to ORIGIN_NS on the shared timeline. Sets *HAS_START_END
 * when the trace holds both START and END MARK labels (either may be NULL).
 * 0, or an exit code from diag.h with the message printed. */
int perfetto_write_host(FILE *f, const struct host_trace *hosts, int h, int64_t origin_ns,
                        const char *start, const char *end, int *has_start_end,
                        char **labels_seen, int *nlabels_seen);

/* Writes host H's analyzed windows as complete events. */
void perfetto_write_windows(FILE *f, const struct host_trace *hosts, int h, int64_t origin_ns,
                            const struct analysis *a);

#endif
