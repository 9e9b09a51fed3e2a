/*
 * svg_lanes.c — flinch plot's thread lanes (see thread_lanes.h): under
 * the panels, one row per chosen thread, its name at the left, each run
 * of columns in one class a rectangle in that class's colour with a
 * tooltip, then a legend of the classes shown.
 */
#include <stdio.h>
#include <string.h>

#include "svg_plot.h"
#include "svg_writer.h"
#include "thread_class.h"

#define LANE_H 14
#define LANES_TITLE_H 16
#define LANES_LEGEND_H 20

static const char *class_colour(int c)
{
    static const char *const colours[TC_COUNT] = {
        "#1f77b4", /* network */   "#d62728", /* lock */    "#c7c7c7", /* sleep */
        "#8c564b", /* disk */      "#9467bd", /* pipe */    "#ff7f0e", /* gpu-driver */
        "#2ca02c", /* running */   "#7f7f7f", /* other */
    };
    return c >= 0 && c < TC_COUNT ? colours[c] : "#ffffff";
}

double svg_lanes_height(const struct thread_lanes *l)
{
    return l->nlanes ? LANES_TITLE_H + l->nlanes * LANE_H + LANES_LEGEND_H : 0;
}

void svg_lanes_draw(FILE *f, const struct thread_lanes *l, double left, double right, double top)
{
    if (!l->nlanes)
        return;
    int shown[TC_COUNT] = { 0 };
    svg_text(f, left, top + 11, NULL, "ptitle", 0, "traced threads (busiest first)");
    double col_w = (right - left) / l->ncols;
    svg_group_begin(f, "lanes");
    for (int k = 0; k < l->nlanes; k++) {
        const struct thread_lane *ln = &l->lane[k];
        double y = top + LANES_TITLE_H + k * LANE_H;
        char label[THREADS_NAME_MAX + 24];
        snprintf(label, sizeof label, "%.12s", ln->name);
        svg_text(f, left - 6, y + LANE_H - 4, "end", NULL, 0, label);
        for (int c0 = 0; c0 < l->ncols;) {
            int c1 = c0 + 1;
            while (c1 < l->ncols && ln->cls[c1] == ln->cls[c0])
                c1++;
            if (ln->cls[c0] != THREAD_LANE_NONE) {
                char title[THREADS_NAME_MAX + 48];
                snprintf(title, sizeof title, "%s (tid %ld): %s", ln->name, ln->tid,
                         thread_class_name((enum thread_class)ln->cls[c0]));
                svg_rect(f, left + c0 * col_w, y + 1, (c1 - c0) * col_w, LANE_H - 2, NULL,
                         class_colour(ln->cls[c0]), title);
                shown[ln->cls[c0]] = 1;
            }
            c0 = c1;
        }
    }
    svg_group_end(f);
    double x = left, y = top + LANES_TITLE_H + l->nlanes * LANE_H + 15;
    for (int c = 0; c < TC_COUNT; c++) {
        if (!shown[c])
            continue;
        const char *name = thread_class_name((enum thread_class)c);
        svg_rect(f, x, y - 10, 14, 12, NULL, class_colour(c), NULL);
        svg_text(f, x + 18, y, NULL, NULL, 0, name);
        x += 18 + 6.2 * (double)strlen(name) + 14;
    }
}
