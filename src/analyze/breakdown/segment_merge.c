/* segment_merge.c — merging short segments, and their order; see segment_merge.h. */
#include <stdlib.h>

#include "segment_merge.h"

/* Equal neighbours as one, in one pass: each run keeps its first start
 * (and its resolution). */
static void coalesce(struct timeline *tl)
{
    int k = tl->n > 0 ? 1 : 0;
    for (int i = 1; i < tl->n; i++)
        if (tl->st[i] != tl->st[k - 1]) {
            tl->x[k] = tl->x[i];
            tl->res[k] = tl->res[i];
            tl->st[k++] = tl->st[i];
        }
    tl->x[k] = tl->x[tl->n];
    tl->res[k] = tl->res[tl->n];
    tl->n = k;
}

/* See segment_merge.h. */
void segment_merge_short_walk(struct timeline *tl, double shortest)
{
    coalesce(tl);
    while (tl->n > 1) {
        int i = -1;
        double best = shortest;
        for (int k = 0; k < tl->n; k++) {
            double len = tl->x[k + 1] - tl->x[k];
            if (len < best) {
                best = len;
                i = k;
            }
        }
        if (i < 0)
            break;
        int to;
        if (i == 0)
            to = 1;
        else if (i == tl->n - 1)
            to = i - 1;
        else if (tl->st[i - 1] == tl->st[i + 1])
            to = i - 1;
        else
            to = tl->x[i + 2] - tl->x[i + 1] > tl->x[i] - tl->x[i - 1] ? i + 1 : i - 1;
        /* Joining the next keeps this segment's start (and its resolution). */
        tl->st[i] = tl->st[to];
        coalesce(tl);
    }
}

/* See segment_merge.h. */
void segment_merge_isolated_walk(struct timeline *tl, unsigned char st, unsigned char around, double shortest)
{
    coalesce(tl);
    for (int k = 0; tl->n > 1 && k < tl->n; k++) {
        double len = tl->x[k + 1] - tl->x[k];
        if (tl->st[k] != st || len >= shortest)
            continue;
        int ok = 1;
        if (k > 0)
            ok &= tl->st[k - 1] == around && tl->x[k] - tl->x[k - 1] >= len;
        if (k + 1 < tl->n)
            ok &= tl->st[k + 1] == around && tl->x[k + 2] - tl->x[k + 1] >= len;
        if (!ok)
            continue;
        tl->st[k] = around;
        coalesce(tl);
        k = -1;                       /* boundaries moved: from the start again */
    }
}

/* A piece waiting in the heap: its length and start when pushed, and the
 * version of the piece then (a merge that changes a piece bumps it). */
struct piece_key { double len, x; int i, ver; };

static int key_before(const struct piece_key *a, const struct piece_key *b)
{
    return a->len < b->len || (a->len == b->len && a->x < b->x);
}

static void heap_push(struct piece_key *h, int *n, struct piece_key k)
{
    int i = (*n)++;
    while (i > 0 && key_before(&k, &h[(i - 1) / 2])) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = k;
}

static struct piece_key heap_pop(struct piece_key *h, int *n)
{
    struct piece_key top = h[0], last = h[--*n];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && key_before(&h[c + 1], &h[c]))
            c++;
        if (!key_before(&h[c], &last))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = last;
    return top;
}

/* The pieces left in the list, in its order, back into tl's arrays.
 * Piece 0 is never merged away (a join keeps the left piece), and the
 * list only goes forward, so each piece moves down or stays. */
static void list_to_timeline(struct timeline *tl, const int *next)
{
    int k = 0, n = tl->n;
    for (int i = 0; i >= 0; i = next[i]) {
        tl->x[k] = tl->x[i];
        tl->res[k] = tl->res[i];
        tl->st[k++] = tl->st[i];
    }
    tl->x[k] = tl->x[n];
    tl->res[k] = tl->res[n];
    tl->n = k;
}

static double piece_len(const double *x, const int *next, double end, int i)
{
    return (next[i] >= 0 ? x[next[i]] : end) - x[i];
}

/* The n pieces as a list, each linked to its neighbours. */
static void list_init(int *next, int *prev, int n)
{
    for (int i = 0; i < n; i++) {
        next[i] = i + 1 < n ? i + 1 : -1;
        prev[i] = i - 1;
    }
}

/* The piece after a joins a: the list skips it. */
static void join_next(int *next, int *prev, int a)
{
    int b = next[a];
    next[a] = next[b];
    if (next[b] >= 0)
        prev[next[b]] = a;
}

/* The same merge over a list of the pieces, the shortest taken from a
 * heap: a whole run's host timeline holds hundreds of thousands of pieces
 * when its load hovers at the threshold, and the walk took 0.52 s for
 * 80,000 samples, 16x that for 4x. The shortest comes first, the earliest
 * of equals, as the walk found it; a merge keeps the left piece's start
 * and resolution, as dropping the boundary between them did. */
void segment_merge_short(struct timeline *tl, double shortest)
{
    coalesce(tl);
    int n = tl->n;
    if (n <= 1)
        return;
    int *next = malloc(sizeof *next * (size_t)n * 3);
    struct piece_key *heap = malloc(sizeof *heap * (size_t)n * 2);
    if (!next || !heap) {
        free(next);
        free(heap);
        segment_merge_short_walk(tl, shortest);
        return;
    }
    int *prev = next + n, *ver = prev + n, nheap = 0, alive = n;
    double *x = tl->x, end = tl->x[n];
    list_init(next, prev, n);
    for (int i = 0; i < n; i++) {
        ver[i] = 0;
        if (x[i + 1] - x[i] < shortest)
            heap_push(heap, &nheap, (struct piece_key){ x[i + 1] - x[i], x[i], i, 0 });
    }
    while (alive > 1 && nheap > 0) {
        struct piece_key k = heap_pop(heap, &nheap);
        int i = k.i;
        if (ver[i] != k.ver)
            continue;                    /* merged since, or gone */
        int p = prev[i], q = next[i];
        int to = p < 0 ? q : q < 0 ? p : tl->st[p] == tl->st[q] ? p : piece_len(x, next, end, q) > piece_len(x, next, end, p) ? q : p;
        tl->st[i] = tl->st[to];
        int j = i;
        if (p >= 0 && tl->st[p] == tl->st[i]) {      /* i joins p */
            join_next(next, prev, p);
            ver[i] = -1;
            j = p;
            alive--;
        }
        if (q >= 0 && tl->st[q] == tl->st[j]) {      /* q joins j */
            join_next(next, prev, j);
            ver[q] = -1;
            alive--;
        }
        ver[j]++;
        double len = piece_len(x, next, end, j);
        if (len < shortest)
            heap_push(heap, &nheap, (struct piece_key){ len, x[j], j, ver[j] });
    }
    list_to_timeline(tl, next);
    free(next);
    free(heap);
}

/* Whether piece i (of state st, in the list) is an isolated one: shorter
 * than shortest, each neighbour there of state around and at least as long. */
static int isolated(const struct timeline *tl, const int *prev, const int *next, double end, int i,
                    unsigned char st, unsigned char around, double shortest)
{
    double len = piece_len(tl->x, next, end, i);
    int p = prev[i], q = next[i];
    return tl->st[i] == st && len < shortest
           && (p < 0 || (tl->st[p] == around && piece_len(tl->x, next, end, p) >= len))
           && (q < 0 || (tl->st[q] == around && piece_len(tl->x, next, end, q) >= len));
}

/* The earliest isolated piece first, as a walk from the start after each
 * change found it: a change only lengthens the around piece it makes, so
 * only the pieces next to that one can become isolated. The walk took 8 s
 * for 200,000 pieces. Without memory for the list, the walk. */
void segment_merge_isolated(struct timeline *tl, unsigned char st, unsigned char around, double shortest)
{
    coalesce(tl);
    int n = tl->n;
    if (n <= 1)
        return;
    int *next = malloc(sizeof *next * (size_t)n * 2);
    struct piece_key *heap = malloc(sizeof *heap * (size_t)n * 3);
    if (!next || !heap) {
        free(next);
        free(heap);
        segment_merge_isolated_walk(tl, st, around, shortest);
        return;
    }
    int *prev = next + n, nheap = 0, alive = n;
    double *x = tl->x, end = tl->x[n];
    list_init(next, prev, n);
    for (int i = 0; i < n; i++)
        if (isolated(tl, prev, next, end, i, st, around, shortest))
            heap_push(heap, &nheap, (struct piece_key){ x[i], x[i], i, 0 });
    while (alive > 1 && nheap > 0) {
        int i = heap_pop(heap, &nheap).i;
        if (tl->st[i] != st)
            continue;                    /* pushed twice, changed since */
        int p = prev[i], q = next[i], j = i;
        tl->st[i] = around;
        if (p >= 0) {                    /* i joins p */
            join_next(next, prev, p);
            j = p;
            alive--;
        }
        if (q >= 0) {                    /* q joins j */
            join_next(next, prev, j);
            alive--;
        }
        for (int side = 0; side < 2; side++) {
            int k = side ? next[j] : prev[j];
            if (k >= 0 && isolated(tl, prev, next, end, k, st, around, shortest))
                heap_push(heap, &nheap, (struct piece_key){ x[k], x[k], k, 0 });
        }
    }
    list_to_timeline(tl, next);
    free(next);
    free(heap);
}

int segment_placed(const struct breakdown *bd, int i)
{
    return bd->seg[i].end_ms - bd->seg[i].start_ms >= bd->resolution_ms;
}

int segments_in_order(const struct breakdown *bd)
{
    if (bd->outline_of > 0)
        return 0;                         /* an outline hides the order */
    int done[CLASS_COUNT] = { 0 };
    int prev = -1;                        /* the class of the last placed segment */
    for (int i = 0; i < bd->nseg; i++) {
        if (!segment_placed(bd, i))
            continue;
        enum time_class c = bd->seg[i].cls;
        if ((int)c != prev) {
            if (done[c])
                return 0;
            if (prev >= 0)
                done[prev] = 1;
            prev = (int)c;
        }
    }
    return 1;
}
