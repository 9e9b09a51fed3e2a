/*
 * cuda_merge.h — turns one batch of CUPTI activity records into the lines
 * of TRACE.kernels (README, "Kernel timeline"): per GPU the union of the
 * kernel intervals (B), of the collective kernels' (C), of the copies' and
 * memsets' (X), with each busy interval's kernel count and its top kernel
 * names by summed kernel time; kernel names are sent once (N) and then
 * referred to by number.
 *
 * Runs on the library's flush thread (or at exit), never on an
 * application thread, so it may take its time and its own lock; its memory
 * is allocated once, at cuda_merge_init. A batch holds at most
 * CUDA_MERGE_RECORDS records: the records after that in one flush period
 * are merged in a second batch (their intervals may then touch or overlap
 * the first's: a reader unions B lines, which keeps the union exact).
 */
#ifndef FLINCH_CUDA_MERGE_H
#define FLINCH_CUDA_MERGE_H

#include <stddef.h>
#include <stdint.h>

#define CUDA_MERGE_RECORDS 65536        /* records merged per batch */
#define CUDA_MERGE_NAMES 4096           /* distinct kernel names numbered */
#define CUDA_MERGE_NAME_MAX 400         /* bytes of a name kept (cut at a UTF-8 boundary) */
#define CUDA_MERGE_TOP 5                /* names listed per busy interval */

/* Where the lines go: one payload, without newline (the caller frames
 * it); 0 when queued or sent, -1 when lost (counted by the caller). */
typedef int (*cuda_line_fn)(const char *line, size_t len);

/* 0, or -1 when the memory could not be had (the library turns off). */
int cuda_merge_init(long long pid, cuda_line_fn out);
/* In a forked child: its own pid, names sent afresh. */
void cuda_merge_after_fork(long long pid);

/* Adds one record (a kernel: name non-NULL; a copy: bytes). Times are
 * CLOCK_MONOTONIC ns; a record with a zero stamp or end < start is counted
 * (zero_stamps) and not used. Returns 1 when the batch is full (the caller
 * then ends it with cuda_merge_emit before adding more). */
int cuda_merge_kernel(uint32_t device, uint64_t start, uint64_t end, const char *name);
int cuda_merge_copy(uint32_t device, uint64_t start, uint64_t end, uint64_t bytes);

/* Sends the batch's lines and empties it. */
void cuda_merge_emit(void);

/* Records counted but not used (zero or reversed stamps) since the start. */
long long cuda_merge_zero_stamps(void);

/* 1 when a kernel name is a collective's (NCCL's ncclDevKernel_*,
 * ncclKernel_*, also when mangled: _Z..ncclDevKernel_...). */
int cuda_is_collective(const char *name);

#endif
