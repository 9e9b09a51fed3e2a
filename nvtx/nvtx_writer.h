/*
 * nvtx_writer.h — the NVTX bridge's writer thread: application threads
 * stamp and format a mark, put the line in a bounded lock-free ring and
 * return, with no system call; one thread of the bridge drains the ring
 * and writes the lines to the FIFO in batches of whole lines of at most
 * PIPE_BUF bytes (one atomic write() each).
 *
 * The writer thread runs with every signal blocked: the application's
 * signals are never delivered to it, and a write into a FIFO whose reader
 * went away fails with EPIPE while the SIGPIPE it raises stays pending on
 * that thread alone (it is consumed there). So the application's threads
 * need no per-mark signal guard whatever their SIGPIPE disposition.
 *
 * Without the thread (FLINCH_NVTX_THREAD=0, a forked child, or the thread
 * could not be created) nvtx_writer_enqueue says so and the caller writes the line
 * itself, as the bridge did before.
 */
#ifndef FLINCH_NVTX_WRITER_H
#define FLINCH_NVTX_WRITER_H

#include <stddef.h>

#define NVTX_WRITER_CELLS 2048          /* lines the ring holds (a power of two) */

enum nvtx_queue_result {
    NVTX_QUEUED,                        /* the writer thread will write it */
    NVTX_QUEUE_FULL,                    /* dropped: count it (reason=queue) */
    NVTX_QUEUE_OFF                      /* no writer thread: write it yourself */
};

/* Reads FLINCH_NVTX_THREAD and readies the ring; once, from the bridge's init. */
void nvtx_writer_init(void);
/* In a forked child: an empty ring (what the parent queued is the parent's
 * to write) and no thread, ever: the child's marks are written by the
 * threads that make them (an exec or _exit would lose a queue). */
void nvtx_writer_after_fork(void);
/* Before fork: waits (at most NVTX_WRITER_FORK_WAIT_MS) for a writer thread
 * that is still starting to finish starting; see nvtx_writer.c. */
#define NVTX_WRITER_FORK_WAIT_MS 50
void nvtx_writer_before_fork(void);

/* Queues line[0..len) (len <= NVTX_LINE_MAX); starts the thread on first use. */
enum nvtx_queue_result nvtx_writer_enqueue(const char *line, size_t len);

/* 1 when the writer thread runs (it then also sends the drop counts). */
int nvtx_writer_running(void);

/* At exit: lets the writer write what is queued, waiting while it makes
 * progress, at most NVTX_WRITER_EXIT_STALL_MS without progress and
 * NVTX_WRITER_EXIT_MAX_MS in all; then sends the drop counts. */
#define NVTX_WRITER_EXIT_STALL_MS 100
#define NVTX_WRITER_EXIT_MAX_MS 1000
void nvtx_writer_flush_at_exit(void);

#endif
