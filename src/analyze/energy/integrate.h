/*
 * integrate.h — exact integrals over arbitrary time spans of one sample
 * stream (one GPU, or the host), computed while the trace streams by.
 *
 * Owns: cumulative accumulators per quantity, and a bounded ring of their
 * recent values, one snapshot per sample, so that the cumulative value can
 * be interpolated at any instant still in the ring — marks may arrive in the
 * file after samples later than them (client-stamped marks). A window's
 * integral is then cum(end) - cum(start), each interpolated at the mark's
 * exact time, so edges are integrated exactly rather than from the first
 * to the last sample inside the window.
 *
 * Quantity kinds (how a reading relates to time):
 *   Q_TRAPEZOID  power/utilization: piecewise linear between readings;
 *                the cumulative is its exact integral.
 *   Q_STEP_BACK  a mean over the interval ending at the reading
 *                (host_cpu_busy_pct): cum += value * dt.
 *   Q_CUMULATIVE a counter read at the sample time (proc_cpu_ns, RAPL):
 *                linear between readings.
 *   Q_STEPPED    a counter that only advances every update step
 *                (gpu_energy_mJ): its knots are where it changed, placed at
 *                the middle of the sample interval in which it changed
 *                (at the sample itself when it changes at every sample),
 *                and it is linear between knots.
 */
#ifndef FLINCH_INTEGRATE_H
#define FLINCH_INTEGRATE_H

#include <stdint.h>

#define INTEG_MAX_Q 20
#define INTEG_REASON_BITS 16
#define INTEG_STEP_BINS 16000        /* counter update step histogram, 0.25 ms bins */
/* An instant at most this long before a quantity's first reading is still
 * answered, by extending the first reading back (see integ_cum_at). */
#define INTEG_EXTRAPOLATE_NS 1000000000LL

enum quantity_kind { Q_TRAPEZOID, Q_STEP_BACK, Q_CUMULATIVE, Q_STEPPED };

enum integ_status {
    INTEG_OK,
    INTEG_PENDING,       /* the time is after the last reading: wait for more */
    INTEG_NO_DATA,       /* no reading at or before the time: before the trace */
    INTEG_TOO_OLD        /* the time has left the ring */
};

struct qstate { int64_t t; double v, c; };  /* t == INT64_MIN: no reading yet */

struct integrator {
    int nq;
    enum quantity_kind kind[INTEG_MAX_Q];
    int cap;                 /* ring capacity in snapshots */
    long mask;               /* cap - 1 when cap is a power of two, else 0 */
    long count;              /* snapshots ever pushed */
    int64_t *t;              /* ring: sample time */
    struct qstate *q;        /* ring: cap * nq states */
    uint32_t *reasons;       /* ring: cap * INTEG_REASON_BITS cumulative counts */
    struct qstate cur[INTEG_MAX_Q];   /* state after the latest sample */
    uint32_t cur_reasons[INTEG_REASON_BITS];
    /* Q_STEPPED bookkeeping */
    int64_t last_obs_t[INTEG_MAX_Q];
    double last_obs_v[INTEG_MAX_Q];
    int last_obs_changed[INTEG_MAX_Q];
    double offset[INTEG_MAX_Q];       /* added after a counter reset */
    long changes[INTEG_MAX_Q];        /* times a stepped counter changed */
    uint32_t *step_hist;              /* knot intervals, for the counter's update step */
    long step_n;
    /* No instant before this is answered from the first reading (INT64_MIN:
     * none): a GPU that joined a recording late (--gpu auto) was not
     * recorded before the tick that preceded its first row. */
    int64_t extrapolate_floor_ns;
};

int integ_init(struct integrator *ig, int nq, const enum quantity_kind *kinds, int cap);
void integ_free(struct integrator *ig);

/* Adds a sample at time t (non-decreasing): values[nq], NAN where missing.
 * reasons: clock-event reason bits of this sample. Returns 1 and sets
 * gap_t0, gap_t1 when the ring dropped its oldest sample: the interval
 * between it and the new oldest leaves the ring (for max-gap tracking). */
int integ_add(struct integrator *ig, int64_t t, const double *values, uint64_t reasons,
              int64_t *gap_t0, int64_t *gap_t1);

/* At end of input: a stepped counter's latest reading becomes a knot. */
void integ_finish(struct integrator *ig);

/* The cumulative of quantity q at time t. Up to INTEG_EXTRAPOLATE_NS
 * before the first reading, the first reading is held (Q_TRAPEZOID) or the
 * first interval's rate extended back (the others). */
enum integ_status integ_cum_at(const struct integrator *ig, int q, int64_t t, double *cum);

/* At end of input, an instant up to INTEG_EXTRAPOLATE_NS after quantity
 * q's last reading (an "end" mark written after the last sample): the last
 * reading held, or the last interval's rate extended. NO_DATA beyond. */
enum integ_status integ_cum_after_end(const struct integrator *ig, int q, int64_t t, double *cum);

/* Latest reading time of quantity q, INT64_MIN if none. */
int64_t integ_last_time(const struct integrator *ig, int q);
int64_t integ_latest_sample(const struct integrator *ig);  /* INT64_MIN if none */

/* How many samples came before t (time < t; time <= t when inclusive) and,
 * per reason bit, how many of those had it set. A window's sample count is
 * count_before(end, inclusive) - count_before(start, exclusive). PENDING
 * while t is at or after the latest sample (more may come). */
enum integ_status integ_count_before(const struct integrator *ig, int64_t t, int inclusive,
                                     long *samples, uint32_t reasons[INTEG_REASON_BITS]);

/* Longest interval between consecutive ring samples overlapping (t0, t1). */
double integ_max_gap_s(const struct integrator *ig, int64_t t0, int64_t t1);

/* Median interval between changes of stepped quantity q (s), NAN if unknown. */
double integ_counter_step_s(const struct integrator *ig);

#endif
