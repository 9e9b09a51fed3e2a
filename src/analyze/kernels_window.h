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

#define KERNELS_WINDOW_TOP 10

struct kernel_evidence {
    int present;                        /* the window has kernel data for this GPU */
    double busy_ms, collective_ms;
    long count;
    long ngaps;
    double longest_gap_ms, gaps_ms;
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

/* A GPU's evidence, NULL when none. */
const struct kernel_evidence *kernels_of(const struct analysis *a, const struct window_gpu *g);

/* Appends the kernels-against-NVML clauses to w->evidence (kernels_busy.h). */
void kernels_nvml_evidence(struct window *w);

/* ,"kernels":{...} for one GPU (nothing when absent). */
void kernels_window_json(FILE *out, const struct analysis *a, const struct window_gpu *g);
/* "    kernels: compute 424.0 ms in 3112 kernels: 61% gemm, ...; 57 gaps, longest 0.4 ms" */
void kernels_window_text(FILE *out, const struct analysis *a, const struct window_gpu *g,
                         double window_ms);

#endif
