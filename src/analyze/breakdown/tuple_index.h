/*
 * tuple_index.h — a map from a tuple of four longs to a long, insert and
 * look up only, for the per-thread tallies of waiting_on.c: with 50,000
 * threads in one window, a linear search per span made export take
 * seconds per doubling of threads.
 *
 * Open addressing, linear probing, at most half full.
 */
#ifndef FLINCH_TUPLE_INDEX_H
#define FLINCH_TUPLE_INDEX_H

struct tuple_index {
    long (*key)[4];
    long *val;
    unsigned char *used;
    long cap, n;
};

/* The value of key (a, b, c, d), or -1 when absent. */
long tuple_index_get(const struct tuple_index *x, long a, long b, long c, long d);
/* Adds (a, b, c, d) -> v; the key must be absent. 0, or -1 when out of memory. */
int tuple_index_put(struct tuple_index *x, long a, long b, long c, long d, long v);
void tuple_index_free(struct tuple_index *x);

#endif
