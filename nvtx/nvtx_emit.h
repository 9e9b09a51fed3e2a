/*
 * nvtx_emit.h — how the NVTX bridge puts a mark on the wire: label
 * sanitising and truncation, the mark line (README, "The line protocol"),
 * the FIFO descriptor, and the counts of marks that did not make it.
 *
 * Nothing here may block or fail the application: every write is one
 * non-blocking write() of a line under PIPE_BUF, starting with a newline
 * (a fragment a dead writer left in the pipe then ends before our mark);
 * no recorder, a full pipe, a stopped recorder or a deleted FIFO make the
 * write fail at once and the mark is counted as undelivered. Reconnecting
 * is tried at most every 200 ms, by one thread at a time, never waiting
 * for another.
 */
#ifndef FLINCH_NVTX_EMIT_H
#define FLINCH_NVTX_EMIT_H

#include <stdint.h>
#include <wchar.h>

#include "mark_line.h"

/* Why a mark was not delivered; each is reported as a dropped=N line. */
enum nvtx_drop { NVTX_DROP_FILTER, NVTX_DROP_RATE, NVTX_DROP_DEPTH, NVTX_DROP_UNDELIVERED,
                 NVTX_DROP_COUNT };

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

/* Writes one mark: label at t, with edge start/end of range PID.n (edge
 * MARK_EDGE_NONE: a plain mark), this thread's tid and the domain (""
 * default: no domain=). Counts it as undelivered when it cannot be
 * written. Also sends the pending drop counts, at most once a second. */
void nvtx_emit_mark(const char *label, int64_t t, enum mark_edge edge, uint64_t n,
                    const char *domain);

/* Counts one mark not recorded for that reason. */
void nvtx_emit_drop(enum nvtx_drop why);

/* Sends every pending count now (at exit). */
void nvtx_emit_flush_drops(void);

#endif
