/* segment_merge.c — merging short segments, and their order; see segment_merge.h. */
#include <string.h>

#include "segment_merge.h"

/* Drops boundary k (0 < k < n) of tl: segment k joins segment k-1. */
static void drop_boundary(struct timeline *tl, int k)
{
    memmove(&tl->x[k], &tl->x[k + 1], sizeof *tl->x * (size_t)(tl->n - k));
    memmove(&tl->res[k], &tl->res[k + 1], sizeof *tl->res * (size_t)(tl->n - k));
    memmove(&tl->st[k], &tl->st[k + 1], (size_t)(tl->n - k - 1));
    tl->n--;
}

static void coalesce(struct timeline *tl)
{
    for (int k = tl->n - 1; k > 0; k--)
        if (tl->st[k] == tl->st[k - 1])
            drop_boundary(tl, k);
}

void segment_merge_short(struct timeline *tl, double shortest)
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

void segment_merge_isolated(struct timeline *tl, unsigned char st, unsigned char around, double shortest)
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
