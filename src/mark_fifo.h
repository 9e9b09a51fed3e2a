/*
 * mark_fifo.h — the named pipe other processes drop MARK labels into, and
 * the thread that reads it.
 *
 * Owns: creating the FIFO (mode 0600 unless told otherwise) or refusing a
 * path that exists and is not our FIFO (checked with lstat: a symlink is
 * never followed, and a FIFO owned by another user is refused), keeping it
 * open so writers never see "no reader" between their writes, and stamping
 * each line the moment it arrives. The reader thread has nothing else to
 * do: it blocks in poll() on the FIFO, reads, stamps with CLOCK_MONOTONIC,
 * then splits and parses lines (mark_line_parse) and hands each good one to
 * a callback. It holds a write descriptor of its own, so the FIFO never
 * reaches EOF when the last writer closes (the original tracer had to
 * reopen it). If the FIFO is deleted while recording it is recreated.
 */
#ifndef FLINCH_MARK_FIFO_H
#define FLINCH_MARK_FIFO_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "mark_line.h"

/* Called on the reader thread for each accepted line; arrival_ns is when
 * the read that completed the line returned. */
typedef void (*mark_fifo_fn)(void *ctx, const struct mark_line *m, int64_t arrival_ns);

#define MARK_FIFO_BUF 8192

struct mark_fifo {
    char path[4096];
    mode_t mode;
    int rfd, wfd;            /* our read end and the keep-alive write end */
    int stop_pipe[2];
    dev_t dev;
    ino_t ino;
    int created;             /* we made the FIFO */
    int replaced_warned;
    pthread_t thread;
    int running;
    mark_fifo_fn fn;
    void *ctx;
    char buf[MARK_FIFO_BUF];
    size_t used;
    int discarding;          /* inside an overlong line: drop up to its newline */
    long long accepted, rejected;
};

/* Creates or checks the FIFO at path and opens it (a reader exists from
 * now on). Returns 0, or -1 after one diag_error line. */
int mark_fifo_open(struct mark_fifo *f, const char *path, mode_t mode);

/* Starts the reader thread. Returns 0, or -1. */
int mark_fifo_start(struct mark_fifo *f, mark_fifo_fn fn, void *ctx);

/* Reads whatever is already in the pipe, stops the thread and closes the
 * descriptors (the FIFO itself stays, as the original left it). */
void mark_fifo_stop(struct mark_fifo *f);

/* Feeds bytes as if they had been read from the FIFO (the reader thread
 * uses it; exposed for unit tests). */
void mark_fifo_feed(struct mark_fifo *f, const char *data, size_t len, int64_t arrival_ns);

#endif
