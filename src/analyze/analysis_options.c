/*
 * analysis_options.c — analyze's options: their defaults, the check of
 * --start/--end/--range/--domain against each other, the --range labels
 * turned into window options, --max-open (shared by analyze, plot and
 * export), and the names of the energy sources.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "diag.h"

int analysis_check_window_flags(const char **start, const char **end, const char *range,
                                const char *domain, const char *category, int no_windows)
{
    struct analysis_options o;
    analysis_default_options(&o);
    o.start_label = *start;
    o.end_label = *end;
    o.range_name = range;
    o.range_domain = domain;
    o.range_category = category;
    if (analysis_range_options(&o) != 0)
        return -1;
    if ((o.start_label == NULL) != (o.end_label == NULL)) {
        diag_error("--start and --end go together (see --help)");
        return -1;
    }
    if (no_windows && o.start_label) {
        diag_error(range ? "--no-windows contradicts --range" : "--no-windows contradicts --start/--end");
        return -1;
    }
    *start = o.start_label;
    *end = o.end_label;
    return 0;
}

int analysis_range_options(struct analysis_options *o)
{
    if (o->range_domain && !o->range_name) {
        diag_error("--domain goes with --range (see --help)");
        return -1;
    }
    if (o->range_category && (!o->range_name || !o->range_category[0])) {
        diag_error(o->range_name ? "--category: empty category" : "--category goes with --range (see --help)");
        return -1;
    }
    if (!o->range_name)
        return 0;
    if (o->start_label || o->end_label) {
        diag_error("--range replaces --start and --end: give one or the other");
        return -1;
    }
    if (!o->range_name[0]) {
        diag_error("--range: empty range name");
        return -1;
    }
    o->start_label = o->end_label = o->range_name;
    return 0;
}

int analysis_parse_max_open(const char *s, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < 1 || v > ANALYSIS_MAX_OPEN_MAX) {
        diag_error("--max-open: not a whole number from 1 to %ld: '%s'", (long)ANALYSIS_MAX_OPEN_MAX, s);
        return -1;
    }
    *out = v;
    return 0;
}

void analysis_default_options(struct analysis_options *o)
{
    memset(o, 0, sizeof *o);
    o->idle_w = NAN;
    o->busy_w = NAN;
    o->compute_frac = 0.5;
    o->idle_frac = 0.15;
    o->cpu_busy_pct = 90;
    o->proc_busy_cores = 0.5;
    o->class_frac = 2.0 / 3.0;
    o->copy_gbps = 1;
    o->ring_samples = 4096;
    o->max_open = ANALYSIS_MAX_OPEN_DEFAULT;
}

const char *energy_source_name(enum energy_source s)
{
    switch (s) {
    case SOURCE_COUNTER: return "gpu_energy_mJ counter";
    case SOURCE_INSTANT: return "gpu_power_instant_W trapezoid";
    case SOURCE_AVERAGE: return "gpu_power_W trapezoid";
    case SOURCE_ESTIMATE: return "gpu_energy_mJ counter + step model";
    case SOURCE_NONE: break;
    }
    return "none";
}
