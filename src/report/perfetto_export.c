/* perfetto_export.c — see perfetto_export.h. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "breakdown.h"
#include "diag.h"
#include "json_escape.h"
#include "labels_seen.h"
#include "num_format.h"
#include "perfetto_export.h"
#include "pcie_rate.h"
#include "proc_rate.h"
#include "proc_share.h"
#include "slow_clock.h"
#include "trace_event.h"
#include "trace_limits.h"
#include "trace_reader.h"

/* One comma before every event but the first of the document. */
static int events_written;

void perfetto_event_start(FILE *f)
{
    fputs(events_written++ ? ",\n" : "\n", f);
}

size_t perfetto_event_separator(char *b)
{
    if (!events_written++) {
        b[0] = '\n';
        return 1;
    }
    b[0] = ',';
    b[1] = '\n';
    return 2;
}

void perfetto_begin(FILE *f)
{
    events_written = 0;
    fputs("{\"traceEvents\":[", f);
}

void perfetto_end(FILE *f)
{
    fputs("\n],\"displayTimeUnit\":\"ms\"}\n", f);
}

/* Microseconds with exactly 3 decimals, from integer nanoseconds (a few
 * per sample: num_format, not fprintf). */
void perfetto_write_ts(FILE *f, const char *key, int64_t ns)
{
    char num[32];
    size_t n = 0;
    if (ns < 0)
        num[n++] = '-';
    n += num_format_milli(num + n, ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns);
    fputs(",\"", f);
    fputs(key, f);
    fputs("\":", f);
    fwrite(num, 1, n, f);
}

void perfetto_write_num(FILE *f, double v)
{
    char num[32];
    if (isfinite(v))
        fwrite(num, 1, num_format_g10(num, sizeof num, v), f);
    else
        fputs("null", f);
}

static void write_num(FILE *f, double v) { perfetto_write_num(f, v); }

void perfetto_metadata(FILE *f, const char *what, int pid, int tid, const char *name)
{
    perfetto_event_start(f);
    fprintf(f, "{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":", what, pid,
            tid);
    json_write_string(f, name);
    fputs("}}", f);
}

/* The window's breakdown as slices nested under it: same track, inside
 * its span, named by class ("compute", "host-cpu", "waiting"); the compute
 * slice where compute at a slow SM clock begins carries slow_clock_ms
 * (slow_clock.h). */
static void write_segments(FILE *f, const struct window *w, int pid, int64_t start_ns)
{
    int slow = slow_clock_top(w);
    for (int k = 0; w->bd.valid && k < w->bd.nseg; k++) {
        const struct segment *sg = &w->bd.seg[k];
        int64_t s0 = (int64_t)llround(sg->start_ms * 1e6), s1 = (int64_t)llround(sg->end_ms * 1e6);
        perfetto_event_start(f);
        fprintf(f, "{\"name\":\"%s\",\"cat\":\"segment\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d",
                time_class_name(sg->cls), pid, TID_WINDOWS);
        perfetto_write_ts(f, "ts", start_ns + s0);
        perfetto_write_ts(f, "dur", s1 - s0);
        fprintf(f, ",\"args\":{\"window\":%ld,\"resolution_ms\":", w->index);
        write_num(f, w->bd.resolution_ms);
        if (sg->reason)
            fprintf(f, ",\"reason\":\"%s\"", sg->reason);
        const struct window_gpu *g = slow >= 0 ? &w->gpu[slow] : NULL;
        if (g && sg->cls == CLASS_COMPUTE && g->slow_clock_from_ms >= sg->start_ms
            && g->slow_clock_from_ms < sg->end_ms) {
            fputs(",\"slow_clock_ms\":", f);
            write_num(f, g->slow_clock_ms);
        }
        fputs("}}", f);
    }
}

void perfetto_write_windows(FILE *f, const struct host_trace *hs, int h, int64_t origin_ns,
                            const struct analysis *a)
{
    char name[2 * MARK_LABEL_MAX + 8];
    for (long i = 0; i < a->nwindows; i++) {
        const struct window *w = &a->windows[i];
        snprintf(name, sizeof name, "%s\u2192%s", w->start_label, w->end_label);
        perfetto_event_start(f);
        fputs("{\"name\":", f);
        json_write_string(f, name);
        fprintf(f, ",\"cat\":\"window\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d", perfetto_host_pid(h),
                TID_WINDOWS);
        perfetto_write_ts(f, "ts", host_shared_ns(&hs[h], w->t_start_ns) - origin_ns);
        perfetto_write_ts(f, "dur", w->t_end_ns - w->t_start_ns);
        fprintf(f, ",\"args\":{\"window\":%ld,\"verdict\":\"%s\",\"energy_J\":", w->index,
                verdict_name(w->verdict));
        write_num(f, w->energy_j);
        fputs(",\"uncertainty_J\":", f);
        write_num(f, w->uncertainty_j);
        fputs(",\"mean_power_W\":", f);
        write_num(f, w->mean_power_w);
        fputs(",\"duration_s\":", f);
        write_num(f, w->duration_s);
        fputs(",\"evidence\":", f);
        json_write_string(f, w->evidence);
        if (w->category[0]) {               /* the start mark's, as its instant event has */
            fputs(",\"category\":", f);
            json_write_string(f, w->category);
        }
        if (w->payload[0])
            fprintf(f, ",\"payload\":%s", w->payload);
        /* why beyond the class (breakdown_reason), and slow compute named
         * (slow_clock.h): only when there is one */
        const char *reason = breakdown_reason(&w->bd);
        if (reason)
            fprintf(f, ",\"reason\":\"%s\"", reason);
        int slow = slow_clock_top(w);
        if (slow >= 0) {
            fputs(",\"slow_clock_ms\":", f);
            write_num(f, w->gpu[slow].slow_clock_ms);
            fprintf(f, ",\"slow_clock_gpu\":%d,\"slow_clock_after_idle\":%s", w->gpu[slow].gpu,
                    w->gpu[slow].slow_clock_after_idle ? "true" : "false");
        }
        fputs("}}", f);
        write_segments(f, w, perfetto_host_pid(h), host_shared_ns(&hs[h], w->t_start_ns) - origin_ns);
    }
}
