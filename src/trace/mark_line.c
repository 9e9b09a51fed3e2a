/*
 * mark_line.c — parses one line read from the marks FIFO (see mark_line.h).
 *
 * This is the only gate between bytes written by any process on the machine
 * and the trace: whatever it accepts ends up in CSV rows, JSON strings and
 * SVG text, so it is strict. It never allocates and never reads outside
 * line[0..len).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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

static int is_id_char(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           c == '.' || c == '_' || c == ':' || c == '-';
}

/* A count or thread id: 1..19 digits (0 allowed), fits in long long. */
static int parse_count(const char *s, size_t len, long long *out)
{
    if (len == 0 || len > 19)
        return -1;
    long long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        if (v > (INT64_MAX - (s[i] - '0')) / 10)
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

/* A name value (domain=, category=): 1..max bytes, no control byte (a
 * space cannot reach here: it separates tokens). */
static int parse_name(const char *v, size_t vlen, size_t max, char *out)
{
    if (out[0] || vlen == 0 || vlen > max)
        return -1;
    for (size_t i = 0; i < vlen; i++)
        if (is_control((unsigned char)v[i]))
            return -1;
    memcpy(out, v, vlen);
    out[vlen] = '\0';
    return 0;
}

static size_t digits(const char *s, size_t i, size_t len)
{
    size_t n = 0;
    while (i + n < len && s[i + n] >= '0' && s[i + n] <= '9')
        n++;
    return n;
}

/* A payload: the JSON number grammar, so that export can write it as it
 * is; at most MARK_PAYLOAD_MAX bytes and finite as a double (1e999 is
 * refused). */
static int parse_payload(const char *v, size_t vlen, struct mark_attrs *out)
{
    if (out->has_payload || vlen == 0 || vlen > MARK_PAYLOAD_MAX)
        return -1;
    size_t i = v[0] == '-', n = digits(v, i, vlen);
    if (n == 0 || (n > 1 && v[i] == '0'))
        return -1;
    i += n;
    if (i < vlen && v[i] == '.') {
        if ((n = digits(v, i + 1, vlen)) == 0)
            return -1;
        i += 1 + n;
    }
    if (i < vlen && (v[i] == 'e' || v[i] == 'E')) {
        i++;
        if (i < vlen && (v[i] == '+' || v[i] == '-'))
            i++;
        if ((n = digits(v, i, vlen)) == 0)
            return -1;
        i += n;
    }
    if (i != vlen)
        return -1;
    memcpy(out->payload, v, vlen);
    out->payload[vlen] = '\0';
    out->payload_value = strtod(out->payload, NULL);
    if (!isfinite(out->payload_value))
        return -1;
    out->has_payload = 1;
    return 0;
}

/* One key=value token into out; -1 when unknown, repeated or malformed. */
static int parse_attr(const char *tok, size_t len, struct mark_attrs *out)
{
    const char *eq = memchr(tok, '=', len);
    if (!eq)
        return -1;
    size_t klen = (size_t)(eq - tok), vlen = len - klen - 1;
    const char *v = eq + 1;
    if ((klen == 5 && memcmp(tok, "start", 5) == 0) || (klen == 3 && memcmp(tok, "end", 3) == 0)) {
        if (out->edge != MARK_EDGE_NONE || vlen == 0 || vlen > MARK_RANGE_ID_MAX)
            return -1;
        for (size_t i = 0; i < vlen; i++)
            if (!is_id_char((unsigned char)v[i]))
                return -1;
        memcpy(out->range_id, v, vlen);
        out->range_id[vlen] = '\0';
        out->edge = klen == 5 ? MARK_EDGE_START : MARK_EDGE_END;
        return 0;
    }
    if (klen == 3 && memcmp(tok, "tid", 3) == 0) {
        if (out->has_tid || parse_count(v, vlen, &out->tid) != 0)
            return -1;
        out->has_tid = 1;
        return 0;
    }
    if (klen == 6 && memcmp(tok, "domain", 6) == 0)
        return parse_name(v, vlen, MARK_DOMAIN_MAX, out->domain);
    if (klen == 8 && memcmp(tok, "category", 8) == 0)
        return parse_name(v, vlen, MARK_CATEGORY_MAX, out->category);
    if (klen == 7 && memcmp(tok, "payload", 7) == 0)
        return parse_payload(v, vlen, out);
    if (klen == 11 && memcmp(tok, "interrupted", 11) == 0) {
        if (out->interrupted[0] || vlen == 0 || vlen > MARK_INTERRUPTED_MAX)
            return -1;
        for (size_t i = 0; i < vlen; i++)
            if (!is_id_char((unsigned char)v[i]))
                return -1;
        memcpy(out->interrupted, v, vlen);
        out->interrupted[vlen] = '\0';
        return 0;
    }
    if (klen == 5 && memcmp(tok, "early", 5) == 0) {   /* only "1": a flag */
        if (out->early || vlen != 1 || v[0] != '1')
            return -1;
        out->early = 1;
        return 0;
    }
    if (klen == 7 && memcmp(tok, "dropped", 7) == 0) {
        if (out->has_dropped || parse_count(v, vlen, &out->dropped) != 0)
            return -1;
        out->has_dropped = 1;
        return 0;
    }
    return -1;
}

/*
 * Tokens are separated by exactly one space (leading/trailing spaces of the
 * field are the caller's); a domain therefore never contains a space. The
 * whole field is rejected on the first bad token: a half-understood range
 * edge would pair wrongly, which is worse than a warning.
 */
int mark_attrs_parse(const char *s, size_t len, struct mark_attrs *out)
{
    memset(out, 0, sizeof *out);
    if (len == 0)
        goto bad;
    size_t i = 0;
    while (i <= len) {
        const char *sp = memchr(s + i, ' ', len - i);
        size_t tlen = sp ? (size_t)(sp - (s + i)) : len - i;
        if (tlen == 0 || parse_attr(s + i, tlen, out) != 0)
            goto bad;
        i += tlen + 1;
        if (!sp)
            break;
    }
    if (out->has_dropped && out->edge != MARK_EDGE_NONE)
        goto bad;
    /* an interruption belongs to a range's end: anywhere else it would be
     * dropped silently by analyze */
    if (out->interrupted[0] && out->edge != MARK_EDGE_END)
        goto bad;
    return 0;
bad:
    memset(out, 0, sizeof *out);
    return -1;
}

size_t mark_attrs_format(const struct mark_attrs *a, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    if (a->edge != MARK_EDGE_NONE)
        n += (size_t)snprintf(buf + n, size - n, "%s=%s", a->edge == MARK_EDGE_START ? "start" : "end",
                              a->range_id);
    if (a->has_tid && n < size)
        n += (size_t)snprintf(buf + n, size - n, "%stid=%lld", n ? " " : "", a->tid);
    if (a->domain[0] && n < size)
        n += (size_t)snprintf(buf + n, size - n, "%sdomain=%s", n ? " " : "", a->domain);
    if (a->category[0] && n < size)
        n += (size_t)snprintf(buf + n, size - n, "%scategory=%s", n ? " " : "", a->category);
    if (a->has_payload && n < size)
        n += (size_t)snprintf(buf + n, size - n, "%spayload=%s", n ? " " : "", a->payload);
    if (a->interrupted[0] && n < size)
        n += (size_t)snprintf(buf + n, size - n, "%sinterrupted=%s", n ? " " : "", a->interrupted);
    if (a->early && n < size)
        n += (size_t)snprintf(buf + n, size - n, "%searly=1", n ? " " : "");
    return n < size ? n : size - 1;
}

/* Clears everything but the status a rejected line reports. */
static enum mark_line_status reject(struct mark_line *out, enum mark_line_status st)
{
    out->label[0] = '\0';
    out->has_stamp = 0;
    out->stamp_ns = 0;
    out->has_attrs = 0;
    memset(&out->attrs, 0, sizeof out->attrs);
    return st;
}

enum mark_line_status mark_line_parse(const char *line, size_t len, struct mark_line *out)
{
    reject(out, MARK_LINE_OK);
    if (len > 0 && line[len - 1] == '\r')
        len--;

    const char *tab = memchr(line, '\t', len);
    size_t label_start = 0;
    size_t label_end = tab ? (size_t)(tab - line) : len;
    strip_spaces(line, &label_start, &label_end);

    if (tab) {
        size_t stamp_start = (size_t)(tab - line) + 1, stamp_end = len;
        const char *tab2 = memchr(line + stamp_start, '\t', len - stamp_start);
        if (tab2)
            stamp_end = (size_t)(tab2 - line);
        strip_spaces(line, &stamp_start, &stamp_end);
        if (parse_stamp(line + stamp_start, stamp_end - stamp_start, &out->stamp_ns) != 0)
            return reject(out, MARK_LINE_BAD_STAMP);
        out->has_stamp = 1;
        if (tab2) {
            size_t a_start = (size_t)(tab2 - line) + 1, a_end = len;
            strip_spaces(line, &a_start, &a_end);
            if (mark_attrs_parse(line + a_start, a_end - a_start, &out->attrs) != 0)
                return reject(out, MARK_LINE_BAD_ATTRS);
            out->has_attrs = 1;
        }
    }

    size_t label_len = label_end - label_start;
    if (label_len == 0)
        return reject(out, tab ? MARK_LINE_NO_LABEL : MARK_LINE_EMPTY);
    if (label_len > MARK_LABEL_MAX)
        return reject(out, MARK_LINE_TOO_LONG);
    for (size_t i = label_start; i < label_end; i++)
        if (is_control((unsigned char)line[i]))
            return reject(out, MARK_LINE_CONTROL_CHAR);
    memcpy(out->label, line + label_start, label_len);
    out->label[label_len] = '\0';
    return MARK_LINE_OK;
}

int mark_stamp_in_range(int64_t stamp_ns, int64_t now_ns)
{
    /* both non-negative, so either difference fits in int64_t */
    if (stamp_ns < 0 || now_ns < 0)
        return 0;
    return stamp_ns >= now_ns ? stamp_ns - now_ns <= MARK_STAMP_MAX_SKEW_NS
                              : now_ns - stamp_ns <= MARK_STAMP_MAX_SKEW_NS;
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
    case MARK_LINE_BAD_ATTRS:    return "attributes after the second tab are not start=ID, end=ID, "
                                        "tid=N, domain=NAME, category=NAME, payload=NUMBER, interrupted=WHY "
                                        "(with end=) or dropped=N";
    }
    return "unknown mark line status";
}
