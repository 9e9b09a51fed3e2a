/*
 * kernels_file.h — reads TRACE.kernels (flinch-trace(5), "THE KERNELS
 * FILE"), what `flinch record --cuda` wrote: per CUDA device, the busy
 * pieces of its B lines (gaps= taken out) and of its C lines, each merged
 * into a sorted union; the B lines themselves with their top names
 * (resolved through the N lines of their pid); the last D line of each
 * pid, summed. Lines it does not know are skipped (a later version's).
 */
#ifndef FLINCH_KERNELS_FILE_H
#define FLINCH_KERNELS_FILE_H

#include <stdint.h>

#define KERNELS_MAX_DEVICES 64
#define KERNELS_TOP 5                   /* names a B line carries */

struct kernels_span { int64_t t0, t1; };

struct kernels_line {                   /* one B line */
    int64_t t0, t1;
    long kernels;
    int ntop;
    int name[KERNELS_TOP];              /* index into kernels_data.names; -1 unknown */
    int64_t top_ns[KERNELS_TOP];
};

struct kernels_device {
    struct kernels_span *busy, *coll;   /* unions, sorted, disjoint (touching joined) */
    long nbusy, ncoll, cap_busy, cap_coll;
    struct kernels_line *lines;         /* sorted by t0 */
    long nlines, cap_lines;
};

struct kernels_data {
    int ndev;                           /* devices 0..ndev-1 (CUDA ordinals) */
    struct kernels_device dev[KERNELS_MAX_DEVICES];
    char (*names)[128];                 /* kernel names, cut to 127 bytes */
    long nnames, cap_names;
    long long dropped, zero_stamps, lines_lost, pool_empty;
    int off;                            /* O lines: processes where the library turned off */
};

/* Loads path; NULL when there is no such file (or it is not a kernels
 * file, or memory ran out: the window is then answered from the sensors). */
struct kernels_data *kernels_file_load(const char *path);
void kernels_file_free(struct kernels_data *k);

/* The busy pieces of one B, C or X line ([start, end) less its gaps=, in
 * order), each passed to fn (ctx, t0, t1); stops at the first non-zero fn
 * returns, and returns it (else 0). For a reader that streams the file
 * rather than load it (flinch plot's kernel lanes). */
int kernels_line_pieces(const char *line, int (*fn)(void *ctx, int64_t t0, int64_t t1), void *ctx);
/* The line's gpu= (CUDA device ordinal), -1 when absent or not below
 * KERNELS_MAX_DEVICES. */
int kernels_line_gpu(const char *line);

/* ns of the union of spans[0..n) inside [t0, t1]. */
int64_t kernels_union_in(const struct kernels_span *s, long n, int64_t t0, int64_t t1);

#endif
