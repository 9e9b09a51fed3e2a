/* perfetto_spans.c — counters held over a span; see perfetto_spans.h. */
#include <math.h>

#include "perfetto_export.h"
#include "perfetto_spans.h"

void perfetto_counter(FILE *f, int pid, const char *name, const char *unit, int64_t ts_ns,
                      double v)
{
    perfetto_event_start(f);
    fprintf(f, "{\"name\":\"%s\",\"ph\":\"C\",\"pid\":%d,\"tid\":0", name, pid);
    perfetto_write_ts(f, "ts", ts_ns);
    fprintf(f, ",\"args\":{\"%s\":", unit);
    if (isfinite(v))
        fprintf(f, "%.10g", v);
    else
        fputs("null", f);            /* JSON has no NaN or infinity */
    fputs("}}", f);
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
