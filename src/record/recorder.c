/*
 * recorder.c — `flinch record`: sources -> rows -> trace file.
 *
 * Owns the order of things. Setup checks everything that can make the
 * recording pointless before writing a byte (NVML, the GPUs asked for, the
 * output header, the FIFO), then the main thread runs the schedule (ticker)
 * and samples on each tick: the GPUs first (several GPUs on gpu_pool's
 * threads, once reading them in turn gets slow), then per-tick sources once (host CPU, RAPL, the
 * watched process), then one SAMPLE row per GPU. The marks FIFO has its own
 * thread (mark_fifo) that writes MARK rows as they arrive, and the watched
 * process tree's thread states theirs (thread_sampler, into TRACE.threads).
 * Shutdown stops
 * the marks thread first, so nothing lands after the `end` mark.
 *
 * Signals only set flags: SIGINT/SIGTERM/SIGHUP end the recording (with a
 * wrapped command they are forwarded to it first and the recording ends
 * when it exits); SIGCHLD wakes the sleep so the end of CMD is seen at once.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup_cpu.h"
#include "child_cmd.h"
#include "clock.h"
#include "csv_writer.h"
#include "diag.h"
#include "gpu_auto.h"
#include "gpu_identity.h"
#include "gpu_pool.h"
#include "gpu_select.h"
#include "gpu_sampler.h"
#include "host_cpu.h"
#include "live_hub.h"
#include "live_line.h"
#include "mark_fifo.h"
#include "metrics_file.h"
#include "nvml_loader.h"
#include "proc_tree.h"
#include "proc_watch.h"
#include "rapl.h"
#include "recorder.h"
#include "recorder_internal.h"
#include "thread_sampler.h"
#include "ticker.h"
#include "trace_append.h"
#include "trace_limits.h"
#include "trace_row.h"

#define STATUS_EVERY_NS (250 * NS_PER_MS)


static volatile sig_atomic_t stop_signal;   /* last of SIGINT/SIGTERM/SIGHUP */
static volatile sig_atomic_t stop_count;

static void on_stop_signal(int sig)
{
    stop_signal = sig;
    stop_count++;
}

static void on_sigchld(int sig) { (void)sig; }

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_stop_signal;      /* no SA_RESTART: the sleep must end */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = on_sigchld;
    sa.sa_flags = SA_NOCLDSTOP;
    sigaction(SIGCHLD, &sa, NULL);
    /* A file-size limit or a closed pipe must be a write error, not death. */
    signal(SIGXFSZ, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
}

static int open_nvml(struct recorder *r)
{
    char err[1024];
    if (nvml_load(&r->nvml, r->o->nvml_lib, err, sizeof err) != 0) {
        diag_error("%s", err);
        return -1;
    }
    nvmlReturn_t rc = nvml_start(&r->nvml);
    if (rc != NVML_SUCCESS) {
        diag_error("cannot initialise NVML: %s", nvml_strerror(&r->nvml, rc));
        return -1;
    }
    unsigned count = 0;
    rc = r->nvml.device_count(&count);
    if (rc != NVML_SUCCESS) {
        diag_error("cannot count GPUs: %s", nvml_strerror(&r->nvml, rc));
        return -1;
    }
    if (count == 0) {
        diag_error("no NVIDIA GPU found (NVML reports 0 devices)");
        return -1;
    }
    if (strcmp(r->o->gpu_spec, "auto") == 0) {
        r->autogpu = 1;
        return gpu_auto_open(&r->autosel, &r->nvml, count);
    }
    unsigned idx[TRACE_MAX_GPUS];
    if (gpu_select(&r->nvml, r->o->gpu_spec, count, idx, &r->ngpu, TRACE_MAX_GPUS) != 0)
        return -1;
    /* Under --gpu all a GPU this user may not query (NO_PERMISSION: another
     * container's, or a restricted device node) is skipped with a warning;
     * a GPU asked for by number is an error. */
    int all = strcmp(r->o->gpu_spec, "all") == 0, n = 0;
    for (int i = 0; i < r->ngpu; i++) {
        rc = gpu_dev_open(&r->nvml, &r->gpus[n], idx[i], r->o->interval_ms);
        if (rc == NVML_ERROR_NO_PERMISSION && all) {
            diag_warn("GPU %u: %s; skipping it", idx[i], nvml_strerror(&r->nvml, rc));
            continue;
        }
        if (rc != NVML_SUCCESS) {
            diag_error("GPU %u: %s", idx[i], nvml_strerror(&r->nvml, rc));
            return -1;
        }
        gpu_identity_read(&r->nvml, r->gpus[n].handle, &r->ids[n]);
        n++;
    }
    r->ngpu = n;
    if (n == 0) {
        diag_error("--gpu all: no GPU this user may query");
        return -1;
    }
    return 0;
}

static int open_output(struct recorder *r)
{
    const char *cells[TRACE_ROW_MAX_COLS];
    char names[RAPL_MAX_DOMAINS][RAPL_NAME_MAX + 16];
    r->ncols = COL_COUNT + r->rapl.ndom;
    for (int i = 0; i < COL_COUNT; i++)
        cells[i] = trace_column_names[i];
    for (int i = 0; i < r->rapl.ndom; i++) {
        trace_rapl_column_name(r->rapl.dom[i].name, names[i], sizeof names[i]);
        cells[COL_COUNT + i] = names[i];
    }
    if (csv_format_row(r->header, sizeof r->header, cells, r->ncols) == 0) {
        diag_error("trace header too long");
        return -1;
    }
    return csv_out_open(&r->csv, r->o->out, r->header, r->o->force_append);
}

static int open_fifo(struct recorder *r)
{
    const char *path = r->o->marks_fifo;
    if ((!path || !*path) && r->o->cmd) {
        const char *tmp = getenv("TMPDIR");
        snprintf(r->private_dir, sizeof r->private_dir, "%s/flinch.XXXXXX",
                 tmp && *tmp && strlen(tmp) < 200 ? tmp : "/tmp");
        if (!mkdtemp(r->private_dir)) {
            diag_error("%s: cannot create a directory for the marks FIFO: %s",
                       r->private_dir, strerror(errno));
            r->private_dir[0] = '\0';
            return -1;
        }
        snprintf(r->fifo_path, sizeof r->fifo_path, "%s/marks", r->private_dir);
        path = r->fifo_path;
    } else if (path && *path) {
        snprintf(r->fifo_path, sizeof r->fifo_path, "%s", path);
    } else {
        return 0;
    }
    if (mark_fifo_open(&r->fifo, path, r->o->marks_mode) != 0)
        return -1;
    r->have_fifo = 1;
    return 0;
}

static void show_status(struct recorder *r, int64_t now, int final)
{
    if (!r->show_status || (!final && now < r->next_status_ns))
        return;
    r->next_status_ns = now + STATUS_EVERY_NS;
    char line[1024], mark[sizeof r->last_mark];
    recorder_last_mark(r, mark, sizeof mark);
    live_status_format(line, sizeof line, diag_prog(), (double)(now - r->start_ns) / 1e9,
                       csv_out_rows(&r->csv), r->ngpu ? (int)r->gpus[0].index : -1, r->last_power,
                       r->fifo_path, mark);  /* "": no FIFO */
    fprintf(stderr, "\r%s\033[K%s", line, final ? "\n" : "");
}

/* The schedule. Returns the exit code. */
static int run_loop(struct recorder *r)
{
    const struct record_opts *o = r->o;
    int64_t interval = (int64_t)o->interval_ms * NS_PER_MS;
    /* At least one tick: the first (and last) tick is always recorded, even
     * for --seconds shorter than half an interval. */
    int64_t total = o->seconds > 0 ? llround(o->seconds * 1000.0 / o->interval_ms) : INT64_MAX;
    if (total < 1)
        total = 1;
    int64_t end_ns = o->seconds > 0 ? r->start_ns + llround(o->seconds * 1e9) : INT64_MAX;
    struct ticker *tk = &r->tk;
    ticker_start(tk, r->start_ns, interval, total == INT64_MAX ? INT64_MAX : total - 1);
    if (o->dither)
        ticker_dither(tk, interval, (uint64_t)r->start_ns);   /* replayable on virtual time */
    for (;;) {
        if (csv_out_failed(&r->csv))
            return EXIT_RUNTIME;
        if (r->have_child && child_cmd_poll(&r->child))
            return EXIT_OK;
        if (stop_count > 0) {
            if (!r->have_child)
                return EXIT_OK;
            if (stop_count > 1) {
                r->child_abandoned = 1;
                return 128 + stop_signal;
            }
            if (!r->forwarded) {
                kill(r->child.pid, stop_signal);
                r->forwarded = 1;
            }
        }
        if (tk->next >= total) {
            if (ticker_sleep_until(end_ns) != 0)
                continue;
            return EXIT_OK;
        }
        int64_t tick, late;
        if (ticker_wait(tk, &tick, &late) != 0)
            continue;
        int lost = recorder_sample_tick(r, tick, late);
        recorder_note_proc_util_off(r);
        /* what each GPU's first field-values call answered */
        for (; r->fields_written < r->ngpu; r->fields_written++) {
            char label[MARK_LABEL_MAX + 64];
            gpu_fields_label(&r->gpus[r->fields_written], label, sizeof label);
            recorder_write_event(r, label, 1, r->gpus[r->fields_written].index, 0);
        }
        recorder_write_gpm_events(r);
        if (lost) {
            struct gpu_dev *d = &r->gpus[lost - 1];
            char label[64];
            diag_error("GPU %u fell off the bus (%s); recording stopped, rows written are kept",
                       d->index, nvml_strerror(&r->nvml, NVML_ERROR_GPU_IS_LOST));
            snprintf(label, sizeof label, "gpu_lost gpu=%u", d->index);
            recorder_write_event(r, label, 1, d->index, 0);
            return EXIT_GPU_LOST;
        }
        if (r->autogpu)
            recorder_auto_poll(r);
        show_status(r, mono_ns(), 0);
    }
}

static void cleanup(struct recorder *r)
{
    live_hub_stop(&r->hub);
    thread_sampler_stop(r->threads);
    r->threads = NULL;
    gpu_pool_stop(&r->pool);
    if (r->have_fifo)
        mark_fifo_stop(&r->fifo);
    r->have_fifo = 0;
    kernels_out_close(&r->kernels);
    if (r->private_dir[0]) {
        unlink(r->fifo_path);
        rmdir(r->private_dir);
    }
    csv_out_close(&r->csv);
    host_cpu_close(&r->host);
    proc_tree_close(&r->tree);
    proc_runq_free(&r->runq);
    gpu_auto_close(&r->autosel);
    cgroup_cpu_close(&r->cgroup);
    for (int i = 0; i < r->ngpu; i++)
        gpu_dev_close(&r->nvml, &r->gpus[i]);
    nvml_unload(&r->nvml);
}

/* Appending is the default (the original tracer appended too), so say so:
 * a second run into the same file joins the first, and a reader of the
 * file should know. */
static void say_appending(struct recorder *r)
{
    const struct csv_out *c = &r->csv;
    if (c->wrote_header || c->start_size == 0)
        return;
    char rows[32];
    trace_fmt_count(c->prior_rows, rows, sizeof rows);
    fprintf(stderr, "%s: appending to %s: %lld earlier recording%s, %s row%s%s\n", diag_prog(),
            c->path, c->prior_recordings, c->prior_recordings == 1 ? "" : "s", rows,
            c->prior_rows == 1 ? "" : "s",
            c->prior_last_mono_ns > mono_ns()
                ? " (made before this boot: its clock is ahead of this one's)" : "");
}

/* A start that failed once the trace was opened leaves nothing behind: a
 * trace we created is removed, an existing one cut back to where it was
 * (no header-only file, no `begin` without a recording), and so is a FIFO
 * or metrics file this start created. Always exit 2 (README: could not
 * start), whatever failed (a descriptor limit too). */
static int fail_start(struct recorder *r, int code)
{
    if (r->have_fifo) {
        mark_fifo_stop(&r->fifo);
        mark_fifo_remove_created(&r->fifo);
    }
    r->have_fifo = 0;
    csv_out_abandon(&r->csv);
    cleanup(r);                     /* the hub's last write of the metrics file too */
    if (r->metrics_file_new)
        unlink(r->o->hub.metrics_file);
    return code;
}

int recorder_run(const struct record_opts *o)
{
    static struct recorder rec;          /* large (FIFO buffer, paths); not on the stack */
    struct recorder *r = &rec;
    memset(r, 0, sizeof *r);
    r->o = o;
    r->csv.fd = -1;
    r->host.fd = -1;
    install_signals();

    if (o->pid > 0) {
        if (proc_watch_open(&r->proc, o->pid) != 0) {
            diag_error("--pid %d: %s", (int)o->pid, strerror(errno));
            return EXIT_USAGE;
        }
        r->watching = 1;
        r->have_tree = proc_tree_open(&r->tree, o->pid, 0) == 0;
    }
    if (open_nvml(r) != 0) {
        cleanup(r);
        return EXIT_USAGE;
    }
    if (!o->no_rapl)
        rapl_discover(&r->rapl, o->rapl_root, o->rapl_path);
    struct stat st;
    r->metrics_file_new = o->hub.metrics_file && lstat(o->hub.metrics_file, &st) != 0 &&
                          errno == ENOENT;
    if (live_hub_open(&r->hub, &o->hub) != 0)
        return fail_start(r, EXIT_USAGE);
    if (open_output(r) != 0)
        return fail_start(r, EXIT_USAGE);
    if (open_fifo(r) != 0)
        return fail_start(r, EXIT_USAGE);
    if (o->cuda && r->have_fifo) {
        kernels_out_open(&r->kernels, o->out);  /* a warning when it cannot: cuda_off still recorded */
        mark_fifo_set_cuda(&r->fifo, recorder_on_cuda_line, recorder_on_cuda_event, r);
    }
    host_cpu_open(&r->host, o->proc_stat, mono_ns());
    say_appending(r);
    live_hub_gpus(&r->hub, &r->nvml, r->gpus, r->ngpu);
    if (live_hub_start(&r->hub, &r->csv, r->header, r->have_fifo ? &r->fifo : NULL) != 0)
        return fail_start(r, EXIT_USAGE);
    /* The marks threads start now, holding their rows back until `begin`
     * is down: readers split a file into recordings at the recorder's own
     * `begin` rows, so no mark may come before it. */
    if (r->have_fifo && mark_fifo_start(&r->fifo, recorder_on_mark, r) != 0)
        return fail_start(r, EXIT_USAGE);
    /* `begin` is stamped before CMD starts, though written after: CMD may
     * do real work (launch kernels, send marks) before the recorder's
     * thread gets a CPU back on a loaded host, and all of it belongs in
     * the recording's begin..end window. */
    r->start_ns = mono_ns();
    if (o->cmd) {
        int rc = child_cmd_start(&r->child, o->cmd, r->fifo_path);
        if (rc != 0)
            return fail_start(r, rc);
        r->have_child = 1;
        if (!r->watching && proc_watch_open(&r->proc, r->child.pid) == 0) {
            r->watching = 1;
            r->have_tree = proc_tree_open(&r->tree, r->child.pid, 1) == 0;
        }
    }
    if (r->watching && o->threads_ms > 0)
        r->threads = thread_sampler_start(o->out, r->proc.pid, o->threads_ms, NULL, &r->csv, r->ncols);
    if (r->watching)
        r->have_cgroup = cgroup_cpu_open(&r->cgroup, r->proc.pid, o->cgroup_root) == 0;
    recorder_enable_proc_util(r);
    r->show_status = !o->quiet && isatty(STDERR_FILENO);
    /* with the status line (a terminal): where other shells send marks */
    if (r->private_dir[0] && r->have_fifo && r->show_status)
        fprintf(stderr, "%s: marks FIFO: %s (from other shells: flinch mark --fifo %s LABEL)\n",
                diag_prog(), r->fifo_path, r->fifo_path);
    recorder_write_mark(r, "begin", r->start_ns);   /* a write error ends run_loop at once */
    if (r->have_cgroup)
        recorder_write_cgroup(r, 1, r->start_ns);
    recorder_write_identity(r);
    if (r->have_fifo)
        mark_fifo_release(&r->fifo, r->start_ns);

    int code = run_loop(r);
    thread_sampler_stop(r->threads);
    r->threads = NULL;
    /* throttling since the last tick */
    if (r->have_cgroup && !csv_out_failed(&r->csv) && cgroup_cpu_read(&r->cgroup) == 1)
        recorder_write_cgroup(r, 0, mono_ns());

    /* With a FIFO, `end` is the moment its read end was found empty and
     * closed: every mark written before it is in the trace. */
    int64_t end_ns = 0;
    if (r->have_fifo) {
        mark_fifo_stop(&r->fifo);
        end_ns = r->fifo.stop_ns;
    }
    r->have_fifo = 0;
    kernels_out_close(&r->kernels);
    if (r->autogpu && r->ngpu == 0 && !csv_out_failed(&r->csv))
        recorder_auto_none(r);
    if (!csv_out_failed(&r->csv))
        recorder_write_mark(r, "end", end_ns > 0 ? end_ns : mono_ns());
    if (code != EXIT_RUNTIME && code != EXIT_GPU_LOST && !r->child_abandoned)
        recorder_linger(r, &stop_count);
    live_hub_stop(&r->hub);
    if (csv_out_failed(&r->csv))
        code = EXIT_RUNTIME;
    if (o->hub.live && live_lines_check(stdout) != 0 && code == EXIT_OK)
        code = EXIT_RUNTIME;
    if (o->hub.metrics_file && metrics_file_last_failed() && code == EXIT_OK)
        code = EXIT_RUNTIME;        /* the hub said so when it first failed */
    show_status(r, mono_ns(), 1);
    /* With CMD its status is the exit status, whatever happened to the
     * recording (said on stderr and, where it could be, in an EVENT row):
     * a CMD exiting 1 or 3 must not pass for flinch's write error or a
     * lost GPU, nor one of those for CMD's. */
    if (r->have_child && !r->child_abandoned)
        code = child_cmd_finish(&r->child, &stop_count, &stop_signal, r->forwarded);
    cleanup(r);
    return code;
}
