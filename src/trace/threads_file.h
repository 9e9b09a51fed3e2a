/*
 * threads_file.h — the threads file beside a trace (TRACE.threads): what
 * every thread of the traced process tree was doing, sweep by sweep, as a
 * log of changes. The trace CSV itself is untouched (the original analyzer
 * still reads it); flinch's readers find this file by the trace's name.
 *
 * Format (text, one record per line, fields separated by one space, no
 * field holds a space):
 *   flinch-threads 1                      first line of the file
 *   B T_NS root=PID interval_ms=N arch=A  a recording session starts
 *   S T_NS                                a sweep, at CLOCK_MONOTONIC T_NS
 *   N TID PID NAME                        thread appeared (or renamed); NAME is
 *                                         comm with bytes outside ! to ~ and \ as \xHH
 *   T TID STATE WCHAN CALL FD             thread's state changed (thread_probe.h);
 *                                         STATE one of R S D Z T t X x K W P I
 *   X TID                                 thread gone
 *   ! TEXT                                something could not be read (said once)
 *   E T_NS cpu_ns=N sweeps=N              session ends; the sampler's own CPU time
 * N, T and X lines belong to the S line above them. A session appended to
 * an existing file starts with its own B line.
 *
 * Owns the format and the reader, which turns the log into spans: a
 * thread's state seen at sweep k holds from the midpoint between sweeps
 * k-1 and k to the midpoint between k and k+1 (from the first sweep and to
 * the last one at a session's ends), so every span edge is uncertain by
 * half a sweep interval.
 */
#ifndef FLINCH_THREADS_FILE_H
#define FLINCH_THREADS_FILE_H

#include <stdint.h>
#include <stdio.h>

#include "tid_index.h"

#define THREADS_FILE_MAGIC "flinch-threads 1\n"
#define THREADS_FILE_SUFFIX ".threads"
#define THREADS_LINE_MAX 512
#define THREADS_NAME_MAX 72
#define THREADS_TOKEN_MAX 48

struct thread_span {
    long tid, pid;
    char name[THREADS_NAME_MAX];
    int64_t t0_ns, t1_ns;
    char state;
    char wchan[THREADS_TOKEN_MAX], call[THREADS_TOKEN_MAX], fd[THREADS_TOKEN_MAX];
};

struct threads_live;

struct threads_reader {
    char path[4096];
    char error[600];
    long line;
    long interval_ms;            /* the last session's sweep interval */
    long sessions;
    char notes[4][200];          /* the first `!` lines, for the report */
    int nnotes;
    /* private */
    FILE *f;
    struct threads_live *live;   /* threads alive, unordered (sorted by tid while closing) */
    long nlive, cap;
    struct tid_index index;      /* tid -> its place in live */
    int64_t last_sweep, prev_sweep;
    int in_session, have_sweep;
    long closing;                /* >= 0: emitting the live threads' last spans */
    int at_eof;
    int kept;                    /* buf holds a line still to handle */
    char buf[THREADS_LINE_MAX + 2];
};

/* Opens TRACE_PATH.threads. 0 on success, 1 when there is no such file,
 * -1 with r->error set. */
int threads_reader_open(struct threads_reader *r, const char *trace_path);
/* Next closed span: 1, 0 at the end, -1 with r->error ("FILE:LINE: ..."). */
int threads_reader_next(struct threads_reader *r, struct thread_span *span);
void threads_reader_close(struct threads_reader *r);

#endif
