/*
 * nvtx_emit.h — how the NVTX bridge puts a mark on the wire: label
 * sanitising and truncation, the mark line (README, "The line protocol"),
 * the FIFO descriptor, and the counts of marks that did not make it.
 *
 * A mark is stamped and formatted in the calling thread and handed to the
 * writer thread (nvtx_writer.c); without one it is written by the calling
 * thread. Nothing here may block or fail the application: every write is
 * one non-blocking write() of whole lines, at most PIPE_BUF bytes, each
 * line starting with a newline (a fragment a dead writer left in the pipe
 * then ends before our mark); no recorder, a full pipe, a stopped recorder
 * or a deleted FIFO make the write fail at once and the marks are counted
 * as undelivered. Reconnecting is tried at most every 200 ms, by one
 * thread at a time, never waiting for another.
 */
#ifndef FLINCH_NVTX_EMIT_H
#define FLINCH_NVTX_EMIT_H

#include <stdint.h>
#include <wchar.h>

#include "mark_line.h"

/* Why a mark was not delivered; each is reported as a dropped=N line. */
enum nvtx_drop { NVTX_DROP_FILTER, NVTX_DROP_RATE, NVTX_DROP_DEPTH, NVTX_DROP_UNDELIVERED,
                 NVTX_DROP_QUEUE, NVTX_DROP_COUNT };

/* The longest line the bridge writes: "\nLABEL\tT\tATTRS\n". */
#define NVTX_LINE_MAX (1 + MARK_LABEL_MAX + 1 + 20 + 1 + MARK_ATTRS_MAX + 1)

/* Reads $FLINCH_MARKS (else /tmp/flinch_marks); once, from the bridge's init. */
void nvtx_emit_init(void);
/* In a forked child: the pid, this thread's id and the counts start afresh. */
void nvtx_emit_after_fork(void);

int64_t nvtx_now_ns(void);          /* CLOCK_MONOTONIC */
long long nvtx_tid(void);           /* this thread's kernel id, cached */
long long nvtx_pid(void);

/* Copies a name into dst[MARK_LABEL_MAX + 1] as a label the recorder
 * accepts: control bytes become '_'; longer than MARK_LABEL_MAX bytes: cut
 * at a UTF-8 character boundary to at most MARK_LABEL_MAX - 3 bytes and
 * "..." appended; NULL, empty or all spaces: "(unnamed)". */
void nvtx_label(char *dst, const char *src);
/* The same from a wide string, converted to UTF-8. */
void nvtx_label_w(char *dst, const wchar_t *src);
/* A domain name for domain=: as nvtx_label, but at most MARK_DOMAIN_MAX
 * bytes and spaces also become '_'. */
void nvtx_domain_name(char *dst, const char *src);

/* What an NVTX event's attributes add to its mark: category= and
 * payload= ("" : none). */
struct nvtx_extra {
    char category[MARK_CATEGORY_MAX + 1];
    char payload[MARK_PAYLOAD_MAX + 1];
};

/* Writes one mark: label at t, with edge start/end of range PID.n (edge
 * MARK_EDGE_NONE: a plain mark), this thread's tid, the domain (""
 * default: no domain=) and x (NULL: nothing more). Counts it as
 * undelivered when it cannot be written. Without the writer thread also
 * sends the pending drop counts, at most once a second. */
void nvtx_emit_mark(const char *label, int64_t t, enum mark_edge edge, uint64_t n,
                    const char *domain, const struct nvtx_extra *x);

/* Counts one mark not recorded for that reason. */
void nvtx_emit_drop(enum nvtx_drop why);
/* Counts n. */
void nvtx_emit_count(enum nvtx_drop why, long long n);

/* Sends every pending count now (at exit). */
void nvtx_emit_flush_drops(void);
/* Sends the pending counts if the last report is a second old. */
void nvtx_emit_report_due(int64_t now);

/* For the writer thread: buf[0..len) (whole lines, <= PIPE_BUF bytes) in
 * one write, connecting first when needed. 0, or -1 with errno (EAGAIN:
 * the pipe is full, try again later; anything else: not delivered). */
int nvtx_emit_send(const char *buf, size_t len, int64_t now);
/* Called once by the writer thread: it has every signal blocked, so its
 * writes need no SIGPIPE guard; it checks the descriptor is still ours. */
void nvtx_emit_in_writer_thread(void);

#endif
