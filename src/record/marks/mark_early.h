/*
 * mark_early.h — plain marks that arrived before the recording's `begin` row.
 *
 * Owns the early=1 attribute and its one warning. A writer that opens the
 * marks FIFO before a recorder exists blocks in open(2); its lines are read
 * when the recorder appears and held back until `begin` is written. A plain
 * mark is stamped at its arrival, which then says nothing about when it was
 * written: such a mark gets early=1 in its MARK row, and the recording one
 * warning naming how many and the first. Only a FIFO that existed before
 * the recorder can have had such writers: on one the recorder made (its
 * default path, the private FIFO of `-- CMD`) nothing is early, and a
 * wrapped command marking before `begin` is stamped as it writes. A client-stamped mark keeps the
 * client's own stamp, which is when it was written, so it is never early;
 * a dropped=N report is not a mark. A client's own early= is overwritten:
 * only the recorder knows when `begin` was.
 */
#ifndef FLINCH_MARK_EARLY_H
#define FLINCH_MARK_EARLY_H

#include <stdint.h>

#include "mark_line.h"

struct mark_early {
    int known;               /* begin_ns set: 0 until the recording began */
    int64_t begin_ns;        /* the `begin` row's CLOCK_MONOTONIC time */
    long long count;
    char first[MARK_LABEL_MAX + 1];
    int said;                /* the warning was given */
};

/* The recording began at begin_ns: marks that arrived before it are early. */
void mark_early_begin(struct mark_early *e, int64_t begin_ns);

/* Sets or clears m->attrs.early for a mark that arrived at arrival_ns, and
 * says the warning once the first mark after `begin` shows the early ones
 * are all in. Called on one thread (the FIFO's writer), in arrival order. */
void mark_early_note(struct mark_early *e, struct mark_line *m, int64_t arrival_ns, const char *path);

/* The warning, if there were early marks and it was not given yet. */
void mark_early_say(struct mark_early *e, const char *path);

/* The reader thread's first pass: reads what is in the pipe already (from
 * writers that waited in open(2) for a reader: mark_fifo_open woke them),
 * so that it arrives before `begin`; then says the pass is done. The
 * reader thread would otherwise run when the scheduler lets it, often
 * after `begin`, and those marks could not be told from later ones. */
struct mark_fifo;
void mark_fifo_first_pass(struct mark_fifo *f, char *chunk, size_t cap);
/* mark_fifo_start waits for it, at most 120 ms (on a FIFO that existed
 * before the recorder the pass waits 20 ms for woken writers; a pipe full
 * of early marks fills the queue, which is not emptied before `begin`). */
void mark_fifo_wait_first_pass(struct mark_fifo *f);

#endif
