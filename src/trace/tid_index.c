/* tid_index.c — see tid_index.h. */
#include <stdlib.h>
#include <string.h>

#include "tid_index.h"

static unsigned long hash(long tid)
{
    unsigned long long h = (unsigned long long)tid * 0x9E3779B97F4A7C15ULL;
    return (unsigned long)(h >> 29);
}

static long cell_of(const struct tid_index *x, long tid)
{
    long mask = x->cap - 1;
    long i = (long)(hash(tid) & (unsigned long)mask);
    while (x->tid[i] != 0 && x->tid[i] != tid)
        i = (i + 1) & mask;
    return i;
}

long tid_index_get(const struct tid_index *x, long tid)
{
    if (x->cap == 0)
        return -1;
    long i = cell_of(x, tid);
    return x->tid[i] == tid ? x->slot[i] : -1;
}

static int grow(struct tid_index *x)
{
    long ncap = x->cap ? x->cap * 2 : 64;
    struct tid_index n = { calloc((size_t)ncap, sizeof (long)), calloc((size_t)ncap, sizeof (long)),
                           ncap, 0 };
    if (!n.tid || !n.slot) {
        free(n.tid);
        free(n.slot);
        return -1;
    }
    for (long i = 0; i < x->cap; i++)
        if (x->tid[i] != 0) {
            long c = cell_of(&n, x->tid[i]);
            n.tid[c] = x->tid[i];
            n.slot[c] = x->slot[i];
            n.n++;
        }
    tid_index_free(x);
    *x = n;
    return 0;
}

int tid_index_put(struct tid_index *x, long tid, long slot)
{
    if (2 * (x->n + 1) > x->cap && grow(x) != 0)   /* at most half full */
        return -1;
    long i = cell_of(x, tid);
    x->tid[i] = tid;
    x->slot[i] = slot;
    x->n++;
    return 0;
}

void tid_index_set(struct tid_index *x, long tid, long slot)
{
    if (x->cap == 0)
        return;
    long i = cell_of(x, tid);
    if (x->tid[i] == tid)
        x->slot[i] = slot;
}

/* Backward-shift deletion: every entry after the hole that could have
 * been placed in it moves there, so a lookup never meets a gap before its
 * entry. */
void tid_index_remove(struct tid_index *x, long tid)
{
    if (x->cap == 0)
        return;
    long mask = x->cap - 1;
    long i = cell_of(x, tid);
    if (x->tid[i] != tid)
        return;
    x->tid[i] = 0;
    x->n--;
    for (long j = (i + 1) & mask; x->tid[j] != 0; j = (j + 1) & mask) {
        long home = (long)(hash(x->tid[j]) & (unsigned long)mask);
        /* j's entry may fill hole i unless its home lies cyclically in (i, j] */
        int stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (stays)
            continue;
        x->tid[i] = x->tid[j];
        x->slot[i] = x->slot[j];
        x->tid[j] = 0;
        i = j;
    }
}

void tid_index_clear(struct tid_index *x)
{
    if (x->cap) {
        memset(x->tid, 0, sizeof *x->tid * (size_t)x->cap);
    }
    x->n = 0;
}

void tid_index_free(struct tid_index *x)
{
    free(x->tid);
    free(x->slot);
    memset(x, 0, sizeof *x);
}
