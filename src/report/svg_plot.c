/* svg_plot.c — see svg_plot.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "axis_ticks.h"
#include "slow_clock.h"
#include "svg_plot.h"
#include "svg_writer.h"

#define TITLE_Y 24
#define LEGEND_Y 48
#define MARK_LANE_Y 68          /* first row of mark labels */
#define MARK_ROW_H 14
#define MARK_ROWS 2
#define PANELS_TOP (MARK_LANE_Y + MARK_ROWS * MARK_ROW_H + 4)
#define PANEL_GAP 24
#define BOTTOM 46
#define CHAR_W 6.2              /* average glyph width of 11 px sans-serif */

static const char *const gpu_colours[] = {
    "#1f77b4", "#d62728", "#17becf", "#8c564b", "#e377c2", "#bcbd22", "#393b79", "#637939",
};
#define HOST_COLOUR "#555555"
#define SEGMENT_BAND_H 8          /* px: the breakdown band at the bottom of a window */
#define PROC_COLOUR "#ff7f0e"

const char *verdict_colour(enum verdict v)
{
    switch (v) {
    case VERDICT_COMPUTE:  return "#2ca02c";
    case VERDICT_WAITING:  return "#f5a623";
    case VERDICT_HOST_CPU: return "#9467bd";
    case VERDICT_MIXED:    return "#e6c700";
    default:               return "#999999";
    }
}

static const char *gpu_colour(int i)
{
    return gpu_colours[i % (int)(sizeof gpu_colours / sizeof gpu_colours[0])];
}

/* One panel: a vertical slice of the page with its own y scale. */
struct panel {
    const char *title;           /* y-axis label */
    double top, height;
    double ymax;                 /* the axis runs 0..ymax */
    double ystep;
};

struct page {
    FILE *f;
    const struct plot_data *d;
    double left, right;          /* plot area x range */
    double panels_top, panels_bottom;
};

static double x_of(const struct page *p, double t)
{
    return p->left + (t - p->d->from_s) / (p->d->to_s - p->d->from_s) * (p->right - p->left);
}

static double y_of(const struct panel *pn, double v)
{
    if (v > pn->ymax)
        v = pn->ymax;
    if (v < 0)
        v = 0;
    return pn->top + pn->height - v / pn->ymax * pn->height;
}

static void axis_for(struct panel *pn, double vmax, double floor_max)
{
    if (isnan(vmax) || vmax < floor_max)
        vmax = floor_max;
    pn->ystep = nice_tick_step(vmax, 4);
    pn->ymax = nice_ceil(vmax, pn->ystep);
}

static void draw_series(struct page *p, const struct panel *pn, const struct downsample *ds,
                        const char *cls, const char *colour, const char *title)
{
    if (ds->samples == 0)
        return;
    long cap = 2L * ds->nbuckets;
    double *t = malloc((size_t)cap * sizeof *t), *v = malloc((size_t)cap * sizeof *v);
    if (t && v) {
        long n = downsample_points(ds, t, v, cap);
        /* a new polyline where another recording starts: never a line
         * across the gap between two recordings (at most PLOT_MAX_BREAKS) */
        int b = 0;
        svg_polyline_begin(p->f, cls, colour);
        for (long i = 0; i < n; i++) {
            int cut = 0;
            while (b < p->d->nbreaks && p->d->breaks[b] <= t[i]) {
                cut |= i > 0 && t[i - 1] < p->d->breaks[b];
                b++;
            }
            if (cut) {
                svg_polyline_end(p->f, title);
                svg_polyline_begin(p->f, cls, colour);
            }
            svg_polyline_point(p->f, x_of(p, t[i]), y_of(pn, v[i]));
        }
        svg_polyline_end(p->f, title);
    }
    free(t);
    free(v);
}

static void draw_panel_frame(struct page *p, const struct panel *pn, double tstep, int last)
{
    char buf[64];
    FILE *f = p->f;
    double ys[AXIS_TICKS_MAX], ts[AXIS_TICKS_MAX];
    int ny = axis_ticks(0, pn->ymax * (1 + 1e-9), pn->ystep, ys, AXIS_TICKS_MAX);
    int nt = axis_ticks(p->d->from_s, p->d->to_s, tstep, ts, AXIS_TICKS_MAX);
    svg_rect(f, p->left, pn->top, p->right - p->left, pn->height, "panel", NULL, NULL);
    svg_group_begin(f, "grid");
    for (int i = 0; i < ny; i++)
        if (ys[i] > 0)
            svg_line(f, p->left, y_of(pn, ys[i]), p->right, y_of(pn, ys[i]), NULL, NULL);
    for (int i = 0; i < nt; i++)
        svg_line(f, x_of(p, ts[i]), pn->top, x_of(p, ts[i]), pn->top + pn->height, NULL, NULL);
    svg_group_end(f);
    for (int i = 0; i < ny; i++)
        svg_text(f, p->left - 6, y_of(pn, ys[i]) + 4, "end", NULL, 0, format_tick(ys[i], pn->ystep, buf, sizeof buf));
    svg_text(f, 18, pn->top + pn->height / 2, "middle", "ptitle", -90, pn->title);
    if (!last)
        return;
    double y = pn->top + pn->height;
    for (int i = 0; i < nt; i++)
        svg_text(f, x_of(p, ts[i]), y + 16, "middle", NULL, 0, format_tick(ts[i], tstep, buf, sizeof buf));
    svg_text(f, (p->left + p->right) / 2, y + 36, "middle", "ptitle", 0,
             "time since the trace's first row (s)");
}

/* The window's breakdown as a band of coloured segments along the bottom
 * of the panels (compute green, host-cpu purple, waiting orange, the
 * verdicts' colours), each with its class (and reason: a spinning GPU's
 * "waiting (gpu-spin)") and span as a tooltip; the compute segment where
 * compute at a slow SM clock begins says so (slow_clock.h). */
static void draw_segments(struct page *p, const struct window *w, double t0)
{
    if (!w->bd.valid)
        return;
    int slow = slow_clock_top(w);
    static const enum verdict colour_of[CLASS_COUNT] = { VERDICT_COMPUTE, VERDICT_HOST_CPU, VERDICT_WAITING,
                                                         VERDICT_INCONCLUSIVE, VERDICT_MIXED };
    for (int k = 0; k < w->bd.nseg; k++) {
        const struct segment *sg = &w->bd.seg[k];
        double s0 = t0 + sg->start_ms / 1e3, s1 = t0 + sg->end_ms / 1e3;
        if (s1 < p->d->from_s || s0 > p->d->to_s)
            continue;
        double x0 = x_of(p, s0 < p->d->from_s ? p->d->from_s : s0);
        double x1 = x_of(p, s1 > p->d->to_s ? p->d->to_s : s1);
        if (x1 - x0 < 0.5)
            continue;
        char tip[192];
        int n = snprintf(tip, sizeof tip, "%s%s%s%s %.0f-%.0f ms (+-%.0f ms)", time_class_name(sg->cls),
                         sg->reason ? " (" : "", sg->reason ? sg->reason : "", sg->reason ? ")" : "",
                         sg->start_ms, sg->end_ms, w->bd.resolution_ms);
        const struct window_gpu *g = slow >= 0 ? &w->gpu[slow] : NULL;
        if (g && sg->cls == CLASS_COMPUTE && n > 0 && (size_t)n < sizeof tip
            && g->slow_clock_from_ms >= sg->start_ms && g->slow_clock_from_ms < sg->end_ms) {
            char who[24] = "";
            if (w->ngpu > 1)
                snprintf(who, sizeof who, "gpu %d ", g->gpu);
            snprintf(tip + n, sizeof tip - (size_t)n, "; %sclocks below half of max for %.0f ms%s", who,
                     g->slow_clock_ms, g->slow_clock_after_idle ? ": the first request after idle" : "");
        }
        svg_rect(p->f, x0, p->panels_bottom - SEGMENT_BAND_H, x1 - x0, SEGMENT_BAND_H, "seg",
                 verdict_colour(colour_of[sg->cls]), tip);
    }
}

/* Windows from the analysis, shaded across every panel. A day-long trace
 * may hold more windows than pixels: a window narrower than a pixel is
 * skipped when the previous one already covers its column, and at most one
 * window starts in each pixel column (overlapping windows), so the SVG's
 * size is bounded by its width whatever the trace holds. */
static void draw_windows(struct page *p, const struct analysis *a, int *present)
{
    if (!a)
        return;
    FILE *f = p->f;
    double last_x1 = -1;
    long ncols = (long)(p->right - p->left) + 2;
    unsigned char *started = calloc((size_t)ncols, 1);
    if (!started)
        return;
    svg_group_begin(f, "windows");
    for (long i = 0; i < a->nwindows; i++) {
        const struct window *w = &a->windows[i];
        double t0 = (double)(w->t_start_ns - p->d->t0_ns) / 1e9;
        double t1 = (double)(w->t_end_ns - p->d->t0_ns) / 1e9;
        if (t1 < p->d->from_s || t0 > p->d->to_s)
            continue;
        double x0 = x_of(p, t0 < p->d->from_s ? p->d->from_s : t0);
        double x1 = x_of(p, t1 > p->d->to_s ? p->d->to_s : t1);
        if (x1 - x0 < 1) {
            if (floor(x0) <= last_x1)
                continue;
            x1 = x0 + 1;
        }
        long col = (long)(x0 - p->left);
        col = col < 0 ? 0 : col >= ncols ? ncols - 1 : col;
        if (started[col])
            continue;
        started[col] = 1;
        last_x1 = x1;
        present[w->verdict] = 1;
        char energy[64], tip[EVIDENCE_MAX + 3 * MARK_LABEL_MAX];
        if (isnan(w->energy_j))
            snprintf(energy, sizeof energy, "energy n/a");
        else
            snprintf(energy, sizeof energy, "%.1f J", w->energy_j);
        snprintf(tip, sizeof tip, "window %ld: %s\u2192%s: %.3f s, %s, %s (%s)", w->index,
                 w->start_label, w->end_label, w->duration_s, energy, verdict_name(w->verdict),
                 w->evidence);
        svg_rect(f, x0, p->panels_top, x1 - x0, p->panels_bottom - p->panels_top, "win",
                 verdict_colour(w->verdict), tip);
        if (x1 - x0 >= CHAR_W * (strlen(verdict_name(w->verdict)) + 2))
            svg_text(f, (x0 + x1) / 2, p->panels_top + 13, "middle", "vlabel", 0,
                     verdict_name(w->verdict));
        draw_segments(p, w, t0);
    }
    svg_group_end(f);
    free(started);
}

/* Characters of a UTF-8 label (its continuation bytes are not glyphs). */
static size_t glyphs(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* MARK lines, with labels in a two-row lane above the panels. A label goes
 * right of its line in the first row where it fits (it starts after the
 * row's last label and ends inside the page), else left of its line in the
 * first row where that fits; one that fits nowhere is left out (the line
 * stays). Each label is drawn exactly as wide as the room measured for it
 * (svg_text_fit), so none overprints another or runs off the page. Marks
 * closer than a pixel share one line, labelled "first (+N)". */
static void draw_marks(struct page *p)
{
    FILE *f = p->f;
    double row_end[MARK_ROWS];
    for (int r = 0; r < MARK_ROWS; r++)
        row_end[r] = -1e9;
    const double page_right = p->right + SVG_PLOT_MARGIN_RIGHT, gap = 4;
    /* more than one mark per 8 pixels would hide the data behind dashed
     * lines: then they are short ticks in the lane only */
    long used = 0;
    for (int i = 0; i < p->d->nmark_slots; i++)
        used += p->d->marks[i].count > 0;
    double line_end = used * 8 > p->right - p->left ? p->panels_top : p->panels_bottom;
    svg_group_begin(f, "marks");
    for (int i = 0; i < p->d->nmark_slots; i++) {
        const struct plot_mark *m = &p->d->marks[i];
        if (m->count == 0)
            continue;
        double x = x_of(p, m->t);
        svg_line(f, x, MARK_LANE_Y - 10, x, line_end, "mark", NULL);
        char text[MARK_LABEL_MAX + 32];
        if (m->count > 1)
            snprintf(text, sizeof text, "%s (+%ld)", m->label ? m->label : "", m->count - 1);
        else
            snprintf(text, sizeof text, "%s", m->label ? m->label : "");
        double w = CHAR_W * (double)glyphs(text);
        if (w <= 0)
            continue;
        int placed = 0;
        for (int r = 0; r < MARK_ROWS && !placed; r++)
            if (x + 3 >= row_end[r] + gap && x + 3 + w <= page_right - 2) {
                svg_text_fit(f, x + 3, MARK_LANE_Y + r * MARK_ROW_H, NULL, "mlabel", w, text);
                row_end[r] = x + 3 + w;
                placed = 1;
            }
        /* near the right edge or a neighbour: left of the line */
        for (int r = 0; r < MARK_ROWS && !placed; r++)
            if (x - 3 - w >= row_end[r] + gap && x - 3 - w >= 2) {
                svg_text_fit(f, x - 3, MARK_LANE_Y + r * MARK_ROW_H, "end", "mlabel", w, text);
                row_end[r] = x - 3;
                placed = 1;
            }
    }
    svg_group_end(f);
}

/* Which line styles the legend explains. */
struct legend_styles { int instant, avg, gpm, job; };

/* One legend entry: a line of class CLS in COLOUR, then TEXT; returns the
 * next entry's x. */
static double legend_line(FILE *f, double x, const char *cls, const char *colour, const char *text)
{
    svg_line(f, x, LEGEND_Y - 4, x + 18, LEGEND_Y - 4, cls, colour);
    svg_text(f, x + 22, LEGEND_Y, NULL, NULL, 0, text);
    return x + 22 + CHAR_W * (double)strlen(text) + 14;
}

/* The legend: one entry per GPU colour, the line styles, verdict colours. */
static void draw_legend(struct page *p, struct legend_styles st, const int *verdicts)
{
    FILE *f = p->f;
    double x = p->left;
    char text[64];
    const double y = LEGEND_Y;
    for (int i = 0; i < p->d->ngpu; i++) {
        snprintf(text, sizeof text, "GPU %d", p->d->gpu[i].id);
        x = legend_line(f, x, "s", gpu_colour(i), text);
    }
    if (st.instant)
        x = legend_line(f, x, "s", "#333333", "instant");
    if (st.avg)
        x = legend_line(f, x, "s avg", "#333333", "1 s average");
    if (st.gpm)
        x = legend_line(f, x, "s gpm", "#333333", "SM active (GPM)");
    if (st.job)
        x = legend_line(f, x, "s job", "#333333", "traced job's SM share");
    if (p->d->host_cpu.samples)
        x = legend_line(f, x, "s", HOST_COLOUR, "host CPU");
    if (p->d->proc_cores.samples)
        x = legend_line(f, x, "s", PROC_COLOUR, "traced process");
    if (p->d->marks_total) {
        svg_line(f, x + 6, y - 11, x + 6, y + 2, "mark", NULL);
        svg_text(f, x + 12, y, NULL, NULL, 0, "MARK");
        x += 12 + CHAR_W * 4 + 14;
    }
    for (int v = 0; v < VERDICT_COUNT; v++) {
        if (!verdicts[v])
            continue;
        svg_rect(f, x, y - 10, 14, 12, "win", verdict_colour((enum verdict)v), NULL);
        svg_text(f, x + 18, y, NULL, NULL, 0, verdict_name((enum verdict)v));
        x += 18 + CHAR_W * (double)strlen(verdict_name((enum verdict)v)) + 14;
    }
}

static const char *style =
    "<style>\n"
    "text{font-family:sans-serif;font-size:11px;fill:#333}\n"
    ".title{font-size:15px;font-weight:bold}\n"
    ".ptitle{font-size:12px;font-weight:bold}\n"
    ".mlabel{fill:#222}\n"
    ".vlabel{font-weight:bold;fill:#444}\n"
    ".panel{fill:#fff;stroke:#999;stroke-width:1}\n"
    ".grid line{stroke:#e6e6e6;stroke-width:1}\n"
    ".s{fill:none;stroke-width:1.5;stroke-linejoin:round}\n"
    ".avg{stroke-dasharray:6 3}\n"
    ".gpm{stroke-dasharray:1.5 2.5}\n"
    ".job{stroke-dasharray:8 3 2 3}\n"
    ".mark{stroke:#333;stroke-width:1;stroke-dasharray:3 3}\n"
    ".win{fill-opacity:0.22}\n"
    ".seg{fill-opacity:0.75}\n"
    "</style>\n";

void svg_plot_write(FILE *f, const struct plot_data *d, const struct analysis *a,
                    const struct svg_plot_options *o)
{
    struct page p = { f, d, SVG_PLOT_MARGIN_LEFT, o->width - SVG_PLOT_MARGIN_RIGHT, PANELS_TOP,
                      o->height - BOTTOM - svg_kernel_lanes_height(&d->klanes) - svg_lanes_height(&d->lanes) };
    struct panel pn[4];
    int np = 0, has_instant = 0, has_avg = 0;
    double pmax = NAN;
    for (int i = 0; i < d->ngpu; i++) {
        const struct plot_gpu *g = &d->gpu[i];
        has_instant |= g->power_instant.samples > 0;
        has_avg |= g->power_avg.samples > 0;
        if (g->power_instant.samples && !(g->power_instant.vmax <= pmax))
            pmax = g->power_instant.vmax;
        if (g->power_avg.samples && !(g->power_avg.vmax <= pmax))
            pmax = g->power_avg.vmax;
    }
    int has_util = 0, has_gpm = 0, has_job = 0;
    for (int i = 0; i < d->ngpu; i++) {
        has_util |= d->gpu[i].util.samples > 0;
        has_gpm |= d->gpu[i].sm_active.ds.samples > 0;
        has_job |= d->gpu[i].job_sm.ds.samples > 0;
    }
    has_util |= has_gpm || has_job;    /* the utilization panel draws them */
    int want[4] = { has_instant || has_avg || !(has_util || d->host_cpu.samples), has_util,
                    d->host_cpu.samples > 0, d->proc_cores.samples > 0 };
    static const char *titles[4] = { "GPU power (W)", "GPU util (%)", "host CPU (%)",
                                     "process (cores)" };
    static const double weight[4] = { 1.6, 1, 1, 1 };
    int kind[4];
    double wsum = 0;
    for (int k = 0; k < 4; k++)
        if (want[k]) {
            kind[np] = k;
            pn[np].title = titles[k];
            wsum += weight[k];
            np++;
        }
    double avail = p.panels_bottom - p.panels_top - (np - 1) * PANEL_GAP, y = p.panels_top;
    for (int i = 0; i < np; i++) {
        pn[i].top = y;
        pn[i].height = avail * weight[kind[i]] / wsum;
        y += pn[i].height + PANEL_GAP;
        switch (kind[i]) {
        case 0: axis_for(&pn[i], pmax, 10); break;
        case 1: case 2: axis_for(&pn[i], 100, 100); break;
        default: axis_for(&pn[i], d->proc_cores.vmax, 1); break;
        }
    }
    double tstep = nice_tick_step(d->to_s - d->from_s, (int)((p.right - p.left) / 80));

    svg_begin(f, o->width, o->height);
    fputs(style, f);
    svg_rect(f, 0, 0, o->width, o->height, NULL, "#ffffff", NULL);
    char title[512];
    snprintf(title, sizeof title, "%s \u2014 %.3f s to %.3f s, %d GPU%s", o->title ? o->title : d->path,
             d->from_s, d->to_s, d->ngpu, d->ngpu == 1 ? "" : "s");
    svg_text(f, p.left, TITLE_Y, NULL, "title", 0, title);
    for (int i = 0; i < np; i++)
        draw_panel_frame(&p, &pn[i], tstep, i == np - 1);
    int verdicts[VERDICT_COUNT] = { 0 };
    draw_windows(&p, a, verdicts);
    char name[96];
    for (int i = 0; i < np; i++) {
        svg_group_begin(f, "series");
        for (int g = 0; g < d->ngpu; g++) {
            const struct plot_gpu *pg = &d->gpu[g];
            if (kind[i] == 0) {
                snprintf(name, sizeof name, "GPU %d power, 1 s average (W)", pg->id);
                draw_series(&p, &pn[i], &pg->power_avg, "s avg", gpu_colour(g), name);
                snprintf(name, sizeof name, "GPU %d power, instant (W)", pg->id);
                draw_series(&p, &pn[i], &pg->power_instant, "s", gpu_colour(g), name);
            } else if (kind[i] == 1) {
                snprintf(name, sizeof name, "GPU %d utilization (%%)", pg->id);
                draw_series(&p, &pn[i], &pg->util, "s", gpu_colour(g), name);
                snprintf(name, sizeof name, "GPU %d SM active, GPM (%%)", pg->id);
                draw_series(&p, &pn[i], &pg->sm_active.ds, "s gpm", gpu_colour(g), name);
                snprintf(name, sizeof name, "GPU %d traced job's share of SM time (%%)", pg->id);
                draw_series(&p, &pn[i], &pg->job_sm.ds, "s job", gpu_colour(g), name);
            }
        }
        if (kind[i] == 2)
            draw_series(&p, &pn[i], &d->host_cpu, "s", HOST_COLOUR, "host CPU busy (%)");
        if (kind[i] == 3)
            draw_series(&p, &pn[i], &d->proc_cores, "s", PROC_COLOUR, "traced process CPU (cores)");
        svg_group_end(f);
    }
    draw_marks(&p);
    draw_legend(&p, (struct legend_styles){ has_instant, has_avg, has_gpm, has_job }, verdicts);
    svg_kernel_lanes_draw(f, &d->klanes, d, p.left, p.right, p.panels_bottom + BOTTOM);
    svg_lanes_draw(f, &d->lanes, p.left, p.right,
                   p.panels_bottom + BOTTOM + svg_kernel_lanes_height(&d->klanes));
    svg_end(f);
}
