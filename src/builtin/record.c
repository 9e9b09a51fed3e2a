/*
 * builtin/record.c — `flinch record`: the command line. Parses and checks
 * the options (the original nvml_trace.py's flags and defaults first) and
 * hands them to the recorder (src/recorder.c).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <limits.h>
#include <unistd.h>

#include "builtin.h"
#include "diag.h"
#include "kernels_out.h"
#include "mark_line.h"
#include "metrics_text.h"
#include "nvtx_filter.h"
#include "path_identity.h"
#include "record_bridges.h"
#include "recorder.h"
#include "thread_sampler.h"
#include "threads_file.h"
#include "utf8.h"

static void usage(FILE *out)
{
    fprintf(out,
        "usage: flinch record --out FILE [options] [-- CMD ARGS...]\n"
        "\n"
        "Samples NVIDIA GPUs through NVML (plus host CPU and Intel RAPL) every\n"
        "--interval-ms into a CSV, with MARK rows from other processes via a FIFO.\n"
        "Writes a 'begin' MARK at the start and an 'end' MARK at the end.\n"
        "\n"
        "options:\n"
        "  -o, --out FILE         trace CSV to write (required); appended to if it\n"
        "                         exists with the same header (locked while recording)\n"
        "      --force-append     append even to a --out owned by another user or\n"
        "                         writable by others (refused otherwise)\n"
        "  -g, --gpu SPEC         GPU index, list (0,2) or 'all' (default 0); one\n"
        "                         SAMPLE row per GPU per tick. Indices are NVML's,\n"
        "                         not CUDA's: also GPU-UUID, a PCI bus id (18:00.0),\n"
        "                         cuda (the GPUs CUDA_VISIBLE_DEVICES lets CUDA see)\n"
        "                         or cuda:N (CUDA's device N). auto (with CMD or\n"
        "                         --pid): each GPU the process tree opens a compute\n"
        "                         context on, from when it appears (checked every\n"
        "                         500 ms)\n"
        "  -i, --interval-ms N    sampling interval in ms (default 10)\n"
        "      --dither           shift each tick by a pseudo-random 0..1 interval\n"
        "                         (same tick count), so analyze can place the energy\n"
        "                         counter's updates to better than a tick (default)\n"
        "      --no-dither        ticks exactly on the interval\n"
        "      --linger-ms N      after the stop (CMD exited, --seconds, the first\n"
        "                         signal), keep sampling until the energy counter\n"
        "                         has updated 3 times after the last client mark,\n"
        "                         at most N ms (default 500; 0: off); `end` stays at\n"
        "                         the stop, a second signal stops at once\n"
        "  -s, --seconds N        record N seconds (default 30; 0: until SIGINT,\n"
        "                         SIGTERM or SIGHUP; with CMD: until CMD exits)\n"
        "      --marks-fifo PATH  read MARK labels from this FIFO, one per line, or\n"
        "                         'LABEL<TAB>CLOCK_MONOTONIC_NS' (created if absent)\n"
        "      --marks-mode OCTAL mode of a FIFO flinch creates (default 0600)\n"
        "      --rapl FILE        RAPL counter for the rapl_energy_uj column (default:\n"
        "                         the first package domain found)\n"
        "      --no-rapl          no RAPL values or columns\n"
        "      --rapl-root DIR    powercap tree to search (default /sys/class/powercap)\n"
        "      --proc-stat FILE   host CPU counters (default /proc/stat)\n"
        "      --cgroup-root DIR  cgroup v2 tree of --pid/CMD's cpu.stat (default: the\n"
        "                         cgroup2 mount, e.g. /sys/fs/cgroup)\n"
        "      --nvml-lib PATH    NVML library to load (default libnvidia-ml.so.1)\n"
        "      --pid PID          also record this process's CPU time and state, and its\n"
        "                         whole tree's (descendants too) and busiest thread\n"
        "      --nvtx[=FILTER]    with CMD: record its NVTX marks and ranges (the bridge\n"
        "                         build/libflinch_nvtx.so through NVTX_INJECTION64_PATH);\n"
        "                         FILTER: name=GLOB,name!=GLOB,name~RE,domain=GLOB,\n"
        "                         category=GLOB (its name or number),...,rate=N\n"
        "      --nvtx-replace     use the bridge even if NVTX_INJECTION64_PATH is set\n"
        "      --cuda             with CMD: record its GPU kernels, copies and memsets\n"
        "                         through CUPTI (build/libflinch_cuda.so through\n"
        "                         CUDA_INJECTION64_PATH) into FILE.kernels. Opt-in: CUPTI\n"
        "                         before 13.3 allows one subscriber per process, so a\n"
        "                         torch.profiler or Nsight started later in CMD fails\n"
        "                         (CUPTI error 39)\n"
        "      --cuda-replace     use it even if CUDA_INJECTION64_PATH is set\n"
        "      --threads-ms N     with --pid or CMD: every N ms (default 100; 0: never)\n"
        "                         record each thread's state, wait channel and system\n"
        "                         call in the process tree into FILE.threads\n"
        "  -q, --quiet            no live status line on a terminal\n"
        "\n");
    fputs(
        "live answers and metrics (flinch-record(1): LIVE ANSWERS, FOR THE FLEET):\n"
        "      --window NAME=START:END  a named window from MARK START to MARK END\n"
        "                         (repeatable, up to 16; NAME: any text a mark label\n"
        "                         may be, spaces too, no '='; cut to 63 bytes as a label)\n"
        "      --start A --end B  the window analyze's --start/--end give, named A:B\n"
        "      --range NAME       every range NAME (NVTX, flinch.window), paired by id as\n"
        "                         analyze --range does; repeatable, named NAME\n"
        "      --live             print a line per window as it finishes: duration,\n"
        "                         energy (equal to flinch analyze's), verdict\n"
        "      --idle-w W, --busy-w W  power levels for the live verdicts (default:\n"
        "                         learned from the readings so far)\n"
        "      --metrics [ADDR:]PORT  serve Prometheus metrics at /metrics (a bare\n"
        "                         PORT listens on 127.0.0.1 only; 0.0.0.0:PORT: all\n"
        "                         IPv4; [::1]:PORT, [::]:PORT: IPv6); OpenMetrics when\n"
        "                         the scrape's Accept header asks for it\n"
        "      --metrics-file PATH  write the same text to PATH (replaced atomically,\n"
        "                         every second and at exit; node_exporter textfile;\n"
        "                         its directory must exist)\n"
        "      --metrics-ranges N  metrics per range name (NVTX, flinch.window) for the\n"
        "                         first N names (default 32; 0: none); later names are\n"
        "                         counted under range=\"other\"\n"
        "  -h, --help             this help\n"
        "\n"
        "  -- CMD ARGS...         run CMD with FLINCH_MARKS set to the marks FIFO (a\n"
        "                         private one unless --marks-fifo), record while it\n"
        "                         runs, exit with its status; SIGINT/SIGTERM are\n"
        "                         forwarded to it\n"
        "\n"
        "exit status: 0 ok; 1 write error (the trace, the metrics file, --live's\n"
        "output); 2 bad usage or could not start (no driver, no GPU, a bad or clashing\n"
        "path, too few descriptors); 3 a GPU fell off the bus (rows written are kept).\n"
        "With CMD: always CMD's status; flinch's own failures are said on stderr\n"
        "(and a gpu_lost EVENT row).\n", out);
}

enum {
    OPT_MARKS_FIFO = 256, OPT_MARKS_MODE, OPT_RAPL, OPT_NO_RAPL, OPT_RAPL_ROOT,
    OPT_PROC_STAT, OPT_CGROUP_ROOT, OPT_NVML_LIB, OPT_PID, OPT_FORCE_APPEND, OPT_DITHER, OPT_NVTX,
    OPT_NVTX_REPLACE, OPT_THREADS_MS, OPT_WINDOW, OPT_START, OPT_END, OPT_LIVE, OPT_IDLE_W,
    OPT_BUSY_W, OPT_METRICS, OPT_METRICS_FILE, OPT_RANGE, OPT_METRICS_RANGES,
    OPT_NO_DITHER, OPT_LINGER_MS, OPT_CUDA, OPT_CUDA_REPLACE
};

static const struct option long_opts[] = {
    { "out",         required_argument, NULL, 'o' },
    { "gpu",         required_argument, NULL, 'g' },
    { "interval-ms", required_argument, NULL, 'i' },
    { "seconds",     required_argument, NULL, 's' },
    { "marks-fifo",  required_argument, NULL, OPT_MARKS_FIFO },
    { "marks-mode",  required_argument, NULL, OPT_MARKS_MODE },
    { "rapl",        required_argument, NULL, OPT_RAPL },
    { "no-rapl",     no_argument,       NULL, OPT_NO_RAPL },
    { "rapl-root",   required_argument, NULL, OPT_RAPL_ROOT },
    { "proc-stat",   required_argument, NULL, OPT_PROC_STAT },
    { "cgroup-root", required_argument, NULL, OPT_CGROUP_ROOT },
    { "nvml-lib",    required_argument, NULL, OPT_NVML_LIB },
    { "pid",         required_argument, NULL, OPT_PID },
    { "force-append", no_argument,      NULL, OPT_FORCE_APPEND },
    { "dither",      no_argument,       NULL, OPT_DITHER },
    { "no-dither",   no_argument,       NULL, OPT_NO_DITHER },
    { "linger-ms",   required_argument, NULL, OPT_LINGER_MS },
    { "nvtx",        optional_argument, NULL, OPT_NVTX },
    { "nvtx-replace", no_argument,      NULL, OPT_NVTX_REPLACE },
    { "cuda",        no_argument,       NULL, OPT_CUDA },
    { "cuda-replace", no_argument,      NULL, OPT_CUDA_REPLACE },
    { "threads-ms",  required_argument, NULL, OPT_THREADS_MS },
    { "window",      required_argument, NULL, OPT_WINDOW },
    { "start",       required_argument, NULL, OPT_START },
    { "end",         required_argument, NULL, OPT_END },
    { "live",        no_argument,       NULL, OPT_LIVE },
    { "range",       required_argument, NULL, OPT_RANGE },
    { "idle-w",      required_argument, NULL, OPT_IDLE_W },
    { "busy-w",      required_argument, NULL, OPT_BUSY_W },
    { "metrics",     required_argument, NULL, OPT_METRICS },
    { "metrics-file", required_argument, NULL, OPT_METRICS_FILE },
    { "metrics-ranges", required_argument, NULL, OPT_METRICS_RANGES },
    { "quiet",       no_argument,       NULL, 'q' },
    { "help",        no_argument,       NULL, 'h' },
    { NULL, 0, NULL, 0 }
};

static int parse_long(const char *opt, const char *s, int base, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, base);
    if (end == s || *end || errno || v < lo || v > hi) {
        diag_error("--%s %s: expected an integer from %ld to %ld", opt, s, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

static char def_text[LIVE_MAX_DEFS][4 * 4096];

/* A window's NAME, a range's name, a window's MARK labels: what a mark
 * label may be (mark_line.h: 1..MARK_LABEL_MAX bytes, no control character,
 * no space at either end, since the FIFO strips them), and valid UTF-8, so
 * it is a valid Prometheus label value. Spaces inside are fine. */
static int check_name(const char *what, const char *s, size_t len, const char *arg)
{
    int ok = len > 0 && len <= MARK_LABEL_MAX && s[0] != ' ' && s[len - 1] != ' ';
    for (size_t i = 0; ok && i < len;) {
        int clen = utf8_char_len(s + i, len - i);
        ok = clen > 0 && (unsigned char)s[i] >= 0x20 && s[i] != 0x7f;
        i += clen > 0 ? (size_t)clen : 1;
    }
    if (!ok)
        diag_error("%s: the %s must be 1 to %d bytes of UTF-8 text without control characters "
                   "or a space at either end", arg, what, MARK_LABEL_MAX);
    return ok ? 0 : -1;
}

/* A window from --window NAME=START:END (start, end set), --range NAME
 * (start NULL) or --start/--end. Its `window` label value is NAME made a
 * label value (metrics_label_value: cut to 63 bytes), unique. */
static int add_window(struct live_hub_opts *h, const char *name, size_t nlen, const char *start,
                      size_t slen, const char *end, const char *arg)
{
    if (h->ndefs == LIVE_MAX_DEFS) {
        diag_error("%s: more than %d windows", arg, LIVE_MAX_DEFS);
        return -1;
    }
    if (check_name(start ? "window name" : "range name", name, nlen, arg) != 0)
        return -1;
    if (start && (check_name("start label", start, slen, arg) != 0
                  || check_name("end label", end, strlen(end), arg) != 0))
        return -1;
    char full[MARK_LABEL_MAX + 1], label[METRICS_NAME_MAX];
    snprintf(full, sizeof full, "%.*s", (int)nlen, name);
    metrics_label_value(label, full);
    char *t = def_text[h->ndefs];
    size_t llen = strlen(label);
    snprintf(t, sizeof def_text[0], "%s%c%.*s%c%s%c%s", label, 0, (int)slen, start ? start : "",
             0, end ? end : "", 0, full);
    for (int i = 0; i < h->ndefs; i++)
        if (strcmp(h->defs[i].name, t) == 0) {
            diag_error("%s: window name '%s' given twice", arg, t);
            return -1;
        }
    h->defs[h->ndefs].name = t;
    h->defs[h->ndefs].start = start ? t + llen + 1 : NULL;
    h->defs[h->ndefs].end = start ? t + llen + 1 + slen + 1 : NULL;
    h->defs[h->ndefs].range = start ? NULL : t + llen + 1 + 1 + 1;
    h->ndefs++;
    return 0;
}

static int parse_window(struct live_hub_opts *h, const char *arg)
{
    const char *eq = strchr(arg, '=');
    const char *colon = eq ? strchr(eq + 1, ':') : NULL;
    if (!eq || !colon) {
        diag_error("--window %s: expected NAME=START:END", arg);
        return -1;
    }
    return add_window(h, arg, (size_t)(eq - arg), eq + 1, (size_t)(colon - eq - 1), colon + 1,
                      "--window");
}

static int parse_watts(const char *opt, const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v) || v < 0 || v > 100000) {
        diag_error("--%s %s: expected watts from 0 to 100000", opt, s);
        return -1;
    }
    *out = v;
    return 0;
}

/* No output of the recording (the trace, its .threads file, the marks
 * FIFO, the metrics file) is another of them or one of its inputs, by any
 * spelling (path_identity.h): checked before anything is opened. */
static int check_paths(const struct record_opts *o)
{
    char threads[PATH_MAX + sizeof THREADS_FILE_SUFFIX], err[PATH_MAX * 2 + 200];
    char kernels[PATH_MAX + sizeof KERNELS_FILE_SUFFIX];
    snprintf(threads, sizeof threads, "%s%s", o->out, THREADS_FILE_SUFFIX);
    snprintf(kernels, sizeof kernels, "%s%s", o->out, KERNELS_FILE_SUFFIX);
    const struct path_role paths[] = {
        { "--proc-stat", o->proc_stat, 0 },
        { "--rapl", o->no_rapl ? NULL : o->rapl_path, 0 },
        { "--out", o->out, 1 },
        { "--out's threads file", threads, 1 },
        { "--out's kernels file", o->cuda ? kernels : NULL, 1 },
        { "--marks-fifo", o->marks_fifo && *o->marks_fifo ? o->marks_fifo : NULL, 1 },
        { "--metrics-file", o->hub.metrics_file, 1 },
    };
    if (path_identity_check(paths, sizeof paths / sizeof paths[0], err, sizeof err) == 0)
        return 0;
    diag_error("%s", err);
    return -1;
}

int cmd_record(int argc, char **argv)
{
    const char *nvtx_filter_text = NULL;
    int nvtx = 0, nvtx_replace = 0, cuda_replace = 0;
    struct record_opts o = {
        .gpu_spec = "0", .interval_ms = 10, .seconds = 30.0, .marks_mode = 0600,
        .threads_ms = THREAD_SAMPLER_DEFAULT_MS, .linger_ms = 500, .dither = 1,
    };
    o.hub.idle_w = o.hub.busy_w = NAN;
    o.hub.metrics_ranges = METRICS_RANGES_DEFAULT;
    const char *start = NULL, *end = NULL;
    int seconds_given = 0;
    long v;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "+:o:g:i:s:qh", long_opts, NULL)) != -1) {
        switch (c) {
        case 'o': o.out = optarg; break;
        case 'g': o.gpu_spec = optarg; break;
        case 'i':
            if (parse_long("interval-ms", optarg, 10, 1, 3600000, &v) != 0)
                return EXIT_USAGE;
            o.interval_ms = (int)v;
            break;
        case 's': {
            char *end;
            errno = 0;
            o.seconds = strtod(optarg, &end);
            if (end == optarg || *end || errno || !isfinite(o.seconds) || o.seconds < 0) {
                diag_error("--seconds %s: expected a number of seconds >= 0", optarg);
                return EXIT_USAGE;
            }
            seconds_given = 1;
            break;
        }
        case OPT_MARKS_FIFO: o.marks_fifo = optarg; break;
        case OPT_MARKS_MODE:
            if (parse_long("marks-mode", optarg, 8, 0, 0777, &v) != 0)
                return EXIT_USAGE;
            o.marks_mode = (unsigned)v;
            break;
        case OPT_RAPL: o.rapl_path = optarg; break;
        case OPT_NO_RAPL: o.no_rapl = 1; break;
        case OPT_DITHER: o.dither = 1; break;
        case OPT_NO_DITHER: o.dither = 0; break;
        case OPT_LINGER_MS:
            if (parse_long("linger-ms", optarg, 10, 0, 60000, &v) != 0)
                return EXIT_USAGE;
            o.linger_ms = (int)v;
            break;
        case OPT_RAPL_ROOT: o.rapl_root = optarg; break;
        case OPT_PROC_STAT: o.proc_stat = optarg; break;
        case OPT_CGROUP_ROOT: o.cgroup_root = optarg; break;
        case OPT_NVML_LIB: o.nvml_lib = optarg; break;
        case OPT_PID:
            if (parse_long("pid", optarg, 10, 1, 0x7fffffff, &v) != 0)
                return EXIT_USAGE;
            o.pid = (pid_t)v;
            break;
        case OPT_FORCE_APPEND: o.force_append = 1; break;
        case OPT_NVTX: nvtx = 1; nvtx_filter_text = optarg; break;
        case OPT_NVTX_REPLACE: nvtx_replace = 1; break;
        case OPT_CUDA: o.cuda = 1; break;
        case OPT_CUDA_REPLACE: cuda_replace = 1; break;
        case OPT_THREADS_MS:
            if (parse_long("threads-ms", optarg, 10, 0, 60000, &v) != 0)
                return EXIT_USAGE;
            o.threads_ms = (int)v;
            break;
        case OPT_WINDOW:
            if (parse_window(&o.hub, optarg) != 0)
                return EXIT_USAGE;
            break;
        case OPT_START: start = optarg; break;
        case OPT_END: end = optarg; break;
        case OPT_LIVE: o.hub.live = 1; break;
        case OPT_RANGE:
            if (add_window(&o.hub, optarg, strlen(optarg), NULL, 0, NULL, "--range") != 0)
                return EXIT_USAGE;
            break;
        case OPT_IDLE_W:
            if (parse_watts("idle-w", optarg, &o.hub.idle_w) != 0)
                return EXIT_USAGE;
            break;
        case OPT_BUSY_W:
            if (parse_watts("busy-w", optarg, &o.hub.busy_w) != 0)
                return EXIT_USAGE;
            break;
        case OPT_METRICS: o.hub.metrics = optarg; break;
        case OPT_METRICS_FILE: o.hub.metrics_file = optarg; break;
        case OPT_METRICS_RANGES:
            if (parse_long("metrics-ranges", optarg, 10, 0, METRICS_RANGES_MAX, &v) != 0)
                return EXIT_USAGE;
            o.hub.metrics_ranges = (int)v;
            break;
        case 'q': o.quiet = 1; break;
        case 'h': usage(stdout); return EXIT_OK;
        default: return diag_bad_option(c, argv);
        }
    }
    if (optind < argc) {
        if (strcmp(argv[optind - 1], "--") != 0) {
            diag_error("unexpected argument '%s' (a command to wrap goes after --)", argv[optind]);
            return EXIT_USAGE;
        }
        o.cmd = argv + optind;
        if (!seconds_given)
            o.seconds = 0;
    }
    if (!o.out || !*o.out) {
        diag_error("--out FILE is required (see 'flinch record --help')");
        return EXIT_USAGE;
    }
    if ((start == NULL) != (end == NULL)) {
        diag_error("--start and --end go together (see --help)");
        return EXIT_USAGE;
    }
    if (start) {
        char name[MARK_LABEL_MAX + 1];
        int n = snprintf(name, sizeof name, "%s:%s", start, end);
        if (n < 0 || (size_t)n >= sizeof name) {
            diag_error("--start %s --end %s: labels too long to name the window; use "
                       "--window NAME=START:END", start, end);
            return EXIT_USAGE;
        }
        if (add_window(&o.hub, name, strlen(name), start, strlen(start), end, "--start/--end") != 0)
            return EXIT_USAGE;
    }
    if (o.hub.live && o.hub.ndefs == 0) {
        diag_error("--live needs a window: --start A --end B, --range NAME or --window "
                   "NAME=START:END");
        return EXIT_USAGE;
    }
    if ((!isnan(o.hub.idle_w) || !isnan(o.hub.busy_w)) && o.hub.ndefs == 0) {
        diag_error("--idle-w/--busy-w are for the live verdicts of a window (--live, --metrics)");
        return EXIT_USAGE;
    }
    if (o.hub.ndefs && !o.hub.live && !o.hub.metrics && !o.hub.metrics_file) {
        diag_error("a window (--window, --start/--end) is for --live, --metrics or --metrics-file");
        return EXIT_USAGE;
    }
    if (o.seconds > 0 && o.seconds * 1000.0 / o.interval_ms > 9e15) {
        diag_error("--seconds %g: too long", o.seconds);
        return EXIT_USAGE;
    }
    if (strcmp(o.gpu_spec, "auto") == 0 && !o.cmd && o.pid <= 0) {
        diag_error("--gpu auto records the GPUs a process tree computes on: add -- CMD ARGS... "
                   "or --pid PID");
        return EXIT_USAGE;
    }
    if (strcmp(o.gpu_spec, "auto") != 0 && strstr(o.gpu_spec, "auto")) {
        diag_error("--gpu %s: auto stands alone (it cannot be listed with other GPUs)", o.gpu_spec);
        return EXIT_USAGE;
    }
    if ((nvtx || nvtx_replace) && !o.cmd) {
        diag_error("--nvtx records the NVTX calls of a wrapped command: add -- CMD ARGS...");
        return EXIT_USAGE;
    }
    if (nvtx_replace && !nvtx) {
        diag_error("--nvtx-replace goes with --nvtx");
        return EXIT_USAGE;
    }
    if ((o.cuda || cuda_replace) && !o.cmd) {
        diag_error("--cuda records the GPU kernels of a wrapped command: add -- CMD ARGS...");
        return EXIT_USAGE;
    }
    if (cuda_replace && !o.cuda) {
        diag_error("--cuda-replace goes with --cuda");
        return EXIT_USAGE;
    }
    if (check_paths(&o) != 0)
        return EXIT_USAGE;
    if (o.cuda && record_setup_cuda(cuda_replace) != 0)
        return EXIT_USAGE;
    if (nvtx && record_setup_nvtx(nvtx_filter_text, nvtx_replace) != 0)
        return EXIT_USAGE;
    return recorder_run(&o);
}
