/*
 * report_waiting.c — the "waiting on" part of analyze's text, JSON and CSV
 * reports: per window, where the traced threads were (waiting_on.h).
 */
#include <stdio.h>
#include <string.h>

#include "json_escape.h"
#include "report.h"
#include "waiting_on.h"

#define TEXT_THREADS 2   /* threads named per class in the text line */
#define TEXT_SEGMENTS 6  /* host-cpu and waiting segments listed under it */

/* Threads of one name in one state (and, off-CPU, in the same call) read
 * as one entry: "sleep in clock_nanosleep 100% (2 threads)", not "sleep in
 * clock_nanosleep 91%, sleep in clock_nanosleep 9%". */
struct merged {
    const struct waiting_thread *first;
    double ms;
    int count;
};

static int same_entry(const struct waiting_class *wc, const struct waiting_thread *a,
                      const struct waiting_thread *b)
{
    return strcmp(a->name, b->name) == 0 && (wc->cls == TC_RUNNING || strcmp(a->detail, b->detail) == 0);
}

/* The TEXT_THREADS largest merged entries of wc into m, largest first; how many. */
static int merge_threads(const struct waiting_class *wc, struct merged *m)
{
    int n = 0;
    for (int t = 0; t < wc->nthreads; t++) {
        const struct waiting_thread *th = &wc->threads[t];
        int seen = 0;
        for (int k = 0; k < t && !seen; k++)
            seen = same_entry(wc, &wc->threads[k], th);
        if (seen)
            continue;
        struct merged e = { th, 0, 0 };
        for (int k = t; k < wc->nthreads; k++)
            if (same_entry(wc, &wc->threads[k], th)) {
                e.ms += wc->threads[k].ms;
                e.count++;
            }
        int at = n < TEXT_THREADS ? n++ : TEXT_THREADS;    /* insertion, largest first */
        while (at > 0 && m[at - 1].ms < e.ms) {
            if (at < TEXT_THREADS)
                m[at] = m[at - 1];
            at--;
        }
        if (at < TEXT_THREADS)
            m[at] = e;
    }
    return n;
}

void report_waiting_text(FILE *out, const struct analysis *a, long wi)
{
    const struct waiting_on *w = a->waiting;
    if (!w)
        return;
    const struct window_waiting *ww = &w->win[wi];
    double window_ms = a->windows[wi].duration_s * 1e3;
    fprintf(out, "  threads (every %ld ms, edges +-%.0f ms):", w->interval_ms,
            (double)w->interval_ms / 2);
    if (ww->nclass == 0)
        fprintf(out, " no thread states recorded in this window");
    for (int c = 0; c < ww->nclass; c++) {
        const struct waiting_class *wc = &ww->cls[c];
        fprintf(out, "%s %s %.0f ms:", c ? ";" : "", thread_class_name(wc->cls), wc->thread_ms);
        struct merged m[TEXT_THREADS];
        int shown = merge_threads(wc, m), left = wc->nthreads;
        for (int t = 0; t < shown; t++) {
            fprintf(out, "%s %s", t ? "," : "", m[t].first->name);
            if (wc->cls != TC_RUNNING)
                fprintf(out, " in %s", m[t].first->detail);
            fprintf(out, " %.0f%%", window_ms > 0 ? 100.0 * m[t].ms / window_ms : 0);
            if (m[t].count > 1)
                fprintf(out, " (%d threads together)", m[t].count);
            left -= m[t].count;
        }
        if (left > 0)
            fprintf(out, " and %d more thread%s", left, left > 1 ? "s" : "");
    }
    fputc('\n', out);
    const struct window *win = &a->windows[wi];
    for (int k = 0; k < ww->nseg && k < TEXT_SEGMENTS; k++) {
        const struct segment_waiting *sw = &ww->segs[k];
        const struct segment *sg = &win->bd.seg[sw->seg];
        fprintf(out, "    %s %.0f-%.0f ms:", time_class_name(sg->cls), sg->start_ms, sg->end_ms);
        if (sw->dominant < 0) {
            fprintf(out, " no thread states\n");
            continue;
        }
        /* the classes by thread-ms, largest (the dominant one) first */
        int done[TC_COUNT] = { 0 };
        for (int n = 0; n < 3; n++) {
            int best = -1;
            for (int c = 0; c < TC_COUNT; c++)
                if (!done[c] && sw->thread_ms[c] > 0 && (best < 0 || sw->thread_ms[c] > sw->thread_ms[best]))
                    best = c;
            if (best < 0)
                break;
            done[best] = 1;
            fprintf(out, "%s %s %.0f thread-ms", n ? "," : "", thread_class_name((enum thread_class)best),
                    sw->thread_ms[best]);
        }
        fputc('\n', out);
    }
    if (ww->nseg > TEXT_SEGMENTS)
        fprintf(out, "    ... %d more segments (--format json has all)\n", ww->nseg - TEXT_SEGMENTS);
}

void report_waiting_json(FILE *out, const struct analysis *a, long wi)
{
    const struct waiting_on *w = a->waiting;
    if (!w) {
        fputs(",\"waiting_on\":null", out);
        return;
    }
    const struct window_waiting *ww = &w->win[wi];
    fprintf(out, ",\"waiting_on_resolution_ms\":%.1f,\"waiting_on\":[",
            (double)w->interval_ms / 2);
    for (int c = 0; c < ww->nclass; c++) {
        const struct waiting_class *wc = &ww->cls[c];
        fprintf(out, "%s{\"class\":", c ? "," : "");
        json_write_string(out, thread_class_name(wc->cls));
        fprintf(out, ",\"thread_ms\":%.1f,\"threads\":[", wc->thread_ms);
        for (int t = 0; t < wc->nthreads; t++) {
            if (t)
                fputc(',', out);
            json_write_string(out, wc->threads[t].name);
        }
        fputs("],\"detail\":[", out);
        for (int t = 0; t < wc->nthreads; t++) {
            fprintf(out, "%s{\"thread\":", t ? "," : "");
            json_write_string(out, wc->threads[t].name);
            fprintf(out, ",\"tid\":%ld,\"thread_ms\":%.1f,\"in\":", wc->threads[t].tid,
                    wc->threads[t].ms);
            json_write_string(out, wc->threads[t].detail);
            fputc('}', out);
        }
        fputs("]}", out);
    }
    fputs("],\"segments_waiting_on\":[", out);
    const struct window *win = &a->windows[wi];
    for (int k = 0; k < ww->nseg; k++) {
        const struct segment_waiting *sw = &ww->segs[k];
        const struct segment *sg = &win->bd.seg[sw->seg];
        fprintf(out, "%s{\"start_ms\":%.3f,\"end_ms\":%.3f,\"class\":\"%s\",\"dominant\":",
                k ? "," : "", sg->start_ms, sg->end_ms, time_class_name(sg->cls));
        if (sw->dominant < 0)
            fputs("null", out);
        else
            json_write_string(out, thread_class_name((enum thread_class)sw->dominant));
        fputs(",\"thread_ms\":{", out);
        int first = 1;
        for (int c = 0; c < TC_COUNT; c++)
            if (sw->thread_ms[c] > 0) {
                fprintf(out, "%s\"%s\":%.1f", first ? "" : ",", thread_class_name((enum thread_class)c),
                        sw->thread_ms[c]);
                first = 0;
            }
        fputs("}}", out);
    }
    fputc(']', out);
}

/* A thread name inside a CSV cell: the cell's separators (; : |) and what
 * would need CSV quoting (, ") as \xHH, as the threads file already writes
 * '\' and every byte outside ! to ~, so the cell is never quoted and
 * splits without ambiguity. */
static void csv_thread_name(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (strchr(";:|,\"", *s))
            fprintf(out, "\\x%02x", (unsigned char)*s);
        else
            fputc(*s, out);
    }
}

void report_waiting_csv_header(FILE *out)
{
    fputs(",waiting_on_resolution_ms", out);
    for (int c = 0; c < TC_COUNT; c++) {
        fputs(",threads_", out);
        for (const char *p = thread_class_name((enum thread_class)c); *p; p++)
            fputc(*p == '-' ? '_' : *p, out);   /* a plain SQL identifier */
        fputs("_ms", out);
    }
    fputs(",waiting_on,segments_waiting_on", out);
}

void report_waiting_csv(FILE *out, const struct analysis *a, long wi)
{
    const struct waiting_on *w = a->waiting;
    if (!w) {
        for (int k = 0; k < TC_COUNT + 3; k++)
            fputc(',', out);
        return;
    }
    const struct window_waiting *ww = &w->win[wi];
    double ms[TC_COUNT] = { 0 };
    for (int c = 0; c < ww->nclass; c++)
        ms[ww->cls[c].cls] = ww->cls[c].thread_ms;
    fprintf(out, ",%.1f", (double)w->interval_ms / 2);
    for (int c = 0; c < TC_COUNT; c++)
        fprintf(out, ",%.1f", ms[c]);
    fputc(',', out);
    for (int c = 0; c < ww->nclass; c++) {
        const struct waiting_class *wc = &ww->cls[c];
        fprintf(out, "%s%s:%.1f:", c ? ";" : "", thread_class_name(wc->cls), wc->thread_ms);
        for (int t = 0; t < wc->nthreads; t++) {
            if (t)
                fputc('|', out);
            csv_thread_name(out, wc->threads[t].name);
        }
    }
    fputc(',', out);
    const struct window *win = &a->windows[wi];
    for (int k = 0; k < ww->nseg; k++) {
        const struct segment_waiting *sw = &ww->segs[k];
        const struct segment *sg = &win->bd.seg[sw->seg];
        fprintf(out, "%s%s:%.3f-%.3f:%s", k ? ";" : "", time_class_name(sg->cls), sg->start_ms,
                sg->end_ms, sw->dominant < 0 ? "-" : thread_class_name((enum thread_class)sw->dominant));
    }
}
