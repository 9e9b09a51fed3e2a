/*
 * trace_append.h — what the recorder checks in an existing trace before it
 * appends a new recording to it.
 *
 * Owns: the scan of an existing trace (rows, earlier recordings, where its
 * last whole row ends, NUL bytes a crash or power loss left, whether its
 * clock is ahead of this boot's) and the phrase that explains a header
 * that differs from the one this flinch writes (the original tracer's, an
 * older flinch's, other RAPL domains). csv_writer acts on the result: it
 * cuts a partial last row away, refuses a file with NUL bytes or another
 * header, and the recorder says what it appends to.
 */
#ifndef FLINCH_TRACE_APPEND_H
#define FLINCH_TRACE_APPEND_H

#include <stdint.h>
#include <sys/types.h>

struct trace_scan {
    long long rows;          /* whole rows after the header */
    long long recordings;    /* `begin` rows the recorder wrote (empty arrival_mono_ns) */
    off_t whole_end;         /* end of the last whole row (its '\n' included) */
    off_t nul_at;            /* offset of the first NUL byte, or -1 */
    long long nul_line;      /* its line number (1 = header) */
    int64_t last_mono_ns;    /* t_mono_ns of the last whole row, or -1 */
};

/* Reads the whole file (fd, size bytes) once. arrival_col: index of
 * arrival_mono_ns in its header. Returns 0, or -1 with errno on a read
 * error. */
int trace_scan_file(int fd, off_t size, int arrival_col, struct trace_scan *s);

/* Why header `found` (the existing file's first line, without newline) is
 * not `want` (without newline): a short phrase for the refusal message. */
const char *trace_header_mismatch(const char *found, const char *want);

/* "5,812" — n with thousands separators, into buf. */
const char *trace_fmt_count(long long n, char *buf, size_t cap);

#endif
