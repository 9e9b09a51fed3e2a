/*
 * recorder.h — `flinch record` once its options are parsed: set up every
 * source, run the sampling loop, shut down cleanly, return the exit code.
 */
#ifndef FLINCH_RECORDER_H
#define FLINCH_RECORDER_H

#include <sys/types.h>

#include "live_hub.h"

struct record_opts {
    const char *out;          /* trace CSV (required) */
    const char *gpu_spec;     /* "0", "all", "0,2", "cuda:0", "auto" (gpu_select.h, gpu_auto.h) */
    int interval_ms;
    int dither;               /* --dither: ticks shifted by 0..interval */
    int linger_ms;            /* --linger-ms: most sampling after the stop (recorder_linger.h) */
    double seconds;           /* 0: until SIGINT/SIGTERM/SIGHUP or CMD exits */
    const char *marks_fifo;   /* NULL: no FIFO (a private one with CMD) */
    unsigned marks_mode;      /* mode of a FIFO we create */
    const char *rapl_path;    /* --rapl FILE, or NULL: first discovered domain */
    int no_rapl;
    const char *rapl_root;    /* NULL: /sys/class/powercap */
    const char *proc_stat;    /* NULL: /proc/stat */
    const char *cgroup_root;  /* NULL: the cgroup2 mount (cgroup_cpu.h) */
    const char *nvml_lib;     /* NULL: libnvidia-ml.so.1 */
    pid_t pid;                /* --pid, 0: none */
    char **cmd;               /* -- CMD ARGS..., or NULL */
    int threads_ms;           /* thread-state sweep interval with --pid/CMD; 0: none */
    int cuda;                 /* --cuda: libflinch_cuda.so's lines into OUT.kernels */
    int quiet;
    int force_append;         /* append to a --out owned by another user or o+w */
    struct live_hub_opts hub;  /* --live, --metrics, --metrics-file, --window */
};

int recorder_run(const struct record_opts *o);

#endif
