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
 * splits and parses lines (mark_line_parse) and queues each good one; a
 * second thread takes them off the queue and hands them to a callback
 * (which writes the MARK row). Writing a row can stall on the disk for
 * milliseconds; were the reader to write, the marks behind it in the pipe
 * would be stamped that much late. It holds a write descriptor of its own, so the FIFO never
 * reaches EOF when the last writer closes (the original tracer had to
 * reopen it). If the FIFO is deleted while recording it is recreated.
 */
#ifndef FLINCH_MARK_FIFO_H
#define FLINCH_MARK_FIFO_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "mark_early.h"
#include "mark_line.h"

/* Called on the writer thread for each accepted line, in arrival order;
 * arrival_ns is when the read that completed the line returned. */
typedef void (*mark_fifo_fn)(void *ctx, const struct mark_line *m, int64_t arrival_ns);

/* Lines "\tcuda\tPAYLOAD" come from libflinch_cuda.so (README, "Kernel
 * timeline"), not from mark writers: no mark line can start with a tab.
 * With a cuda sink set they go to raw_fn on the reader thread (it appends
 * them to TRACE.kernels); raw_fn may ask for an EVENT row by filling event
 * and returning 1: it is queued like a mark (so never before `begin`) and
 * written by event_fn on the writer thread. Without a sink they are
 * dropped silently. */
#define MARK_FIFO_CUDA_PREFIX "\tcuda\t"
typedef int (*mark_fifo_raw_fn)(void *ctx, const char *payload, size_t len, char *event,
                                size_t event_size);
typedef void (*mark_fifo_event_fn)(void *ctx, const char *label, int64_t arrival_ns);

#define MARK_FIFO_BUF 8192
#define MARK_FIFO_PIPE_SIZE (1 << 20) /* asked for with F_SETPIPE_SZ */
#define MARK_FIFO_FRAGMENT_NS (200 * 1000000LL) /* a line's bytes without its
                                  newline are dropped after this long */
#define MARK_FIFO_QUEUE 1024   /* marks stamped but not yet written; a full
                                  queue makes the reader wait (none dropped) */

struct mark_fifo_entry {
    struct mark_line m;
    int64_t arrival_ns;
    int event;               /* m.label is an EVENT row's (the cuda sink's) */
};

struct mark_fifo {
    char path[4096];
    mode_t mode;
    int rfd, wfd;            /* our read end and the keep-alive write end */
    int stop_pipe[2];
    dev_t dev;
    ino_t ino;
    int created;             /* we made the FIFO */
    int replaced_warned;
    pthread_t thread;        /* reads and stamps */
    pthread_t writer;        /* calls fn for each queued mark */
    int running;
    struct mark_fifo_entry *queue;  /* ring of MARK_FIFO_QUEUE */
    size_t q_head, q_len;
    int reader_done;
    int held;                /* fn not called until mark_fifo_release */
    pthread_mutex_t q_lock;
    pthread_cond_t q_ready, q_space;
    mark_fifo_fn fn;
    void *ctx;
    mark_fifo_raw_fn raw_fn; /* the cuda sink (NULL: none) */
    mark_fifo_event_fn event_fn;
    void *raw_ctx;
    char buf[MARK_FIFO_BUF];
    size_t used;
    int discarding;          /* inside an overlong line: drop up to its newline */
    int64_t fragment_ns;     /* when buf's unfinished line last grew */
    int64_t stop_ns;         /* the final drain found the pipe empty (0: not yet) */
    long long accepted, rejected;
    struct mark_early early; /* marks that arrived before `begin` (writer thread) */
    int first_pass;          /* the reader read what was there at its start */
    pthread_cond_t first_done;
};

/* Creates or checks the FIFO at path and opens it (a reader exists from
 * now on). Returns 0, or -1 after one diag_error line (a FIFO it created
 * is removed again). */
int mark_fifo_open(struct mark_fifo *f, const char *path, mode_t mode);
/* A start that failed after the open: removes the FIFO if mark_fifo_open
 * created it and it is still that FIFO. */
void mark_fifo_remove_created(struct mark_fifo *f);

/* Sets the cuda sink; before mark_fifo_start. */
void mark_fifo_set_cuda(struct mark_fifo *f, mark_fifo_raw_fn raw_fn, mark_fifo_event_fn event_fn,
                        void *ctx);

/* Starts the reader and writer threads. Marks are read and stamped at
 * once, but fn is not called before mark_fifo_release (or the stop).
 * Returns 0, or -1. */
int mark_fifo_start(struct mark_fifo *f, mark_fifo_fn fn, void *ctx);

/* Lets the writer thread call fn for the marks queued so far and later;
 * begin_ns is the `begin` row's time: plain marks that arrived before it
 * get early=1 (mark_early.h). */
void mark_fifo_release(struct mark_fifo *f, int64_t begin_ns);

/* Reads whatever is already in the pipe, closes the read end at once (so
 * later writers get EPIPE/ENXIO; see final_drain), stops the threads and
 * closes the rest; stop_ns is then when the pipe was found empty. The FIFO
 * itself stays, as the original left it. */
void mark_fifo_stop(struct mark_fifo *f);

/* Lines refused so far; any thread may ask while the reader runs. */
long long mark_fifo_rejected(struct mark_fifo *f);

/* Feeds bytes as if they had been read from the FIFO (the reader thread
 * uses it; exposed for unit tests: with no threads started, fn is called
 * directly). */
void mark_fifo_feed(struct mark_fifo *f, const char *data, size_t len, int64_t arrival_ns);

/* For the reader thread (mark_fifo.c), kept with the line splitting in
 * mark_fifo_lines.c: drops a line that never got its newline, with a
 * warning saying why (returns 1 when there was one), and the poll timeout
 * (ms) after which a quiet writer's fragment is dropped. */
int mark_fifo_drop_fragment(struct mark_fifo *f, const char *why);
int mark_fifo_expire_fragment(struct mark_fifo *f, int64_t now);

#endif
