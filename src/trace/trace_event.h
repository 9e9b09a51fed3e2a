/*
 * trace_event.h — reading the recorder's own EVENT rows.
 *
 * Owns: the syntax of the identity EVENT labels the recorder writes at the
 * start of a recording (src/record/gpu/gpu_identity.h): `KIND key=value ...`,
 * a value holding a space double-quoted (never holding a quote). Readers
 * (analyze, plot, export) take host names, GPU names, UUIDs and modes from
 * them; a label that is not one of these reads as no value.
 */
#ifndef FLINCH_TRACE_EVENT_H
#define FLINCH_TRACE_EVENT_H

#include <stddef.h>

#define EVENT_HOST "flinch_host"
#define EVENT_GPU "flinch_gpu"
#define EVENT_FIELDS "flinch_fields"
#define EVENT_CGROUP_CPU "flinch_cgroup_cpu"   /* src/record/host/cgroup_cpu.h */
#define EVENT_GPM "flinch_gpm"
/* `flinch_proc_util gpu=N why="Not Supported"`: per-process GPU use was not
 * recorded on GPU N (gpu_proc_util.h), and why. */
#define EVENT_PROC_UTIL "flinch_proc_util"

/* True when LABEL's first word is KIND. */
int trace_event_is(const char *label, const char *kind);

/* The value of KEY in LABEL, copied to OUT (truncated to LEN - 1 bytes).
 * 0 when found, -1 when not. */
int trace_event_value(const char *label, const char *key, char *out, size_t len);

#endif
