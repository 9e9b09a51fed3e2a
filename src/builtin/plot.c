/*
 * builtin/plot.c — `flinch plot`: a trace as one self-contained SVG.
 *
 * Owns: the command line and the one pass over the trace, whose rows go
 * to plot_data.h's series and to the windows' analysis (analysis_feed.h);
 * the drawing is svg_plot.h's. Default windows: infer_start -> first_token when the trace
 * has both labels, none otherwise.
 */
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analysis_feed.h"
#include "builtin.h"
#include "diag.h"
#include "path_identity.h"
#include "plot_data.h"
#include "safe_output.h"
#include "svg_plot.h"
#include "threads_file.h"

static const char usage[] =
    "usage: flinch plot TRACE.csv -o OUT.svg [options]   (TRACE - = standard input)\n"
    "\n"
    "Draws the trace as one self-contained SVG timeline: GPU power (instant\n"
    "solid, 1 s average dashed), GPU utilization, host CPU busy, the traced\n"
    "process's CPU (when recorded), MARKs as labelled lines and the analyzed\n"
    "windows shaded in their verdict's colour (hover for duration, energy and\n"
    "verdict). Long traces are reduced to min/max per pixel column.\n"
    "\n"
    "  -o, --output FILE   the SVG to write (required; - for stdout); written to a\n"
    "                      temporary file and renamed into place; a symlink or\n"
    "                      the trace itself is refused\n"
    "      --start LABEL   MARK label that opens a window (default: infer_start,\n"
    "                      when the trace has both infer_start and first_token)\n"
    "      --end LABEL     MARK label that closes it (default: first_token)\n"
    "      --range NAME    windows are the ranges NAME (NVTX, flinch.window), paired\n"
    "                      by their range id (column mark_attrs)\n"
    "      --domain NAME   with --range: only that NVTX domain ('' the default)\n"
    "      --category C    with --range: only ranges whose start has NVTX category C\n"
    "                      (its registered name, else its number)\n"
    "      --no-windows    draw no windows\n"
    "      --max-open N    at most N windows open at once; past it the oldest start\n"
    "                      is dropped (100000; see flinch analyze --help)\n"
    "      --from SEC      draw from SEC seconds after the first row (default 0)\n"
    "      --to SEC        ... up to SEC seconds (default: the last row)\n"
    "      --width PX      picture width in pixels (default 1200, 400..20000)\n"
    "      --height PX     picture height in pixels (default 720, 300..20000)\n"
    "      --title TEXT    title line (default: the trace's path)\n"
    "  -h, --help          this help\n";

static int parse_seconds(const char *opt, const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    /* a trace spans at most TRACE_NS_MAX ns (146 years) */
    if (errno || end == s || *end || !isfinite(v) || v < 0 || v > (double)TRACE_NS_MAX / 1e9) {
        diag_error("%s: not a number of seconds in 0..%.0f: '%s'", opt, (double)TRACE_NS_MAX / 1e9, s);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_pixels(const char *opt, const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 0) {
        diag_error("%s: not a number of pixels: '%s'", opt, s);
        return -1;
    }
    *out = (int)(v > 100000 ? 100000 : v);
    return 0;
}

int cmd_plot(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "output", required_argument, NULL, 'o' },
        { "start", required_argument, NULL, 's' },
        { "end", required_argument, NULL, 'e' },
        { "range", required_argument, NULL, 'r' },
        { "domain", required_argument, NULL, 'd' },
        { "category", required_argument, NULL, 'g' },
        { "no-windows", no_argument, NULL, 'n' },
        { "max-open", required_argument, NULL, 'X' },
        { "from", required_argument, NULL, 'F' },
        { "to", required_argument, NULL, 'T' },
        { "width", required_argument, NULL, 'W' },
        { "height", required_argument, NULL, 'H' },
        { "title", required_argument, NULL, 't' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *out_path = NULL, *start = NULL, *end = NULL, *range = NULL, *domain = NULL,
               *category = NULL;
    int no_windows = 0;
    long max_open = ANALYSIS_MAX_OPEN_DEFAULT;
    double from = NAN, to = NAN;
    struct svg_plot_options so = { 1200, 720, NULL };
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': out_path = optarg; break;
        case 's': start = optarg; break;
        case 'e': end = optarg; break;
        case 'r': range = optarg; break;
        case 'd': domain = optarg; break;
        case 'g': category = optarg; break;
        case 'n': no_windows = 1; break;
        case 'X': if (analysis_parse_max_open(optarg, &max_open)) return EXIT_USAGE; break;
        case 'F': if (parse_seconds("--from", optarg, &from)) return EXIT_USAGE; break;
        case 'T': if (parse_seconds("--to", optarg, &to)) return EXIT_USAGE; break;
        case 'W': if (parse_pixels("--width", optarg, &so.width)) return EXIT_USAGE; break;
        case 'H': if (parse_pixels("--height", optarg, &so.height)) return EXIT_USAGE; break;
        case 't': so.title = optarg; break;
        case 'h': fputs(usage, stdout); return EXIT_OK;
        default: return diag_bad_option(c, argv);
        }
    }
    if (optind + 1 != argc) {
        diag_error(optind == argc ? "no trace given (see --help)"
                                  : "exactly one trace, please (see --help)");
        return EXIT_USAGE;
    }
    if (!out_path) {
        diag_error("no output file: -o OUT.svg (see --help)");
        return EXIT_USAGE;
    }
    if (so.width < 400 || so.width > 20000 || so.height < 300 || so.height > 20000) {
        diag_error("--width must be 400..20000 and --height 300..20000 pixels");
        return EXIT_USAGE;
    }
    if (analysis_check_window_flags(&start, &end, range, domain, category, no_windows) != 0)
        return EXIT_USAGE;
    const char *trace = argv[optind];
    char threads[PATH_MAX + sizeof THREADS_FILE_SUFFIX], kernels[PATH_MAX + sizeof ".kernels"];
    int from_stdin = strcmp(trace, "-") == 0;
    snprintf(threads, sizeof threads, "%s%s", trace, THREADS_FILE_SUFFIX);
    snprintf(kernels, sizeof kernels, "%s.kernels", trace);
    const struct path_role paths[] = {
        { "the input", from_stdin ? NULL : trace, 0 },
        { "the input's threads file", from_stdin ? NULL : threads, 0 },
        { "the input's kernels file", from_stdin ? NULL : kernels, 0 },
        { "", strcmp(out_path, "-") == 0 ? NULL : out_path, 1 },
    };
    char err[700];
    if (path_identity_check(paths, 4, err, sizeof err) != 0) {
        diag_error("%s", err);
        return EXIT_USAGE;
    }
    if (from_stdin && csv_spool_stdin() != 0) {
        diag_error("-: cannot keep standard input for the second pass: %s", strerror(errno));
        return EXIT_RUNTIME;
    }
    struct safe_output out;
    if (safe_output_open(&out, out_path, &trace, 1, err, sizeof err) != 0) {
        diag_error("%s", err);
        return EXIT_USAGE;
    }
    /* one pass: the rows go to the series and to the windows' analysis,
     * which is dropped unless its labels turn out to be in the trace */
    struct plot_data d;
    struct trace_reader tr;
    int rc = plot_data_open(&d, trace, from, to, so.width - SVG_PLOT_MARGINS, &tr);
    if (rc != 0) {
        plot_data_free(&d);
        safe_output_abort(&out);
        return rc;
    }
    struct analysis a;
    struct analysis_feed af;
    struct analysis_options ao;
    analysis_default_options(&ao);
    ao.start_label = start ? start : "infer_start";
    ao.end_label = start ? end : "first_token";
    ao.range_name = range;
    ao.range_domain = domain;
    ao.range_category = category;
    ao.max_open = max_open;
    int feeding = start || !no_windows;
    if (feeding)
        analysis_feed_begin(&af, &ao, trace, &tr, &a);
    struct trace_row row;
    int rrc;
    while ((rrc = trace_reader_next(&tr, &row)) == 1) {
        plot_data_row(&d, &row);
        if (feeding)
            analysis_feed_row(&af, &row);
    }
    if (rrc < 0) {
        diag_error("%s", tr.error);
        rc = EXIT_USAGE;
    } else {
        rc = plot_data_close(&d);
    }
    if (rc == 0 && !start && !no_windows && d.has_label_infer_start && d.has_label_first_token) {
        start = "infer_start";
        end = "first_token";
    } else if (rc == 0 && !start && !no_windows) {
        /* the default labels are absent: say so, rather than draw no
         * windows without a word */
        char seen[512];
        labels_seen_format(d.labels_seen, d.nlabels_seen, seen, sizeof seen);
        diag_warn("no windows drawn: %s has no '%s' MARK (windows default to infer_start -> "
                  "first_token; labels seen: %s); name the labels with --start and --end, or pass "
                  "--no-windows",
                  trace, d.has_label_infer_start ? "first_token" : "infer_start",
                  d.nlabels_seen ? seen : "none, no MARK rows at all");
    }
    int have_a = 0;
    if (feeding) {
        int arc = analysis_feed_end(&af, rc == 0 && start);
        have_a = rc == 0 && start && arc == 0;
        if (rc == 0)
            rc = arc;
        if (!have_a)
            analysis_free(&a);   /* what it gathered */
    }
    trace_reader_close(&tr);
    if (rc != 0) {
        plot_data_free(&d);
        safe_output_abort(&out);
        return rc;
    }
    svg_plot_write(out.f, &d, have_a ? &a : NULL, &so);
    if (safe_output_commit(&out, err, sizeof err) != 0) {
        diag_error("%s", err);
        rc = EXIT_RUNTIME;
    }
    if (have_a)
        analysis_free(&a);
    plot_data_free(&d);
    return rc;
}
