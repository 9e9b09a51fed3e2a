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

/* The host process's threads, and the pids above. */
#define TID_COUNTERS 0
#define TID_MARKS 1
#define TID_WINDOWS 2
#define TID_EVENTS 3
static inline int perfetto_host_pid(int h) { return 1000 * (h + 1); }
/* GPU N of host h is pid 1000 (h+1) + 1 + N, as always, for N <= 998; the
 * rare higher index (up to TRACE_MAX_GPU_INDEX) gets a pid above every
 * host's range instead of colliding with the next host. */
static inline int perfetto_gpu_pid(int h, int gpu)
{
    return gpu <= 998 ? 1000 * (h + 1) + 1 + gpu : 1000000 + 1024 * h + gpu;
}

/* Open and close the document; every event goes between. */
void perfetto_event_start(FILE *f);   /* the separator before each event */
/* The same separator into B (2 bytes at most) instead: its length. */
size_t perfetto_event_separator(char *b);
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

/* Writes host H's analyzed windows as complete events. */
void perfetto_write_windows(FILE *f, const struct host_trace *hosts, int h, int64_t origin_ns,
                            const struct analysis *a);

#endif
