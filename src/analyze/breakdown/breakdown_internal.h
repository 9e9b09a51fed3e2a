/*
 * breakdown_internal.h — what breakdown.c, breakdown_gpu.c and
 * breakdown_timeline.c share; private to the breakdown.
 *
 * A timeline is piecewise constant over [0, D] in ms from the window start,
 * each boundary with the resolution it is known to; edges are boundaries
 * gathered from several timelines (or signals), walked in order as the
 * intervals they cut [0, D] into.
 */
#ifndef FLINCH_BREAKDOWN_INTERNAL_H
#define FLINCH_BREAKDOWN_INTERNAL_H

#include "breakdown.h"

/* ST_UNREC: before a GPU's first reading (it joined late, --gpu auto);
 * ST_COLL: a collective kernel ran (traced kernels only, kernels_busy.h). */
/* ST_SPIN: busy by every utilization-like signal, but GPM says the SMs
 * are idle (gpu_spin.h): waiting, reason gpu-spin. */
enum { ST_NONE = 0, ST_BUSY = 1, ST_IDLE = 2, ST_UNREC = 3, ST_COLL = 4, ST_SPIN = 5 };
/* In a class timeline: a waiting stretch that is a GPU spinning. */
#define CLS_SPIN 0x40

/* A piecewise-constant timeline over [0, D]: n intervals, x[0] = 0, x[n] = D. */
struct timeline {
    int n, cap;
    double *x, *res;          /* n + 1 boundaries and the resolution of each */
    unsigned char *st;        /* all three in x's allocation (tl_free frees it) */
};

/* Appends an interval [x, ...) of state st whose start is known to +- res.
 * 0, or -1 when out of memory. */
int tl_push(struct timeline *tl, double x, double res, unsigned char st);
/* Ends the timeline at d (an empty one becomes one ST_NONE interval). */
void tl_close(struct timeline *tl, double d);
void tl_free(struct timeline *tl);
/* Empties tl, keeping its room for the next. */
void tl_reset(struct timeline *tl);
/* The interval of tl holding x: the last starting at or before it (0
 * when none does; tl not empty). */
int tl_index_at(const struct timeline *tl, double x);
/* The state of the interval holding x. */
unsigned char tl_at(const struct timeline *tl, double x);
/* Makes [0, from) of a closed timeline over [0, d] ST_UNREC. 0, or -1 when
 * out of memory. */
int tl_unrecorded_before(struct timeline *tl, double from, double d);

struct edge { double x, res; int dir; };   /* dir: +1 idle->busy, -1 busy->idle, 0 other */

/* Sorts m edges by x, stably (insertion sort up to EDGES_SORT_SMALL). */
#define EDGES_SORT_SMALL 64
void edges_sort(struct edge *x, long m);

/* Walks sorted edges as the intervals they cut [0, d] into: each call
 * gives the end of the interval starting at prev (the next distinct edge
 * inside (prev, d), or d) and that edge's resolution (the finest of the
 * edges there). 0 once d has been given. */
struct edge_walk {
    const struct edge *e;
    long n, i;
    double prev, prev_res;
};

int edge_next(struct edge_walk *w, double d, double *next, double *res);

/* The arrays a GPU's timeline is worked out in, kept from one window's
 * breakdown to the next (breakdown_gpu.c); NULL when out of memory. */
struct gpu_timeline_work;
struct gpu_timeline_work *gpu_timeline_work_new(void);
void gpu_timeline_work_free(struct gpu_timeline_work *work);

/* The fused busy/idle timeline of one GPU (breakdown_gpu.c); *base_res:
 * the resolution an edge would have with the best signal present. work:
 * the arrays to work in (above), NULL for this call's own. 0, or -1
 * when out of memory. */
int breakdown_gpu_timeline(const struct analysis_options *o, const struct window_gpu *g,
                           const struct gpu_sample *smp, long n, int medium_every_tick,
                           int idle_bit_live, double t0,
                           double d, const struct sensor_cadence *cad, struct timeline *out,
                           double *base_res, struct gpu_timeline_work *work);

#endif
