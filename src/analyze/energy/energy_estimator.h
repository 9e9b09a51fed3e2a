/*
 * energy_estimator.h — a GPU's cumulative energy at any instant, from the
 * energy counter's increments placed on its own update grid and a step
 * model of the power inside the counter step that holds the instant.
 *
 * Owns: a bounded ring of one GPU's raw counter readings (the integrator
 * keeps only knots), the local fit of the counter's update grid, and
 * est_cum_at(), the refined cumulative with its uncertainty. A window's
 * energy is est_cum_at(end) - est_cum_at(start); see energy_estimator.c
 * for the reasoning and assumptions.
 */
#ifndef FLINCH_ENERGY_ESTIMATOR_H
#define FLINCH_ENERGY_ESTIMATOR_H

#include <stdint.h>

#include "integrate.h"

/* changes: the estimator's changes count once this reading was added */
struct est_obs { int64_t t; double mj; long changes; };

struct energy_estimator {
    struct est_obs *ring;            /* counter readings, oldest first modulo cap */
    long cap, count;
    long mask;                       /* cap - 1 when cap is a power of two, else 0 */
    double offset_mj;                /* added after a counter reset */
    double last_mj;
    int64_t last_t;
    long changes;                    /* readings that differed from the one before */
};

/* What an instant's estimate rests on, for the report. */
struct est_result {
    double cum_j, unc_j;
    double knot_unc_s;               /* how well the update instants are placed */
    int model;                       /* 0: uniform inside the step, 1: two-level */
};

int est_init(struct energy_estimator *e, long cap);
void est_free(struct energy_estimator *e);
/* A counter reading (mJ) at sample time t (non-decreasing); NAN: none. */
void est_add(struct energy_estimator *e, int64_t t, double mj);
/* What est_cum_at's INTEG_PENDING for instant t rests on, once it has
 * answered so: it answers the same while fewer than `changes` changes of
 * the counter have been read and the last reading's time stays in
 * [lo_t, hi_t] (how long ago t is, against its waits). A caller that holds
 * many pending instants, each asked on every row, need not ask again
 * before (est_still_pending). */
struct est_wake {
    long changes;
    int64_t lo_t, hi_t;
};
/* The wake of instant t after est_cum_at(t) answered INTEG_PENDING; 0
 * when there is none to give (no reading yet: ask again), else 1. */
int est_pending_wake(const struct energy_estimator *e, int64_t t, struct est_wake *w);
static inline int est_still_pending(const struct energy_estimator *e, const struct est_wake *w)
{
    return e->changes < w->changes && e->last_t >= w->lo_t && e->last_t <= w->hi_t;
}
/* Counter updates an edge needs after it (the step holding it and two
 * more): est_cum_at gives up at the end of a trace with fewer. */
#define EST_EDGE_UPDATES 3

/* How many counter updates surely after t were read: between two readings
 * at or after t (up to EST_EDGE_UPDATES: the count stops there). The first
 * change read after t may have happened before it, so fewer than
 * EST_EDGE_UPDATES of these at the end of a trace can leave t without the
 * steps it needs. */
int est_changes_after(const struct energy_estimator *e, int64_t t);

/* One change of the counter: between samples a and b (ns) it went to mj;
 * consecutive: the sample before b was a change too. est_place_knots
 * fills u (s) and unc (s). */
struct est_change { int64_t a, b; double mj; int consecutive; double u, unc; };
#define EST_KNOTS_MAX 32                 /* est_place_knots' n, at most */
/* Places every change's update instant (u +- unc) on the counter's update
 * grid fitted through all of them (see energy_estimator.c, (a)); n >= 2. */
void est_place_knots(struct est_change *c, int n);

/* INTEG_OK with *r; INTEG_PENDING while too few updates after t have been
 * read (eof: never pending); INTEG_NO_DATA when the counter cannot carry
 * the estimate there (too few updates around t, a reset, a stuck counter):
 * the caller falls back to the interpolated counter. */
enum integ_status est_cum_at(const struct energy_estimator *e, int64_t t, int eof,
                             struct est_result *r);

#endif
