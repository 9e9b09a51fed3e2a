/*
 * mark_line.h — one line from the marks FIFO, parsed and validated.
 *
 * Two forms are accepted (README, "flinch mark"):
 *   LABEL\n                 stamped by the recorder when the line arrives
 *   LABEL<TAB>T_MONO_NS\n   stamped by the client: its own CLOCK_MONOTONIC ns
 * Leading and trailing spaces around LABEL are dropped, as the original
 * tracer's str.strip() did. A label is 1..MARK_LABEL_MAX bytes with no
 * control characters (bytes < 0x20 or 0x7f); anything else is rejected so it
 * can never corrupt a CSV row, a JSON string or an SVG text node.
 */
#ifndef FLINCH_MARK_LINE_H
#define FLINCH_MARK_LINE_H

#include <stddef.h>
#include <stdint.h>

#include "trace_schema.h"

enum mark_line_status {
    MARK_LINE_OK,
    MARK_LINE_EMPTY,        /* blank line: ignored silently */
    MARK_LINE_TOO_LONG,     /* label over MARK_LABEL_MAX bytes */
    MARK_LINE_CONTROL_CHAR, /* control character inside the label */
    MARK_LINE_BAD_STAMP,    /* text after the tab is not a positive integer */
    MARK_LINE_NO_LABEL      /* stamped form with nothing before the tab */
};

struct mark_line {
    char label[MARK_LABEL_MAX + 1];
    int has_stamp;          /* client-stamped form */
    int64_t stamp_ns;       /* CLOCK_MONOTONIC ns, when has_stamp */
};

/* Parses line[0..len) (without its newline; a trailing '\r' is dropped). */
enum mark_line_status mark_line_parse(const char *line, size_t len, struct mark_line *out);

/* A client's stamp is accepted only within this of the recorder's own
 * CLOCK_MONOTONIC when the line arrives: a day covers any real delay, and
 * everything computed from an accepted stamp (its wall time, its distance
 * to other rows) then stays far from int64_t overflow. */
#define MARK_STAMP_MAX_SKEW_NS (86400LL * 1000000000LL)

/* 1 when stamp_ns is within MARK_STAMP_MAX_SKEW_NS of now_ns (both
 * CLOCK_MONOTONIC ns, now_ns >= 0); overflow-free for any stamp. */
int mark_stamp_in_range(int64_t stamp_ns, int64_t now_ns);

/* A short phrase for warnings: "label longer than 256 bytes"... */
const char *mark_line_status_str(enum mark_line_status status);

#endif
