/*
 * svg_kernel_lanes.c — flinch plot's kernel lanes (kernel_lanes.h): under
 * the panels, one row per CUDA device with traced kernels, its GPU at the
 * left, its busy time as rectangles in compute's colour and its collective
 * (NCCL) time over them in the breakdown band's collective colour, each
 * with a tooltip, then a legend of the two.
 *
 * A rectangle is a run of kernel time whose pieces lie less than a pixel
 * apart (a gap of a pixel or more is drawn); a run narrower than a pixel
 * is drawn one pixel wide, so that a lone short kernel stays visible. So
 * a lane holds at most one rectangle per two pixels per kind, whatever the
 * number of kernels.
 *
 * CUDA device d is drawn as the plot's d-th GPU (by gpu_index), as analyze
 * takes it (kernels_window.h); a device beyond the plot's GPUs is named by
 * its ordinal.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "svg_plot.h"
#include "svg_writer.h"

#define LANE_H 14
#define LANES_TITLE_H 16
#define LANES_LEGEND_H 20
#define KERNELS_COLOUR "#2ca02c"        /* compute's (verdict_colour) */
#define COLLECTIVE_COLOUR "#e6c700"     /* the breakdown band's collective */

double svg_kernel_lanes_height(const struct kernel_lanes *l)
{
    return l->nlanes ? LANES_TITLE_H + l->nlanes * LANE_H + LANES_LEGEND_H : 0;
}

struct lane_page {
    FILE *f;
    const struct kernel_lanes *l;
    double left, right, from_s;
    int prec;                           /* decimals of a second that tell columns apart */
};

/* The runs of k as rectangles at y. coll (NULL when k is the collectives
 * themselves): the lane's collectives, whose time inside each run its
 * tooltip gives. Whether any was drawn. */
static int draw_runs(const struct lane_page *p, const struct kernel_cols *k, const struct kernel_cols *coll,
                     double y, const char *who, const char *colour)
{
    const struct kernel_lanes *l = p->l;
    double col_w = (p->right - p->left) / l->ncols, col_s = l->col_ns / 1e9;
    int drawn = 0;
    for (int c = 0; c < l->ncols; c++) {
        if (!(k->ns[c] > 0))
            continue;
        double x0 = k->lo[c], x1 = k->hi[c], ns = fmin(k->ns[c], l->col_ns);
        double coll_ns = coll ? fmin(coll->ns[c], l->col_ns) : 0;
        while (c + 1 < l->ncols && k->ns[c + 1] > 0 && k->lo[c + 1] - x1 < 1) {
            c++;
            x1 = k->hi[c];
            ns += fmin(k->ns[c], l->col_ns);
            coll_ns += coll ? fmin(coll->ns[c], l->col_ns) : 0;
        }
        double px0 = p->left + x0 * col_w, px1 = p->left + x1 * col_w;
        if (px1 - px0 < 1) {
            px1 = px0 + 1 <= p->right ? px0 + 1 : p->right;
            px0 = px1 - 1;
        }
        double span_ms = (x1 - x0) * l->col_ns / 1e6;
        char tip[200];
        int n = snprintf(tip, sizeof tip, "%s %s %.*f-%.*f s: %.3f ms", who, coll ? "kernels" : "collective (NCCL)",
                         p->prec, p->from_s + x0 * col_s, p->prec, p->from_s + x1 * col_s, ns / 1e6);
        if (coll && n > 0 && (size_t)n < sizeof tip)
            n += snprintf(tip + n, sizeof tip - (size_t)n, " busy (%.0f%% of the span)",
                          span_ms > 0 ? fmin(100.0, 100.0 * ns / 1e6 / span_ms) : 100.0);
        if (coll && coll_ns > 0 && n > 0 && (size_t)n < sizeof tip)
            snprintf(tip + n, sizeof tip - (size_t)n, ", collective %.3f ms", coll_ns / 1e6);
        svg_rect(p->f, px0, y + 1, px1 - px0, LANE_H - 2, NULL, colour, tip);
        drawn = 1;
    }
    return drawn;
}

void svg_kernel_lanes_draw(FILE *f, const struct kernel_lanes *l, const struct plot_data *d, double left,
                           double right, double top)
{
    if (!l->nlanes)
        return;
    double col_s = l->col_ns / 1e9;
    struct lane_page p = { f, l, left, right, d->from_s,
                           col_s >= 1 ? 0 : (int)fmin(9, ceil(-log10(col_s))) };
    int shown_busy = 0, shown_coll = 0;
    svg_text(f, left, top + 11, NULL, "ptitle", 0, "traced GPU kernels");
    svg_group_begin(f, "klanes");
    for (int i = 0; i < l->nlanes; i++) {
        const struct kernel_lane *ln = &l->lane[i];
        double y = top + LANES_TITLE_H + i * LANE_H;
        char label[32], who[64];
        if (ln->dev < d->ngpu) {
            snprintf(label, sizeof label, "GPU %d", d->gpu[ln->dev].id);
            snprintf(who, sizeof who, "GPU %d (CUDA device %d)", d->gpu[ln->dev].id, ln->dev);
        } else {
            snprintf(label, sizeof label, "CUDA %d", ln->dev);
            snprintf(who, sizeof who, "CUDA device %d", ln->dev);
        }
        svg_text(f, left - 6, y + LANE_H - 4, "end", NULL, 0, label);
        shown_busy |= draw_runs(&p, &ln->busy, &ln->coll, y, who, KERNELS_COLOUR);
        shown_coll |= draw_runs(&p, &ln->coll, NULL, y, who, COLLECTIVE_COLOUR);
    }
    svg_group_end(f);
    double x = left, y = top + LANES_TITLE_H + l->nlanes * LANE_H + 15;
    if (shown_busy) {
        svg_rect(f, x, y - 10, 14, 12, NULL, KERNELS_COLOUR, NULL);
        svg_text(f, x + 18, y, NULL, NULL, 0, "kernels");
        x += 18 + 6.2 * (double)strlen("kernels") + 14;
    }
    if (shown_coll) {
        svg_rect(f, x, y - 10, 14, 12, NULL, COLLECTIVE_COLOUR, NULL);
        svg_text(f, x + 18, y, NULL, NULL, 0, "collective (NCCL)");
    }
}
