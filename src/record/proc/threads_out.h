/*
 * threads_out.h — opening the threads file (TRACE.threads, threads_file.h)
 * for the thread sampler to append to, without ever writing over anything
 * that is not one.
 */
#ifndef FLINCH_THREADS_OUT_H
#define FLINCH_THREADS_OUT_H

/* Opens path for appending: O_NOFOLLOW, a regular file only (a FIFO is
 * not waited on), and an existing non-empty file must start with the
 * threads file's format line. The descriptor, with *empty set when the
 * format line is still to be written; -1 after a diag_warn line. */
int threads_out_open(const char *path, int *empty);

#endif
