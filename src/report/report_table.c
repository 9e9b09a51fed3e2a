/*
 * report_table.c — `analyze --windows`' table: a header, then per window a
 * row of its figures, verdict, confidence, flags and reason, and a line of
 * its segments.
 *
 * Owns: the table's columns and their widths, as printf's "%10.3f",
 * "%-12s", ... laid them out, byte for byte.
 *
 * Why not printf: a row is sixteen conversions, and with 10,000 windows
 * formatting the table was a fifth of what the windows cost. The numbers
 * come from num_format (its "%.Nf" is printf's, byte for byte), the
 * padding from pad() below, and each row goes out in one fwrite.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "breakdown.h"
#include "confidence.h"
#include "num_format.h"
#include "report.h"

/* "%.Nf" of any double, whole: 309 digits, a sign, a point and 9 decimals */
#define FIXED_TEXT_MAX 328

/* A row being built: every field but the reason, which follows it on its
 * own; the longest they can be fits. */
struct row {
    char text[2 * FIXED_TEXT_MAX + 12 * REPORT_NUM_MAX + 256];
    size_t n;
};

/* TEXT in WIDTH columns, after a space but for the first: right-aligned
 * ("%Ns"), or left (LEFT: "%-Ns"). */
static void pad(struct row *r, const char *text, int width, int left)
{
    size_t len = strlen(text), fill = len < (size_t)width ? (size_t)width - len : 0;
    if (r->n + 1 + len + fill >= sizeof r->text)
        return;                          /* cannot happen with the fields below */
    if (r->n)
        r->text[r->n++] = ' ';
    if (!left) {
        memset(r->text + r->n, ' ', fill);
        r->n += fill;
    }
    memcpy(r->text + r->n, text, len);
    r->n += len;
    if (left) {
        memset(r->text + r->n, ' ', fill);
        r->n += fill;
    }
}

/* V with DIGITS decimals ("%N.Mf"), in WIDTH columns. */
static void pad_fixed(struct row *r, double v, int digits, int width)
{
    char num[FIXED_TEXT_MAX];
    num_format_fixed(num, sizeof num, v, digits);
    pad(r, num, width, 0);
}

/* NUM("%.Nf", V) in WIDTH columns ("%Ns"): "n/a" when not finite, cut
 * where NUM's buffer cuts it (report.h). */
static void pad_num(struct row *r, double v, int digits, int width)
{
    char num[REPORT_NUM_MAX];
    if (isfinite(v))
        num_format_fixed(num, sizeof num, v, digits);
    else
        snprintf(num, sizeof num, "n/a");
    pad(r, num, width, 0);
}

static void pad_long(struct row *r, long v, int width)
{
    char num[NUM_FORMAT_INT_MAX];
    num_format_i64(num, v);
    pad(r, num, width, 0);
}

void report_table_text(FILE *out, const struct analysis *a)
{
    int several = a->nby_recording > 1;   /* then a `rec` column: the window's recording */
    fprintf(out, "%6s", "window");
    if (several)
        fprintf(out, " %3s", "rec");
    fprintf(out, " %10s %12s %11s %9s %8s %6s %6s %7s %8s %10s %10s %10s %-12s %-10s %-12s %s\n",
            "at_s", "duration_s", "energy_J", "+-J", "power_W", "util%", "cpu%", "samples",
            "gap_ms", "compute_ms", "hostcpu_ms", "waiting_ms", "verdict", "confidence", "flags", "reason");
    for (long i = 0; i < a->nwindows; i++) {
        const struct window *w = &a->windows[i];
        long samples = 0;
        double gap = 0;
        for (int k = 0; k < w->ngpu; k++) {
            samples += w->gpu[k].samples;
            gap = fmax(gap, w->gpu[k].max_gap_s);
        }
        const struct breakdown *bd = &w->bd;
        /* why a number may not be trusted ("none" when nothing says so),
         * and the evidence's first clause: why the verdict is what it is */
        char flags[128], reason[EVIDENCE_MAX];
        window_flags_str(w->flags, flags, sizeof flags);
        struct row r;
        r.n = 0;
        pad_long(&r, w->index, 6);
        if (several)
            pad_long(&r, w->recording, 3);
        pad_fixed(&r, (double)(w->t_start_ns - a->first_row_ns) / 1e9, 3, 10);
        pad_fixed(&r, w->duration_s, 6, 12);
        pad_num(&r, w->energy_j, 3, 11);
        pad_num(&r, w->uncertainty_j, 3, 9);
        pad_num(&r, w->mean_power_w, 1, 8);
        pad_num(&r, report_window_util(w), 1, 6);
        pad_num(&r, w->host_cpu_pct, 1, 6);
        pad_long(&r, samples, 7);
        pad_num(&r, gap * 1e3, 1, 8);
        pad_num(&r, bd->valid ? bd->ms[CLASS_COMPUTE] : NAN, 1, 10);
        pad_num(&r, bd->valid ? bd->ms[CLASS_HOST_CPU] : NAN, 1, 10);
        pad_num(&r, bd->valid ? bd->ms[CLASS_WAITING] : NAN, 1, 10);
        pad(&r, verdict_name(w->verdict), 12, 1);
        pad(&r, confidence_name(w->confidence), 10, 1);
        pad(&r, *flags ? flags : "none", 12, 1);
        r.text[r.n++] = ' ';
        fwrite(r.text, 1, r.n, out);
        fputs(report_reason_text(w, reason, sizeof reason), out);
        fputc('\n', out);
        if (bd->valid) {
            char seg[1024], res[FIXED_TEXT_MAX];
            fputs("       segments: ", out);
            fputs(breakdown_segments_text(bd, 12, seg, sizeof seg), out);
            num_format_fixed(res, sizeof res, bd->resolution_ms, 1);
            fputs(" (edges +-", out);
            fputs(res, out);
            fputs(" ms)\n", out);
        }
    }
}
