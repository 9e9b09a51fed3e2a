/*
 * breakdown_timeline.c — the breakdown's piecewise-constant timelines and
 * the walk over their merged edges (breakdown_internal.h): building,
 * closing and reading a timeline, marking its not-recorded start, and
 * cutting [0, D] at sorted edges.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "breakdown_internal.h"

/* The three arrays share one allocation (x, then res, then st): a window's
 * breakdown builds a handful of timelines, and three allocations each were
 * a sixth of its calls to malloc. The first holds 32 intervals (most
 * timelines hold a few): 544 bytes, which glibc keeps in its per-thread
 * cache, where 1,024 or more made every malloc and free of one sweep the
 * fast bins (malloc_consolidate). */
static int tl_grow(struct timeline *tl)
{
    int ncap = tl->cap ? tl->cap * 2 : 32;
    double *nx = malloc((sizeof *tl->x + sizeof *tl->res + sizeof *tl->st) * (size_t)ncap);
    if (!nx)
        return -1;
    double *nr = nx + ncap;
    unsigned char *ns = (unsigned char *)(nr + ncap);
    if (tl->cap) {
        memcpy(nx, tl->x, sizeof *nx * (size_t)tl->cap);
        memcpy(nr, tl->res, sizeof *nr * (size_t)tl->cap);
        memcpy(ns, tl->st, (size_t)tl->cap);
    }
    free(tl->x);
    tl->x = nx;
    tl->res = nr;
    tl->st = ns;
    tl->cap = ncap;
    return 0;
}

int tl_push(struct timeline *tl, double x, double res, unsigned char st)
{
    if (tl->n + 2 > tl->cap && tl_grow(tl) != 0)
        return -1;
    /* interval n starts at x; merge with the previous when equal */
    if (tl->n > 0 && tl->st[tl->n - 1] == st)
        return 0;
    if (tl->n > 0 && x <= tl->x[tl->n - 1]) {     /* zero-length: replace */
        tl->st[tl->n - 1] = st;
        if (tl->n > 1 && tl->st[tl->n - 2] == st)
            tl->n--;
        return 0;
    }
    tl->x[tl->n] = x;
    tl->res[tl->n] = res;
    tl->st[tl->n] = st;
    tl->n++;
    return 0;
}

void tl_close(struct timeline *tl, double d)
{
    if (tl->n == 0) {
        tl_push(tl, 0, 0, ST_NONE);
    }
    tl->x[tl->n] = d;
    tl->res[tl->n] = 0;
}

void tl_free(struct timeline *tl)
{
    free(tl->x);                        /* res and st with it (tl_grow) */
    memset(tl, 0, sizeof *tl);
}

void tl_reset(struct timeline *tl)
{
    tl->n = 0;
}

int tl_index_at(const struct timeline *tl, double x)
{
    int lo = 0, hi = tl->n - 1;         /* last interval starting at or before x */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (tl->x[mid] <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

unsigned char tl_at(const struct timeline *tl, double x)
{
    return tl->n ? tl->st[tl_index_at(tl, x)] : ST_NONE;
}

/* A GPU that joined the recording late (--gpu auto) has no reading before
 * its first one at `from` ms: whatever its signals would say there is
 * extrapolated, so the timeline is ST_UNREC over [0, from). The edge at
 * `from` is exact (a reading's stamp). */
int tl_unrecorded_before(struct timeline *tl, double from, double d)
{
    struct timeline out = { 0 };
    int rc = tl_push(&out, 0, 0, ST_UNREC);
    for (int i = 0; rc == 0 && i < tl->n && from < d; i++) {
        if (tl->x[i + 1] <= from)
            continue;
        rc = tl_push(&out, fmax(tl->x[i], from), tl->x[i] <= from ? 0 : tl->res[i], tl->st[i]);
    }
    if (rc == 0)
        tl_close(&out, d);
    tl_free(tl);
    *tl = out;
    return rc;
}

static int cmp_edge(const void *a, const void *b)
{
    const struct edge *p = a, *q = b;
    return (p->x > q->x) - (p->x < q->x);
}

/* A window's edges are a few dozen, mostly in order already: insertion
 * sort there (qsort cost ~7 k instructions a window, 5 % of a window's
 * whole cost at 10,000 windows). Both sorts are stable, so ties come out
 * as qsort (glibc's merge sort) gives them. */
void edges_sort(struct edge *x, long m)
{
    if (m > EDGES_SORT_SMALL) {
        qsort(x, (size_t)m, sizeof *x, cmp_edge);
        return;
    }
    for (long i = 1; i < m; i++) {
        struct edge e = x[i];
        long j = i;
        for (; j > 0 && x[j - 1].x > e.x; j--)
            x[j] = x[j - 1];
        x[j] = e;
    }
}

int edge_next(struct edge_walk *w, double d, double *next, double *res)
{
    if (w->prev >= d && w->i > 0)
        return 0;
    while (w->i < w->n && w->e[w->i].x <= w->prev)
        w->i++;
    *next = d;
    *res = 0;
    if (w->i < w->n && w->e[w->i].x < d) {
        *next = w->e[w->i].x;
        *res = w->e[w->i].res;
        while (++w->i < w->n && w->e[w->i].x == *next)
            *res = fmin(*res, w->e[w->i].res);
    } else {
        w->i = w->n + 1;                 /* the last interval */
    }
    return 1;
}
