/* tape.c — see tape.h. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "search_back.h"
#include "tape.h"

/* The store keeps every byte of a sample in 8-byte words after t, the
 * padding included (zero: tapes_push clears a sample before filling it). */
_Static_assert(sizeof(struct gpu_sample) % 8 == 0 && sizeof(struct gpu_sample) <= STORE_REC_MAX
               && offsetof(struct gpu_sample, t) == 0, "a gpu_sample fits a sample_store");
_Static_assert(sizeof(struct host_sample) % 8 == 0 && sizeof(struct host_sample) <= STORE_REC_MAX
               && offsetof(struct host_sample, t) == 0, "a host_sample fits a sample_store");

static void tape_init(struct tape *t, size_t el)
{
    memset(t, 0, sizeof *t);
    store_init(&t->store, el);
    t->recent = malloc(TAPE_RECENT * sizeof *t->recent);   /* NULL: the store answers */
}

void tape_init_gpu(struct tape *t)
{
    tape_init(t, sizeof(struct gpu_sample));
}

void tape_init_host(struct tape *t)
{
    tape_init(t, sizeof(struct host_sample));
}

void tape_free(struct tape *t)
{
    store_free(&t->store);
    free(t->recent);
    t->recent = NULL;
    t->first = t->n = t->cap = t->disorder_at = 0;
}

static int64_t time_at(const struct tape *t, long i)
{
    long at = t->first + i;
    if (t->store.end - at <= TAPE_RECENT && t->recent)
        return t->recent[at & (TAPE_RECENT - 1)];
    return store_time(&t->store, at);
}

int64_t tape_last_time(const struct tape *t)
{
    return t->n > 0 ? t->last_t : INT64_MIN;
}

/* The drops and growth of the array the tape once was (a full array first
 * dropped what no window could still need, then doubled when still over
 * half full): kept as they were, since which samples are still there when
 * a window's edges are resolved decides its range. */
#define TAPE_FIRST_CAP 1024

int tape_push(struct tape *t, const void *e, int64_t keep_from_t, long keep_last)
{
    if (t->n == t->cap) {
        /* drop what no window can still need, keeping one sample before keep_from_t */
        long drop = 0;
        long limit = t->n - keep_last;
        if (limit > 1)   /* drop + 1: the first of [1, limit) after keep_from_t, less one */
            drop = store_first_over(&t->store, t->first + 1, t->first + limit, keep_from_t) - t->first - 1;
        if (drop > 0) {
            t->first += drop;
            t->n -= drop;
        }
        if (t->cap == 0 || t->n * 2 > t->cap)
            t->cap = t->cap ? t->cap * 2 : TAPE_FIRST_CAP;
    }
    int64_t te;
    memcpy(&te, e, sizeof te);
    if (t->n > 0 && te < t->last_t)
        t->disorder_at = t->first + t->n;
    if (t->recent)
        t->recent[t->store.end & (TAPE_RECENT - 1)] = te;
    if (store_push(&t->store, e) != 0)
        return -1;
    t->last_t = te;
    t->n++;
    /* Without an open window the tape holds at most its first capacity or
     * fewer than 4 * (keep_last + 1) samples (full, it drops back to
     * keep_last + 1, and doubles only while that is over half of it, so it
     * stops under twice that): what lies further back is held for a window
     * open that long (one over the whole trace holds all of it), and is
     * packed. */
    long reach = 4 * (keep_last + 1) > TAPE_FIRST_CAP ? 4 * (keep_last + 1) : TAPE_FIRST_CAP;
    long pack_before = t->first + t->n - reach;
    if (pack_before / STORE_BLOCK > t->store.pack_block           /* tested here: every push */
        && store_pack_before(&t->store, pack_before) != 0)
        return -1;
    return t->first / STORE_BLOCK > t->store.trim_block ? store_trim(&t->store, t->first) : 0;
}

/* Whether the tape's times only go forward: no element of it is earlier
 * than the one before it (the first's predecessor has left the tape). */
static int times_in_order(const struct tape *t)
{
    return t->disorder_at <= t->first;
}

struct over_arg {
    const struct tape *t;
    int64_t t0;
};

static int time_over(const void *arg, long i)
{
    const struct over_arg *a = arg;
    return time_at(a->t, i) > a->t0;
}

/* The first element with time over t0: a binary search over the tape, as
 * the array it once was made it, so that a tape whose times go back now
 * and then (rows out of order) cuts where it always did. Where they only
 * go forward any search finds the same element, and search_back finds it
 * among the newest blocks: a window's edges lie near the tape's end, and
 * the middle of a tape holding thousands of samples was a cache miss on a
 * block packed long ago, on every probe. */
static long first_over(const struct tape *t, int64_t t0)
{
    if (times_in_order(t)) {
        struct over_arg a = { t, t0 };
        return search_back(0, t->n, time_over, &a);
    }
    long lo = 0, hi = t->n;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (time_at(t, mid) <= t0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void tape_slice(const struct tape *t, int64_t t0, int64_t t1, long *first, long *n)
{
    *first = t->first;
    *n = 0;
    long lo = first_over(t, t0);
    long lo_first = lo > 0 ? lo - 1 : lo;
    long last = lo;      /* the first at or after t1: a walk from lo, or where
                            the times only go forward, a search from the end */
    if (last < t->n && t1 != INT64_MIN) {
        struct over_arg a = { t, t1 - 1 };
        last = times_in_order(t)
                   ? search_back(last, t->n, time_over, &a)
                   : store_first_over(&t->store, t->first + last, t->first + t->n, t1 - 1) - t->first;
    }
    if (last == t->n)
        last--;
    if (lo_first > last || lo_first >= t->n)
        return;
    *first = t->first + lo_first;
    *n = last - lo_first + 1;
}

void tape_scratch_free(struct tape_scratch *sc)
{
    for (int k = 0; k < TAPE_MAX_GPUS; k++)
        free(sc->gpu[k].buf);
    free(sc->host.buf);
    memset(sc, 0, sizeof *sc);
}
