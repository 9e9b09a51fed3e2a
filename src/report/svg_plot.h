/*
 * svg_plot.h — the layout of flinch plot's SVG timeline.
 *
 * Owns: the page: title, legend, a lane of MARK labels, stacked panels
 * (GPU power, GPU utilization, host CPU busy, traced process CPU, each only
 * when the trace has data for it) sharing one time axis in seconds with a
 * grid at nice steps, analyzed windows shaded across all panels in their
 * verdict's colour with a tooltip, MARKs as labelled vertical lines, and
 * under the panels a lane per CUDA device with traced kernels (busy and
 * collective time) and a lane per busy traced thread coloured by class.
 * Drawing primitives come from svg_writer.h; the data from plot_data.h.
 */
#ifndef FLINCH_SVG_PLOT_H
#define FLINCH_SVG_PLOT_H

#include <stdio.h>

#include "analysis.h"
#include "plot_data.h"

struct svg_plot_options {
    int width, height;           /* pixels */
    const char *title;           /* top line; NULL: the trace's path */
};

/* Left and right margins: the plot area is width - SVG_PLOT_MARGINS wide,
 * which is also how many downsampling buckets are worth keeping. */
#define SVG_PLOT_MARGIN_LEFT 70
#define SVG_PLOT_MARGIN_RIGHT 24
#define SVG_PLOT_MARGINS (SVG_PLOT_MARGIN_LEFT + SVG_PLOT_MARGIN_RIGHT)

/* Verdict colours, also used by the legend ("#2ca02c" for compute...). */
const char *verdict_colour(enum verdict v);

/* The traced threads' lanes under the panels (svg_lanes.c): the height
 * they take (0 without lanes), and the drawing from y = TOP down. */
double svg_lanes_height(const struct thread_lanes *l);
void svg_lanes_draw(FILE *f, const struct thread_lanes *l, double left, double right, double top);

/* The traced kernels' lanes (svg_kernel_lanes.c), above the threads': the
 * height they take (0 without kernels), and the drawing from y = TOP down
 * (D: the plot's GPUs, which name the lanes, and its range). */
double svg_kernel_lanes_height(const struct kernel_lanes *l);
void svg_kernel_lanes_draw(FILE *f, const struct kernel_lanes *l, const struct plot_data *d, double left,
                           double right, double top);

/* Writes the whole SVG document. A (the analyzed windows) may be NULL. */
void svg_plot_write(FILE *f, const struct plot_data *d, const struct analysis *a,
                    const struct svg_plot_options *o);

#endif
