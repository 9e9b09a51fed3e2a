/*
 * trace_tail.h — a guess at a trace's latest time from its last lines,
 * without reading the rest.
 *
 * Owns: reading the end of an open trace (pread: the reader's position is
 * kept) for the largest t_mono_ns among its last complete lines. A guess
 * only: it ignores quoted lines, the reader's shift of a recording whose
 * clock restarted, and any earlier row that is later. The caller checks
 * it against the rows read (plot draws its range in one pass when the
 * guess holds, and reads again when it does not).
 */
#ifndef FLINCH_TRACE_TAIL_H
#define FLINCH_TRACE_TAIL_H

#include <stdint.h>

#include "trace_reader.h"

/* 0 with *OUT set, or -1 when no line at the end gives a time (not a
 * seekable file, quotes, no number). */
int trace_tail_max_t_mono(const struct trace_reader *tr, int64_t *out);

#endif
