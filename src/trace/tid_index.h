/*
 * tid_index.h — a map from thread id to a slot number, for the threads
 * reader (threads_file.c): constant time to find, add and remove a thread,
 * where a sorted array moved its tail on every insertion (100,000 threads
 * appearing in descending tid order took 104 s).
 *
 * Open addressing with linear probing; removal shifts the entries after
 * the freed cell back (no tombstones), so the table never degrades.
 */
#ifndef FLINCH_TID_INDEX_H
#define FLINCH_TID_INDEX_H

struct tid_index {
    long *tid;       /* 0: empty cell (tids are >= 1) */
    long *slot;
    long cap, n;     /* cap: a power of two, or 0 */
};

/* The slot of tid, or -1. */
long tid_index_get(const struct tid_index *x, long tid);
/* Adds tid -> slot (tid not present, >= 1). 0, or -1 when out of memory. */
int tid_index_put(struct tid_index *x, long tid, long slot);
/* Changes the slot of a present tid. */
void tid_index_set(struct tid_index *x, long tid, long slot);
void tid_index_remove(struct tid_index *x, long tid);
void tid_index_clear(struct tid_index *x);
void tid_index_free(struct tid_index *x);

#endif
