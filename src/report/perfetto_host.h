/*
 * perfetto_host.h — one host's trace rows as perfetto_export.h's events,
 * fed one row at a time (the caller reads the trace, once, for this and
 * for the windows' analysis and clock measure: perfetto_pass.h).
 *
 *   p = perfetto_host_begin(f, hosts, h, origin, start, end, seen, &nseen);
 *   per row: perfetto_host_row(p, &row);
 *   rc = perfetto_host_end(p, reader_ok, &has_start_end);
 */
#ifndef FLINCH_PERFETTO_HOST_H
#define FLINCH_PERFETTO_HOST_H

#include <stdint.h>
#include <stdio.h>

#include "hosts.h"
#include "trace_reader.h"

struct perfetto_host;

/* Writes host H's metadata (its process and threads), with times to come
 * relative to ORIGIN_NS on the shared timeline. START and END (either may
 * be NULL): the window labels looked for; LABELS_SEEN (may be NULL)
 * gathers the MARK labels. NULL when out of memory (nothing written). */
struct perfetto_host *perfetto_host_begin(FILE *f, const struct host_trace *hosts, int h,
                                          int64_t origin_ns, const char *start, const char *end,
                                          char **labels_seen, int *nlabels_seen);
/* One row's events. After an error (a GPU past the limits, no memory) the
 * rows are ignored; the error is said by perfetto_host_end. */
void perfetto_host_row(struct perfetto_host *p, const struct trace_row *row);
/* After the last row. READER_OK: 0 when the reader failed (its message
 * is the caller's, and stands for any error here). Writes the open spans'
 * ends, sets *HAS_START_END when the trace held both labels, frees P. 0,
 * or an exit code with the message printed. */
int perfetto_host_end(struct perfetto_host *p, int reader_ok, int *has_start_end);

#endif
