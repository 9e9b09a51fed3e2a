/* tuple_index.c — see tuple_index.h. */
#include <stdlib.h>
#include <string.h>

#include "tuple_index.h"

static unsigned long long mix(long a, long b, long c, long d)
{
    unsigned long long h = 0x9E3779B97F4A7C15ULL;
    long k[4] = { a, b, c, d };
    for (int i = 0; i < 4; i++) {
        h ^= (unsigned long long)k[i];
        h *= 0xBF58476D1CE4E5B9ULL;
        h ^= h >> 31;
    }
    return h;
}

static long cell_of(const struct tuple_index *x, long a, long b, long c, long d)
{
    long mask = x->cap - 1;
    long i = (long)(mix(a, b, c, d) & (unsigned long long)mask);
    while (x->used[i] && !(x->key[i][0] == a && x->key[i][1] == b && x->key[i][2] == c &&
                           x->key[i][3] == d))
        i = (i + 1) & mask;
    return i;
}

long tuple_index_get(const struct tuple_index *x, long a, long b, long c, long d)
{
    if (x->cap == 0)
        return -1;
    long i = cell_of(x, a, b, c, d);
    return x->used[i] ? x->val[i] : -1;
}

static int grow(struct tuple_index *x)
{
    long ncap = x->cap ? x->cap * 2 : 64;
    struct tuple_index n = { malloc(sizeof *n.key * (size_t)ncap), malloc(sizeof *n.val * (size_t)ncap),
                             calloc((size_t)ncap, 1), ncap, 0 };
    if (!n.key || !n.val || !n.used) {
        tuple_index_free(&n);
        return -1;
    }
    for (long i = 0; i < x->cap; i++)
        if (x->used[i]) {
            long *k = x->key[i];
            long c = cell_of(&n, k[0], k[1], k[2], k[3]);
            memcpy(n.key[c], k, sizeof n.key[c]);
            n.val[c] = x->val[i];
            n.used[c] = 1;
            n.n++;
        }
    tuple_index_free(x);
    *x = n;
    return 0;
}

int tuple_index_put(struct tuple_index *x, long a, long b, long c, long d, long v)
{
    if (2 * (x->n + 1) > x->cap && grow(x) != 0)
        return -1;
    long i = cell_of(x, a, b, c, d);
    x->key[i][0] = a;
    x->key[i][1] = b;
    x->key[i][2] = c;
    x->key[i][3] = d;
    x->val[i] = v;
    x->used[i] = 1;
    x->n++;
    return 0;
}

void tuple_index_free(struct tuple_index *x)
{
    free(x->key);
    free(x->val);
    free(x->used);
    memset(x, 0, sizeof *x);
}
