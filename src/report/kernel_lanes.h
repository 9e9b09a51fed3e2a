/*
 * kernel_lanes.h — the traced kernels (TRACE.kernels, flinch record
 * --cuda; kernels_file.h) as lanes for flinch plot: per CUDA device, per
 * pixel column, the kernel time inside it and where in the column it
 * starts and ends; the same for the collectives (NCCL kernels).
 *
 * Owns streaming the kernels file into columns. Memory is the columns'
 * (six numbers per column per device seen), whatever the number of kernels:
 * a million-kernel trace costs what a ten-kernel one does. A column's time
 * is the sum of the pieces inside it, held to the column's width: exact
 * when each device's pieces are disjoint (one process per GPU: the library
 * writes each process's union), and never more than the column where two
 * processes' kernels overlap on one GPU.
 */
#ifndef FLINCH_KERNEL_LANES_H
#define FLINCH_KERNEL_LANES_H

#include <stdint.h>

#include "kernels_file.h"

/* One kind of time (all kernels, or the collectives) of one device. */
struct kernel_cols {
    double *ns;                   /* ncols: kernel time inside the column (ns) */
    double *lo, *hi;              /* ncols: where it starts and ends, in columns from the
                                     left edge (lo >= c, hi <= c + 1); lo > hi: none */
    int any;                      /* some column has time */
};

struct kernel_lane {
    int dev;                      /* CUDA device ordinal */
    struct kernel_cols busy, coll;
};

struct kernel_lanes {
    int nlanes, ncols;
    double col_ns;                /* a column's width in ns */
    struct kernel_lane lane[KERNELS_MAX_DEVICES];   /* by device ordinal, those with time */
};

/* Reads TRACE.kernels (one pass) for [from_s, to_s] in seconds since
 * t0_ns into ncols columns. No file (or not a kernels file, or TRACE is
 * "-"): no lanes. 0, or EXIT_RUNTIME after the message (out of memory). */
int kernel_lanes_read(const char *trace, int64_t t0_ns, double from_s, double to_s, int ncols,
                      struct kernel_lanes *out);
void kernel_lanes_free(struct kernel_lanes *l);

#endif
