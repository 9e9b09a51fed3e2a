/*
 * builtin/export.c — `flinch export` (--format perfetto, the only format): one or
 * more traces (one per host) as Chrome trace-event JSON.
 *
 * Owns: the command line and the order of the passes. Several traces: per
 * trace, one pass to measure its clock offset (hosts.h), then the origin
 * of the shared timeline, then per trace one pass (perfetto_pass.h)
 * writing its events and feeding its windows' analysis. One trace is read
 * once where its output can be taken back (a file, safe_output_hold):
 * the figures its events need before they are written (its earliest time,
 * its host name) are guessed from its first rows and checked against the
 * whole trace after the pass, which is done again in the rare trace where
 * they differ (a row earlier than all the first ones), and a trace that
 * fails half-way leaves nothing, as when it was measured first. To a pipe
 * or a terminal it is measured first. Default windows: infer_start ->
 * first_token where a trace has both labels.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "builtin.h"
#include "diag.h"
#include "hosts.h"
#include "labels_seen.h"
#include "path_identity.h"
#include "perfetto_export.h"
#include "perfetto_pass.h"
#include "safe_output.h"
#include "threads_file.h"
#include "trace_limits.h"
#include "trace_reader.h"

static const char usage[] =
    "usage: flinch export TRACE.csv... -o OUT.json [options]\n"
    "\n"
    "Writes Chrome trace-event JSON for ui.perfetto.dev or chrome://tracing:\n"
    "per host a 'host CPU (HOST)' process (CPU counters, MARKs, EVENTs,\n"
    "analyzed windows) and one 'GPU N (HOST)' process per GPU (power,\n"
    "utilization, clock, memory, temperature counters).\n"
    "\n"
    "Several traces (one per host) are aligned on t_wall_ns: each trace's\n"
    "offset is the median of t_wall_ns - t_mono_ns over its rows, so the\n"
    "hosts' clocks must be synchronised (NTP/PTP); the offsets are printed on\n"
    "stderr (with several traces). A trace is named HOST=PATH, or after its\n"
    "file name without .csv.\n"
    "\n"
    "  -f, --format FMT    output format: perfetto (the default; the only one)\n"
    "  -o, --output FILE   the JSON to write (required; - for stdout); written to a\n"
    "                      temporary file and renamed into place; a symlink or\n"
    "                      an input trace is refused\n"
    "      --start LABEL   MARK label that opens a window (default: infer_start,\n"
    "                      where a trace has both infer_start and first_token)\n"
    "      --end LABEL     MARK label that closes it (default: first_token)\n"
    "      --range NAME    windows are the ranges NAME (NVTX, flinch.window), paired\n"
    "                      by their range id (column mark_attrs)\n"
    "      --domain NAME   with --range: only that NVTX domain ('' the default)\n"
    "      --category C    with --range: only ranges whose start has NVTX category C\n"
    "                      (its registered name, else its number)\n"
    "      --no-windows    export no windows\n"
    "      --max-open N    at most N windows open at once; past it the oldest start\n"
    "                      is dropped (100000; see flinch analyze --help)\n"
    "  -q, --quiet         do not print the clock offsets of several traces\n"
    "  -h, --help          this help\n";

/* -o is none of the traces nor their .threads and .kernels files, by any name. 0, or
 * -1 with ERR set. */
static int check_paths(const struct host_trace *hosts, int n, const char *out_path, char *err,
                       size_t errlen)
{
    struct path_role *paths = calloc((size_t)(3 * n + 1), sizeof *paths);
    char (*threads)[PATH_MAX + sizeof THREADS_FILE_SUFFIX] = calloc((size_t)n, sizeof *threads);
    char (*kernels)[PATH_MAX + sizeof ".kernels"] = calloc((size_t)n, sizeof *kernels);
    int rc = -1;
    snprintf(err, errlen, "out of memory");
    if (paths && threads && kernels) {
        for (int i = 0; i < n; i++) {
            int from_stdin = strcmp(hosts[i].path, "-") == 0;
            snprintf(threads[i], sizeof threads[i], "%s%s", hosts[i].path, THREADS_FILE_SUFFIX);
            snprintf(kernels[i], sizeof kernels[i], "%s.kernels", hosts[i].path);
            paths[3 * i] = (struct path_role){ "the input", from_stdin ? NULL : hosts[i].path, 0 };
            paths[3 * i + 1] = (struct path_role){ "the input's threads file",
                                                   from_stdin ? NULL : threads[i], 0 };
            paths[3 * i + 2] = (struct path_role){ "the input's kernels file",
                                                   from_stdin ? NULL : kernels[i], 0 };
        }
        paths[3 * n] = (struct path_role){ "", strcmp(out_path, "-") == 0 ? NULL : out_path, 1 };
        rc = path_identity_check(paths, 3 * n + 1, err, errlen);
    }
    free(paths);
    free(threads);
    free(kernels);
    return rc;
}

/* The rows a guess reads: past the recorder's identity EVENTs. */
#define GUESS_ROWS 4096

/* One trace's figures for its events before it is measured: its first
 * rows' earliest time and host name, and offset 0 (one trace's times are
 * relative to its own earliest row: its offset cancels out). Standard
 * input is kept for the passes. 0, or -1 with ERR set. */
static int guess_events(struct host_trace *h, char *err, size_t errlen)
{
    if (strcmp(h->path, "-") == 0 && csv_spool_stdin() != 0) {
        snprintf(err, errlen, "-: cannot keep standard input for a second pass: %s", strerror(errno));
        return -1;
    }
    return host_trace_guess(h, GUESS_ROWS, err, errlen);
}

/* Whether the events written with GUESS are those MEASURED gives: the same
 * name and earliest time, and the shared timeline (t_mono_ns + offset)
 * unclamped over the rows' times, so that every row's time less the
 * origin is its t_mono_ns less the earliest, as with offset 0. */
static int unclamped(int64_t t, int64_t offset)
{
    int64_t r;
    return !__builtin_add_overflow(t, offset, &r) && r >= -TRACE_NS_MAX && r <= TRACE_NS_MAX;
}

static int guess_holds(const struct host_trace *guess, const struct host_trace *measured)
{
    return strcmp(guess->name, measured->name) == 0 && guess->min_mono_ns == measured->min_mono_ns &&
           unclamped(measured->min_mono_ns, measured->wall_offset_ns) &&
           unclamped(measured->max_mono_ns, measured->wall_offset_ns);
}

int cmd_export(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "format", required_argument, NULL, 'f' },
        { "output", required_argument, NULL, 'o' },
        { "start", required_argument, NULL, 's' },
        { "end", required_argument, NULL, 'e' },
        { "range", required_argument, NULL, 'r' },
        { "domain", required_argument, NULL, 'd' },
        { "category", required_argument, NULL, 'g' },
        { "no-windows", no_argument, NULL, 'n' },
        { "max-open", required_argument, NULL, 'X' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *format = NULL, *out_path = NULL, *start = NULL, *end = NULL, *range = NULL,
               *domain = NULL, *category = NULL;
    int no_windows = 0, quiet = 0, c;
    long max_open = ANALYSIS_MAX_OPEN_DEFAULT;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":f:o:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'f': format = optarg; break;
        case 'o': out_path = optarg; break;
        case 's': start = optarg; break;
        case 'e': end = optarg; break;
        case 'r': range = optarg; break;
        case 'd': domain = optarg; break;
        case 'g': category = optarg; break;
        case 'n': no_windows = 1; break;
        case 'X': if (analysis_parse_max_open(optarg, &max_open)) return EXIT_USAGE; break;
        case 'q': quiet = 1; break;
        case 'h': fputs(usage, stdout); return EXIT_OK;
        default: return diag_bad_option(c, argv);
        }
    }
    if (format && strcmp(format, "perfetto") != 0) {
        diag_error("unknown --format '%s' (known: perfetto)", format);
        return EXIT_USAGE;
    }
    if (!out_path) {
        diag_error("no output file: -o OUT.json (see --help)");
        return EXIT_USAGE;
    }
    if (optind == argc) {
        diag_error("no trace given (see --help)");
        return EXIT_USAGE;
    }
    if (analysis_check_window_flags(&start, &end, range, domain, category, no_windows) != 0)
        return EXIT_USAGE;
    int explicit_labels = start != NULL;
    if (!start && !no_windows) {
        start = "infer_start";
        end = "first_token";
    }
    int n = argc - optind;
    struct host_trace *hosts = calloc((size_t)n + 1, sizeof *hosts);
    char err[HOST_ERROR_MAX];
    int rc = 0;
    if (!hosts) {
        diag_error("out of memory");
        return EXIT_RUNTIME;
    }
    /* One trace is read once where its output can be taken back: its
     * events are written as it is measured, with the figures guessed from
     * its first rows (guess_events). Several traces are measured first,
     * each offset needing all its rows, and so is one whose output cannot
     * wait (a pipe, a terminal): nothing reaches it before the trace has
     * been read whole. */
    int single = n == 1 && safe_output_can_hold(out_path);
    for (int i = 0; i < n && rc == 0; i++)
        if (host_trace_parse(argv[optind + i], &hosts[i], err, sizeof err) != 0 ||
            (!single && host_trace_measure(&hosts[i], err, sizeof err) != 0) ||
            (single && guess_events(&hosts[i], err, sizeof err) != 0)) {
            diag_error("%s", err);
            rc = EXIT_USAGE;
        }
    if (rc == 0)
        hosts_adopt_recorded_names(hosts, n);
    if (rc == 0 && hosts_check(hosts, n, err, sizeof err) != 0) {
        diag_error("%s", err);
        rc = EXIT_USAGE;
    }
    if (rc != 0) {
        free(hosts);
        return rc;
    }
    int64_t origin = 0;
    for (int i = 0; i < n; i++) {
        int64_t first = host_shared_ns(&hosts[i], hosts[i].min_mono_ns);
        if (i == 0 || first < origin)
            origin = first;
        if (!quiet && n > 1)   /* one trace has nothing to be aligned with */
            fprintf(stderr, "%s: host %s: %s: clock offset t_wall_ns - t_mono_ns = %" PRId64
                    " ns (median of %ld rows, spread %" PRId64 " ns)%s\n", diag_prog(),
                    hosts[i].name, hosts[i].path, hosts[i].wall_offset_ns, hosts[i].rows,
                    hosts[i].offset_spread_ns, hosts[i].has_wall ? "" : "; no t_wall_ns: offset 0");
    }
    const char **inputs = malloc(sizeof *inputs * (size_t)n);
    struct safe_output out = { 0 };
    char oerr[700];
    for (int i = 0; inputs && i < n; i++)
        inputs[i] = hosts[i].path;
    if (!inputs) {
        diag_error("out of memory");
        free(hosts);
        return EXIT_RUNTIME;
    }
    if (check_paths(hosts, n, out_path, oerr, sizeof oerr) != 0 ||
        safe_output_open(&out, out_path, inputs, n, oerr, sizeof oerr) != 0 ||
        (single && safe_output_hold(&out, oerr, sizeof oerr) != 0)) {
        /* a trace that does not read is said first, as where it is
         * measured before the output is opened */
        if (single && host_trace_measure(&hosts[0], err, sizeof err) != 0)
            diag_error("%s", err);
        else
            diag_error("%s", oerr);
        if (out.f)
            safe_output_abort(&out);
        free(inputs);
        free(hosts);
        return EXIT_USAGE;
    }
    free(inputs);
    FILE *f = out.f;
    perfetto_begin(f);
    int windowed = 0, nseen = 0;
    char *seen[LABELS_SEEN_MAX];
    struct export_windows ew = { start, end, range, domain, category, max_open };
    for (int i = 0; i < n && rc == 0; i++) {
        struct perfetto_pass pass = { .f = f, .hosts = hosts, .h = i, .origin_ns = origin,
                                      .windows = &ew, .labels_seen = seen, .nlabels_seen = &nseen };
        struct host_trace *measured = &hosts[n];     /* the spare slot */
        if (single) {
            *measured = hosts[0];
            pass.measure = measured;
        }
        rc = perfetto_pass_rows(&pass);
        if (rc == 0 && single) {
            /* the whole trace's figures; where the events' guess was not
             * theirs, the trace is written again with them */
            hosts_adopt_recorded_names(measured, 1);
            int held = guess_holds(&hosts[0], measured);
            hosts[0] = *measured;
            origin = pass.origin_ns = host_shared_ns(&hosts[0], hosts[0].min_mono_ns);
            if (!held) {
                perfetto_pass_drop(&pass);
                for (int k = 0; k < nseen; k++)
                    free(seen[k]);
                nseen = 0;
                if (safe_output_restart(&out, oerr, sizeof oerr) != 0) {
                    diag_error("%s", oerr);
                    rc = EXIT_RUNTIME;
                    break;
                }
                perfetto_begin(f);
                pass = (struct perfetto_pass){ .f = f, .hosts = hosts, .h = i, .origin_ns = origin,
                                               .windows = &ew, .labels_seen = seen,
                                               .nlabels_seen = &nseen };
                rc = perfetto_pass_rows(&pass);
            }
        }
        if (rc == 0)
            rc = perfetto_pass_finish(&pass, hosts, &windowed);
    }
    perfetto_end(f);
    char list[512];
    labels_seen_format(seen, nseen, list, sizeof list);
    if (rc == 0 && explicit_labels && windowed == 0) {
        /* as analyze and plot say it: the labels the traces do hold */
        if (nseen)
            diag_error("no trace has both '%s' and '%s' MARKs (labels seen: %s)", start, end, list);
        else
            diag_error("no trace has both '%s' and '%s' MARKs (no MARK rows at all)", start, end);
        rc = EXIT_USAGE;
    }
    if (rc == 0 && !explicit_labels && !no_windows && windowed == 0) {
        /* the default labels are absent: say so, as analyze does */
        diag_warn("no windows exported: no trace has both 'infer_start' and 'first_token' MARKs "
                  "(the default window labels; labels seen: %s); name the labels with --start "
                  "and --end, or pass --no-windows", nseen ? list : "none, no MARK rows at all");
    }
    for (int i = 0; i < nseen; i++)
        free(seen[i]);
    if (rc != 0) {
        safe_output_abort(&out);   /* the old file, if any, stays */
    } else if (safe_output_commit(&out, oerr, sizeof oerr) != 0) {
        diag_error("%s", oerr);
        rc = EXIT_RUNTIME;
    }
    free(hosts);
    return rc;
}
