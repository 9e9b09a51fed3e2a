/*
 * mark_line.c — parses one line read from the marks FIFO (see mark_line.h).
 *
 * This is the only gate between bytes written by any process on the machine
 * and the trace: whatever it accepts ends up in CSV rows, JSON strings and
 * SVG text, so it is strict. It never allocates and never reads outside
 * line[0..len).
 */
#include <string.h>

#include "mark_line.h"

static int is_control(unsigned char c) { return c < 0x20 || c == 0x7f; }

/* Narrows [*start, *end) past leading and trailing ' ' bytes. */
static void strip_spaces(const char *s, size_t *start, size_t *end)
{
    while (*start < *end && s[*start] == ' ')
        (*start)++;
    while (*end > *start && s[*end - 1] == ' ')
        (*end)--;
}

/*
 * A stamp is 1..19 decimal digits, no sign, whose value fits in int64_t and
 * is not zero (CLOCK_MONOTONIC is never 0 on a running system; a 0 is
 * almost certainly a client that forgot to fill it in).
 */
static int parse_stamp(const char *s, size_t len, int64_t *out)
{
    const int64_t max = INT64_MAX;
    int64_t v = 0;

    if (len == 0)
        return -1;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < '0' || c > '9')
            return -1;
        int digit = c - '0';
        if (v > (max - digit) / 10)
            return -1;              /* overflow */
        v = v * 10 + digit;
    }
    if (v == 0)
        return -1;
    *out = v;
    return 0;
}

enum mark_line_status mark_line_parse(const char *line, size_t len, struct mark_line *out)
{
    out->label[0] = '\0';
    out->has_stamp = 0;
    out->stamp_ns = 0;

    if (len > 0 && line[len - 1] == '\r')
        len--;

    const char *tab = memchr(line, '\t', len);
    size_t label_start = 0;
    size_t label_end = tab ? (size_t)(tab - line) : len;
    strip_spaces(line, &label_start, &label_end);

    if (tab) {
        size_t stamp_start = (size_t)(tab - line) + 1, stamp_end = len;
        strip_spaces(line, &stamp_start, &stamp_end);
        if (parse_stamp(line + stamp_start, stamp_end - stamp_start, &out->stamp_ns) != 0) {
            out->stamp_ns = 0;
            return MARK_LINE_BAD_STAMP;
        }
        out->has_stamp = 1;
    }

    size_t label_len = label_end - label_start;
    if (label_len == 0) {
        out->has_stamp = 0;
        out->stamp_ns = 0;
        return tab ? MARK_LINE_NO_LABEL : MARK_LINE_EMPTY;
    }
    if (label_len > MARK_LABEL_MAX) {
        out->has_stamp = 0;
        out->stamp_ns = 0;
        return MARK_LINE_TOO_LONG;
    }
    for (size_t i = label_start; i < label_end; i++) {
        if (is_control((unsigned char)line[i])) {
            out->has_stamp = 0;
            out->stamp_ns = 0;
            return MARK_LINE_CONTROL_CHAR;
        }
    }
    memcpy(out->label, line + label_start, label_len);
    out->label[label_len] = '\0';
    return MARK_LINE_OK;
}

int mark_stamp_in_range(int64_t stamp_ns, int64_t now_ns)
{
    /* now_ns is far below INT64_MAX - skew (292 years of uptime), and
     * subtracting from a non-negative now cannot overflow */
    if (stamp_ns < 0 || now_ns < 0)
        return 0;
    return stamp_ns <= now_ns + MARK_STAMP_MAX_SKEW_NS && now_ns - stamp_ns <= MARK_STAMP_MAX_SKEW_NS;
}

const char *mark_line_status_str(enum mark_line_status status)
{
    switch (status) {
    case MARK_LINE_OK:           return "ok";
    case MARK_LINE_EMPTY:        return "empty line";
    case MARK_LINE_TOO_LONG:     return "label longer than 256 bytes";
    case MARK_LINE_CONTROL_CHAR: return "control character in label";
    case MARK_LINE_BAD_STAMP:    return "timestamp after the tab is not a positive integer of ns";
    case MARK_LINE_NO_LABEL:     return "empty label before the tab";
    }
    return "unknown mark line status";
}
