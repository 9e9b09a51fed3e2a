/*
 * mark_line.h — one line from the marks FIFO, parsed and validated.
 *
 * Three forms are accepted (README, "The line protocol"):
 *   LABEL\n                        stamped by the recorder when the line arrives
 *   LABEL<TAB>T_MONO_NS\n          stamped by the client: its own CLOCK_MONOTONIC ns
 *   LABEL<TAB>T_MONO_NS<TAB>ATTRS\n stamped, with attributes (below)
 * ATTRS are space-separated key=value tokens, each key at most once:
 *   start=ID | end=ID   this mark opens / closes the range ID (1..40 bytes of
 *                       [A-Za-z0-9._:-], unique among the ranges open in one
 *                       recording; clients use PID.N). Analyze pairs by ID.
 *   tid=N               the writer's thread id (1..19 digits)
 *   domain=NAME         NVTX domain (1..64 bytes, no space or control byte)
 *   category=NAME       NVTX category: its registered name, else its number
 *                       (1..64 bytes, no space or control byte)
 *   payload=NUMBER      NVTX payload: a JSON number (-?int[.frac][e[+-]exp]),
 *                       1..32 bytes, finite as a double; kept as written, so
 *                       a 64-bit integer stays exact
 *   dropped=N           not a mark: the client reports N marks it dropped
 *                       (filter, rate cap, undelivered); the recorder writes
 *                       an EVENT row. Not with start/end.
 *   interrupted=WHY     only with end=: the range was left by an exception
 *                       (the Python helper: exception, keyboard, cancelled;
 *                       1..32 bytes of [A-Za-z0-9._:-]); analyze flags the
 *                       window `interrupted`
 *   early=1             written by the recorder, not by clients (a client's
 *                       is overwritten): a plain mark that arrived before the
 *                       recording's `begin` row, stamped at its arrival
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
    MARK_LINE_NO_LABEL,     /* stamped form with nothing before the tab */
    MARK_LINE_BAD_ATTRS     /* the third field is not valid ATTRS */
};

#define MARK_RANGE_ID_MAX 40
#define MARK_DOMAIN_MAX 64
#define MARK_CATEGORY_MAX 64
#define MARK_PAYLOAD_MAX 32
#define MARK_INTERRUPTED_MAX 32
/* Longest canonical ATTRS text (mark_attrs_format), without the NUL. */
#define MARK_ATTRS_MAX (6 + MARK_RANGE_ID_MAX + 5 + 19 + 8 + MARK_DOMAIN_MAX + 10 + \
                        MARK_CATEGORY_MAX + 9 + MARK_PAYLOAD_MAX + 13 + MARK_INTERRUPTED_MAX + 8)

enum mark_edge { MARK_EDGE_NONE, MARK_EDGE_START, MARK_EDGE_END };

struct mark_attrs {
    enum mark_edge edge;
    char range_id[MARK_RANGE_ID_MAX + 1];   /* "" unless edge */
    int has_tid;
    long long tid;
    char domain[MARK_DOMAIN_MAX + 1];       /* "" : the default domain */
    char category[MARK_CATEGORY_MAX + 1];   /* "" : none */
    int has_payload;
    char payload[MARK_PAYLOAD_MAX + 1];     /* as written (a JSON number) */
    double payload_value;                   /* the same as a double (finite) */
    int has_dropped;
    long long dropped;
    char interrupted[MARK_INTERRUPTED_MAX + 1]; /* "" : the range ended normally */
    int early;                              /* the recorder's early=1 */
};

struct mark_line {
    char label[MARK_LABEL_MAX + 1];
    int has_stamp;          /* client-stamped form */
    int64_t stamp_ns;       /* CLOCK_MONOTONIC ns, when has_stamp */
    int has_attrs;          /* the third field was there */
    struct mark_attrs attrs;
};

/* Parses line[0..len) (without its newline; a trailing '\r' is dropped). */
enum mark_line_status mark_line_parse(const char *line, size_t len, struct mark_line *out);

/* A client's stamp is accepted only within this of the recorder's own
 * CLOCK_MONOTONIC when the line arrives: a day covers any real delay, and
 * everything computed from an accepted stamp (its wall time, its distance
 * to other rows) then stays far from int64_t overflow. */
#define MARK_STAMP_MAX_SKEW_NS (86400LL * 1000000000LL)

/* 1 when stamp_ns is within MARK_STAMP_MAX_SKEW_NS of now_ns (both
 * CLOCK_MONOTONIC ns); 0 for a negative one. Overflow-free for any value. */
int mark_stamp_in_range(int64_t stamp_ns, int64_t now_ns);

/* Parses ATTRS text s[0..len) (the protocol's third field, or a trace's
 * mark_attrs cell). 0, or -1 when malformed (out is then cleared). */
int mark_attrs_parse(const char *s, size_t len, struct mark_attrs *out);

/* The canonical text of the attributes a MARK row keeps (edge and id, tid,
 * domain, category, payload, interrupted, early; never dropped=), e.g. "start=812.4 tid=815
 * domain=vllm category=decode payload=17"; "" when
 * there are none. Returns the length (always < size when size > MARK_ATTRS_MAX). */
size_t mark_attrs_format(const struct mark_attrs *a, char *buf, size_t size);

/* A short phrase for warnings: "label longer than 256 bytes"... */
const char *mark_line_status_str(enum mark_line_status status);

#endif
