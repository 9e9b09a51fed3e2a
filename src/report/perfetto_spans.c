/* perfetto_spans.c — counters held over a span; see perfetto_spans.h. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "num_format.h"
#include "perfetto_export.h"
#include "perfetto_spans.h"

/* Appends the N bytes at S to the event being built at B + *LEN. */
static void put(char *b, size_t *len, const char *s, size_t n)
{
    memcpy(b + *len, s, n);
    *len += n;
}
#define PUT_LIT(b, len, lit) put((b), (len), (lit), sizeof(lit) - 1)

/* One event per counter per sample, so it is built in a buffer and written
 * with one fwrite (fprintf, or an fputs per piece, cost most of export). */
void perfetto_counter(FILE *f, int pid, const char *name, const char *unit, int64_t ts_ns,
                      double v)
{
    char b[512];
    size_t len = 0, nn = strlen(name), nu = strlen(unit);
    if (nn + nu > sizeof b - 160) {   /* never for the counters export writes */
        perfetto_event_start(f);
        fprintf(f, "{\"name\":\"%s\",\"ph\":\"C\",\"pid\":%d,\"tid\":0", name, pid);
        perfetto_write_ts(f, "ts", ts_ns);
        fprintf(f, ",\"args\":{\"%s\":", unit);
        perfetto_write_num(f, v);
        fputs("}}", f);
        return;
    }
    /* the counters of one row share its time: its text is kept */
    static int64_t ts_done = INT64_MIN;
    static char ts_text[32];
    static size_t ts_len;
    if (ts_ns != ts_done) {
        ts_len = 0;
        if (ts_ns < 0)
            ts_text[ts_len++] = '-';
        ts_len += num_format_milli(ts_text + ts_len,
                                   ts_ns < 0 ? (uint64_t)0 - (uint64_t)ts_ns : (uint64_t)ts_ns);
        ts_done = ts_ns;
    }
    len = perfetto_event_separator(b);
    PUT_LIT(b, &len, "{\"name\":\"");
    put(b, &len, name, nn);
    PUT_LIT(b, &len, "\",\"ph\":\"C\",\"pid\":");
    len += num_format_i64(b + len, pid);
    PUT_LIT(b, &len, ",\"tid\":0,\"ts\":");
    put(b, &len, ts_text, ts_len);
    PUT_LIT(b, &len, ",\"args\":{\"");
    put(b, &len, unit, nu);
    PUT_LIT(b, &len, "\":");
    if (isfinite(v))                  /* JSON has no NaN or infinity: null */
        len += num_format_g10(b + len, 32, v);
    else
        PUT_LIT(b, &len, "null");
    PUT_LIT(b, &len, "}}");
    fwrite(b, 1, len, f);
}

void perfetto_span_close(FILE *f, int pid, struct held_counter *c)
{
    if (c->open)
        perfetto_counter(f, pid, c->name, c->unit, c->end_ns, c->v);
    c->open = 0;
}

void perfetto_span(FILE *f, int pid, struct held_counter *c, int64_t t0_ns, int64_t t1_ns,
                   double v)
{
    if (t0_ns < 0)
        t0_ns = 0;                   /* measured before the first row */
    if (!isfinite(v) || t0_ns >= t1_ns)
        return;
    /* a span that starts at (or, overlapping, before) the open one's end
     * takes over from there: that end is not written */
    int follows = c->open && t0_ns <= c->end_ns;
    if (!follows)
        perfetto_span_close(f, pid, c);
    if (!follows || v != c->v)
        perfetto_counter(f, pid, c->name, c->unit, t0_ns, v);
    c->open = 1;
    c->end_ns = t1_ns;
    c->v = v;
}
