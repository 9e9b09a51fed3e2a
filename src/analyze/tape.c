/* tape.c — see tape.h. */
#include <stdlib.h>
#include <string.h>

#include "tape.h"

void tape_init(struct tape *t, size_t el)
{
    memset(t, 0, sizeof *t);
    t->el = el;
}

void tape_free(struct tape *t)
{
    free(t->buf);
    t->buf = NULL;
    t->head = t->n = t->cap = 0;
}

static int64_t time_at(const struct tape *t, long i)
{
    int64_t v;
    memcpy(&v, t->buf + (size_t)i * t->el, sizeof v);
    return v;
}

int64_t tape_time_back(const struct tape *t, long keep_last)
{
    if (t->n - t->head < keep_last || keep_last <= 0)
        return INT64_MIN;
    return time_at(t, t->n - keep_last);
}

int tape_push(struct tape *t, const void *e, int64_t keep_from_t, long keep_last)
{
    if (t->n == t->cap) {
        /* drop what no window can still need, keeping one sample before keep_from_t */
        long drop = t->head;
        long limit = t->n - keep_last;
        while (drop + 1 < limit && time_at(t, drop + 1) <= keep_from_t)
            drop++;
        if (drop > 0) {
            memmove(t->buf, t->buf + (size_t)drop * t->el, (size_t)(t->n - drop) * t->el);
            t->n -= drop;
            t->head = 0;
        }
        if (t->cap == 0 || t->n * 2 > t->cap) {
            long ncap = t->cap ? t->cap * 2 : 1024;
            unsigned char *nb = realloc(t->buf, (size_t)ncap * t->el);
            if (!nb)
                return -1;
            t->buf = nb;
            t->cap = ncap;
        }
    }
    memcpy(t->buf + (size_t)t->n * t->el, e, t->el);
    t->n++;
    return 0;
}

int tape_slice(const struct tape *t, int64_t t0, int64_t t1, void **out, long *n)
{
    *out = NULL;
    *n = 0;
    long lo = t->head, hi = t->n;     /* first element with time > t0 */
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (time_at(t, mid) <= t0)
            lo = mid + 1;
        else
            hi = mid;
    }
    long first = lo > t->head ? lo - 1 : lo;
    long last = lo;
    while (last < t->n && time_at(t, last) < t1)
        last++;
    if (last == t->n)
        last--;
    if (first > last || first >= t->n)
        return 0;
    long cnt = last - first + 1;
    void *copy = malloc((size_t)cnt * t->el);
    if (!copy)
        return -1;
    memcpy(copy, t->buf + (size_t)first * t->el, (size_t)cnt * t->el);
    *out = copy;
    *n = cnt;
    return 0;
}

void window_tape_free(struct window_tape *wt)
{
    if (!wt)
        return;
    for (int i = 0; i < wt->ngpu; i++)
        free(wt->gpu[i]);
    free(wt->host);
    free(wt);
}
