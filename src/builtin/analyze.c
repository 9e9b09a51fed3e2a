/*
 * builtin/analyze.c — `flinch analyze`: options, then analysis_run() and
 * report_write(), or the original's arithmetic with --method seed.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "builtin.h"
#include "diag.h"
#include "hosts.h"
#include "report.h"
#include "seed_method.h"

static void usage(FILE *out)
{
    fprintf(out,
        "usage: flinch analyze --csv TRACE.csv --start LABEL --end LABEL [options]\n"
        "       flinch analyze --csv TRACE.csv --range NAME [--domain D] [options]\n"
        "       flinch analyze [HOST=]TRACE.csv [HOST=]TRACE2.csv... --start HOST:LABEL --end HOST:LABEL\n"
        "\n"
        "Duration, exact GPU energy, utilization, host CPU and a verdict (compute, waiting,\n"
        "host-cpu, mixed, inconclusive) for every window between a --start MARK and the\n"
        "next --end MARK. The first three lines are the original analyze_trace.py's.\n"
        "\n"
        "  --csv PATH             the trace (flinch's or nvml_trace.py's); also as an argument;\n"
        "                         several traces (one per host, [HOST=]PATH) are aligned on\n"
        "                         t_wall_ns, and HOST:LABEL takes a mark from one host only\n"
        "  --start LABEL          MARK label that starts a window\n"
        "  --end LABEL            MARK label that ends it (the next one at or after the start)\n"
        "  --range NAME           instead of --start/--end: every range NAME (NVTX, flinch.window),\n"
        "                         start and end paired by the range id in column mark_attrs\n"
        "  --domain NAME          with --range: only ranges of that NVTX domain ('' the default)\n"
        "  --category NAME        with --range: only ranges whose start has that NVTX category\n"
        "                         (its registered name, else its number)\n"
        "  --max-open N           at most N windows open at once: past it the oldest start is\n"
        "                         dropped, counted as dropped_starts (100000)\n"
        "  --method exact|seed    exact (default): energy counter, else instantaneous, else\n"
        "                         averaged power, integrated over exactly [start, end];\n"
        "                         seed: the original's arithmetic and output, to compare\n"
        "  --windows              an answer line per window (at most 20), the summary, then a\n"
        "                         table row per window with the evidence's first clause\n"
        "  -v, --verbose          keep the evidence lines that carry nothing for this trace\n"
        "                         (zero PCIe traffic, no copies, idle threads; JSON keeps them)\n"
        "  --format text|csv|json text (default), or one CSV row / JSON object per window\n"
        "  --idle-window S E      the GPU's idle power is its mean power between MARKs S and E\n"
        "  --idle-w W             idle power level (default: 5th percentile of the trace)\n"
        "  --busy-w W             busy power level (default: 95th percentile, or the maximum,\n"
        "                         or the enforced power limit, whichever stands clear of idle)\n"
        "  --compute-frac F       instantaneous power at or above idle + F x (busy - idle)\n"
        "                         says the GPU is busy at that instant (0.5)\n"
        "  --idle-frac F          at or below idle + F x (busy - idle) it says idle; between\n"
        "                         the two, power has no say and utilization decides (0.15)\n"
        "  --cpu-busy-pct P       no traced tree (marks from a FIFO): GPU idle while the whole\n"
        "                         host is >= P %% busy is host-cpu (90; above 100: never); with\n"
        "                         --pid/-- CMD only the job's own CPU counts, P names a\n"
        "                         saturated host in the evidence\n"
        "  --proc-busy-cores C    GPU idle while the traced process tree runs, or runs plus\n"
        "                         waits for a CPU (CPU-starved), >= C cores: host-cpu (0.5)\n"
        "  --class-frac F         a class (compute, host-cpu, waiting) holding >= F of a\n"
        "                         window's time names its verdict, else mixed (0.667)\n"
        "  --copy-gbps G          waiting while PCIe moves >= G GB/s (to + from the host)\n"
        "                         is waiting on host<->GPU copies (1)\n"
        "  -h, --help             this text\n"
        "\n"
        "exit status: 0 ok; 2 bad usage, malformed trace, missing MARK, no window.\n");
}

static int parse_num(const char *opt, const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || isnan(v) || v < 0) {
        diag_error("%s: not a non-negative number: '%s'", opt, s);
        return -1;
    }
    *out = v;
    return 0;
}

int cmd_analyze(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "csv", required_argument, NULL, 'c' },
        { "start", required_argument, NULL, 's' },
        { "end", required_argument, NULL, 'e' },
        { "range", required_argument, NULL, 'r' },
        { "domain", required_argument, NULL, 'd' },
        { "category", required_argument, NULL, 'g' },
        { "max-open", required_argument, NULL, 'X' },
        { "method", required_argument, NULL, 'm' },
        { "windows", no_argument, NULL, 'w' },
        { "verbose", no_argument, NULL, 'v' },
        { "format", required_argument, NULL, 'f' },
        { "idle-window", required_argument, NULL, 'I' },
        { "idle-w", required_argument, NULL, 'i' },
        { "busy-w", required_argument, NULL, 'b' },
        { "compute-frac", required_argument, NULL, 'C' },
        { "idle-frac", required_argument, NULL, 'F' },
        { "cpu-busy-pct", required_argument, NULL, 'P' },
        { "class-frac", required_argument, NULL, 'K' },
        { "proc-busy-cores", required_argument, NULL, 'R' },
        { "copy-gbps", required_argument, NULL, 'G' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct analysis_options o;
    analysis_default_options(&o);
    struct report_options ro = { REPORT_TEXT, 0, 0 };
    const char *files[ANALYSIS_MAX_HOSTS];
    int nfiles = 0;
    int seed = 0, ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, ":hv", longopts, NULL)) != -1) {
        int bad = 0;
        switch (ch) {
        case 'c':
            if (nfiles == ANALYSIS_MAX_HOSTS) {
                diag_error("at most %d traces", ANALYSIS_MAX_HOSTS);
                return EXIT_USAGE;
            }
            files[nfiles++] = optarg;
            break;
        case 's': o.start_label = optarg; break;
        case 'e': o.end_label = optarg; break;
        case 'r': o.range_name = optarg; break;
        case 'd': o.range_domain = optarg; break;
        case 'g': o.range_category = optarg; break;
        case 'X': bad = analysis_parse_max_open(optarg, &o.max_open); break;
        case 'w': ro.windows_table = 1; break;
        case 'v': ro.verbose = 1; break;
        case 'm':
            if (strcmp(optarg, "seed") == 0)
                seed = 1;
            else if (strcmp(optarg, "exact") == 0)
                seed = 0;
            else {
                diag_error("--method: expected exact or seed, got '%s'", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'f':
            if (strcmp(optarg, "text") == 0)
                ro.format = REPORT_TEXT;
            else if (strcmp(optarg, "csv") == 0)
                ro.format = REPORT_CSV;
            else if (strcmp(optarg, "json") == 0)
                ro.format = REPORT_JSON;
            else {
                diag_error("--format: expected text, csv or json, got '%s'", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'I':
            if (optind >= argc) {
                diag_error("--idle-window needs two labels: --idle-window START END");
                return EXIT_USAGE;
            }
            o.idle_start = optarg;
            o.idle_end = argv[optind++];
            break;
        case 'i': bad = parse_num("--idle-w", optarg, &o.idle_w); break;
        case 'b': bad = parse_num("--busy-w", optarg, &o.busy_w); break;
        case 'C': bad = parse_num("--compute-frac", optarg, &o.compute_frac); break;
        case 'F': bad = parse_num("--idle-frac", optarg, &o.idle_frac); break;
        case 'P': bad = parse_num("--cpu-busy-pct", optarg, &o.cpu_busy_pct); break;
        case 'R': bad = parse_num("--proc-busy-cores", optarg, &o.proc_busy_cores); break;
        case 'K':
            bad = parse_num("--class-frac", optarg, &o.class_frac);
            if (!bad && (o.class_frac <= 0.5 || o.class_frac > 1)) {
                diag_error("--class-frac: must be above 0.5 and at most 1, got '%s'", optarg);
                bad = 1;
            }
            break;
        case 'G':
            bad = parse_num("--copy-gbps", optarg, &o.copy_gbps);
            if (!bad && !(o.copy_gbps > 0 && o.copy_gbps <= 1000)) {
                diag_error("--copy-gbps: must be above 0 and at most 1000, got '%s'", optarg);
                bad = 1;
            }
            break;
        case 'h': usage(stdout); return EXIT_OK;
        default: return diag_bad_option(ch, argv);
        }
        if (bad)
            return EXIT_USAGE;
    }
    while (optind < argc) {
        if (nfiles == ANALYSIS_MAX_HOSTS) {
            diag_error("at most %d traces", ANALYSIS_MAX_HOSTS);
            return EXIT_USAGE;
        }
        files[nfiles++] = argv[optind++];
    }
    if (analysis_range_options(&o) != 0)
        return EXIT_USAGE;
    /* Range ids are PID.N, unique within one recording host only, and a
     * window opened on one host says nothing about which other hosts'
     * GPUs it covers: several traces with --range are refused, not guessed. */
    if (o.range_name && nfiles > 1) {
        diag_error("--range pairs the ranges of one trace, and %d were given: analyze each "
                   "trace alone, or use --start HOST:LABEL --end HOST:LABEL across traces", nfiles);
        return EXIT_USAGE;
    }
    if (o.range_name && seed) {
        diag_error("--range works with --method exact only");
        return EXIT_USAGE;
    }
    if (!nfiles || !o.start_label || !o.end_label) {
        diag_error("--csv, --start and --end are required (see --help)");
        return EXIT_USAGE;
    }
    if (seed && nfiles > 1) {
        diag_error("--method seed reads one trace");
        return EXIT_USAGE;
    }
    if (seed)
        return seed_analyze(files[0], o.start_label, o.end_label, stdout);
    struct analysis a;
    struct host_trace hosts[ANALYSIS_MAX_HOSTS];   /* a.host_names point here */
    int rc;
    if (nfiles == 1) {
        rc = analysis_run(&o, files[0], &a);
    } else {
        char err[HOST_ERROR_MAX];
        for (int i = 0; i < nfiles; i++)
            if (host_trace_parse(files[i], &hosts[i], err, sizeof err) != 0) {
                diag_error("%s", err);
                return EXIT_USAGE;
            }
        rc = analysis_run_hosts(&o, hosts, nfiles, &a);
    }
    if (rc == EXIT_OK) {
        report_write(stdout, &a, &ro);
        if (fflush(stdout) != 0) {
            diag_error("writing the report: write error");
            rc = EXIT_RUNTIME;
        }
    }
    analysis_free(&a);
    return rc;
}
