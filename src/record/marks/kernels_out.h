/*
 * kernels_out.h — TRACE.kernels, the companion file `flinch record --cuda`
 * writes: the lines libflinch_cuda.so sends down the marks FIFO (the cuda
 * sink of mark_fifo.h), one per line after a first line "flinch-kernels 1".
 * The format is documented in README, "Kernel timeline". Appended to, like
 * the trace; a file at that path that is not a kernels file is left alone
 * (one warning, no kernel data). Written on the marks reader thread
 * through stdio's buffer, flushed at least once a second and at the end.
 */
#ifndef FLINCH_KERNELS_OUT_H
#define FLINCH_KERNELS_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define KERNELS_FILE_MAGIC "flinch-kernels 1\n"
#define KERNELS_FILE_SUFFIX ".kernels"
#define KERNELS_LINE_MAX 1024           /* longer lines are refused (the library sends < 600) */

struct kernels_out {
    FILE *fp;
    char path[4096 + sizeof KERNELS_FILE_SUFFIX];
    int64_t flushed_ns;
    long long lines, refused;
    int failed;                         /* a write failed: said once, nothing more written */
};

/* Opens TRACE.kernels for appending. 0, or -1 after one warning. */
int kernels_out_open(struct kernels_out *k, const char *trace_path);

/* mark_fifo_raw_fn: appends one line (ctx: the kernels_out); for an O line
 * fills event with "cuda_off pid=P reason=R subscriber=S" and returns 1. */
int kernels_out_line(void *ctx, const char *payload, size_t len, char *event, size_t event_size);

/* Flushes and closes (after the marks reader stopped). */
void kernels_out_close(struct kernels_out *k);

#endif
