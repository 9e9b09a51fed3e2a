/*
 * kernels_window.h — a window's kernel evidence from TRACE.kernels
 * (flinch record --cuda): per GPU, compute = the union of its kernel
 * intervals inside the window (exact to the ns), collectives (NCCL
 * kernels) as their own share, the idle gaps between kernels (count,
 * longest, sum), the kernels and top names of the busy lines overlapping
 * the window (names' time pro-rated by each line's overlap), and the
 * records the library reported dropped. CUDA device d is taken to be the
 * window's d-th GPU in gpu_index order (true when the recorded GPUs are
 * the command's CUDA devices in order: --gpu cuda, one GPU). Reported in
 * JSON as "kernels" and as one text line. The breakdown then takes the
 * GPU-busy signal of such a GPU from the kernel spans (kernels_busy.h).
 */
#ifndef FLINCH_KERNELS_WINDOW_H
#define FLINCH_KERNELS_WINDOW_H

#include <stdio.h>

#include "kernels_file.h"
#include "thread_class.h"

#define KERNELS_WINDOW_TOP 10

/* What the GPU's idle gaps between kernels went to, by what the traced
 * side did then (the breakdown's classes of a GPU's idle time): host-cpu,
 * waiting without thread states, then waiting-on-CLASS for each class of
 * thread_class.h (the dominant class of the window's breakdown segment the
 * waiting instant lies in, as segments_waiting_on names it). */
enum { KGAP_HOST_CPU, KGAP_WAITING, KGAP_WAITING_ON, KGAP_COUNT = KGAP_WAITING_ON + TC_COUNT };
#define KERNELS_GAP_SEGMENTS 64         /* BREAKDOWN_MAX_SEGMENTS (asserted in kernels_window.c) */

struct kernel_gaps {
    /* the breakdown's split (kernels_busy.h), exact to the stamps */
    double host_cpu_ms, waiting_ms;
    double waiting_seg_ms[KERNELS_GAP_SEGMENTS];  /* the waiting part per segment of the window's
                                                     breakdown (w->bd.seg) */
    double waiting_unseg_ms;                      /* in none of them (no window breakdown) */
    double by_class_ms[KGAP_COUNT];               /* kernels_gaps_fold */
};

/* "host-cpu", "waiting", "waiting-on-network", ... into buf; buf. */
const char *kernels_gap_class_name(int k, char *buf, size_t cap);

struct kernel_evidence {
    int present;                        /* the window has kernel data for this GPU */
    double busy_ms, collective_ms;
    long count;
    long ngaps;
    double longest_gap_ms, gaps_ms;
    struct kernel_gaps gaps;            /* their time by class */
    long long dropped;
    int ntop;
    struct { char name[96]; double ms; } top[KERNELS_WINDOW_TOP]; /* names cut to 95 bytes */
};

struct analysis;
struct window;
struct window_gpu;

/* The evidence of each of w's GPUs from k (NULL: none), kept in
 * a->kernel_ev (a window_gpu holds its index: the evidence is large and
 * most windows of most traces have none). */
void kernels_window(const struct kernels_data *k, struct analysis *a, struct window *w);

/* Once the thread states are read (waiting_on.h; a->waiting may be NULL):
 * each GPU's gap time by class (kernel_gaps.by_class_ms). */
void kernels_gaps_fold(struct analysis *a);

/* The class with the most of e's gap time (the first of equals), -1: none. */
int kernels_gap_largest(const struct kernel_evidence *e);

/* A GPU's evidence, NULL when none. */
const struct kernel_evidence *kernels_of(const struct analysis *a, const struct window_gpu *g);

/* Appends the kernels-against-NVML clauses to w->evidence (kernels_busy.h). */
void kernels_nvml_evidence(struct window *w);

/* ,"kernels":{...} for one GPU (nothing when absent). */
void kernels_window_json(FILE *out, const struct analysis *a, const struct window_gpu *g);
/* "    kernels: compute 424.0 ms in 3112 kernels: 61% gemm, ...; 57 gaps, longest 0.4 ms,
 * 67% of their 12.0 ms host-cpu" */
void kernels_window_text(FILE *out, const struct analysis *a, const struct window_gpu *g,
                         double window_ms);

#endif
