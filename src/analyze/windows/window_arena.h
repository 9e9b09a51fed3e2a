/*
 * window_arena.h — where an analysis keeps its finished window records
 * until the end of the trace gathers them, in start-mark order, into
 * analysis.windows.
 *
 * Owns: chunks of WINDOW_ARENA_CHUNK records mapped from the system, and
 * how many records of each are still in use.
 *
 * Why: a record is 656 bytes (analysis.h's struct window; 3.5 KB while its
 * breakdowns held room for every segment, 1.5 KB while it held room for
 * its longest texts, window_texts.h), and finish_trace copies every
 * one into one array; with a record of its own allocation each stayed in
 * the heap until the copy was over, so the copy doubled the records'
 * memory at its peak (35 MB with 10,000 windows then). A chunk goes
 * back to the system as soon as its last record is copied or freed, so the
 * array grows as the chunks go. Records are handed out in order and never
 * reused; live windows (live_windows.c) free theirs as they are reported,
 * which frees their chunks too.
 */
#ifndef FLINCH_WINDOW_ARENA_H
#define FLINCH_WINDOW_ARENA_H

#include <stddef.h>

#include "analysis.h"

#define WINDOW_ARENA_CHUNK 64

struct window_arena_chunk {
    struct window *rec;          /* WINDOW_ARENA_CHUNK records, mapped */
    size_t bytes;                /* the mapping's length */
    int handed, live;            /* records handed out, and not yet freed */
};

struct window_arena {
    struct window_arena_chunk *chunk;   /* by address of rec, ascending */
    long n, cap;
    long cur_at;                        /* the chunk handing out records; none when >= n */
};

/* All zero is an empty arena. */
/* A zeroed record; NULL when out of memory. */
struct window *window_arena_new(struct window_arena *a);
/* Gives back a record window_arena_new made (not its gpu array or samples). */
void window_arena_free(struct window_arena *a, struct window *w);
/* Unmaps every chunk left. */
void window_arena_done(struct window_arena *a);

#endif
