/*
 * sensor_cadence.h — how often each GPU sensor really updates, measured
 * from the trace alone.
 *
 * Owns: per GPU and per sensor (energy counter, instantaneous power,
 * averaged power, utilization) the intervals between the samples at which
 * the value changed, as a histogram, and the update period read from it.
 * A sensor that refreshes every P ms but is sampled every I ms < P shows a
 * change at most every P ms; when the quantity itself holds still it shows
 * none, so the intervals are multiples of P: the period is the lower
 * quartile of the intervals, not the median. A sensor that changes at
 * every sample updates at least as often as the sampler (reported as the
 * sample interval, with `at_most` set).
 */
#ifndef FLINCH_SENSOR_CADENCE_H
#define FLINCH_SENSOR_CADENCE_H

#include <stdint.h>

enum sensor_id { SENSOR_COUNTER, SENSOR_INSTANT, SENSOR_AVERAGE, SENSOR_UTIL, SENSOR_N };

#define CADENCE_BINS 4000            /* 0.5 ms bins: intervals up to 2 s */
#define CADENCE_MIN_CHANGES 4        /* fewer intervals: period unknown */

struct cadence_tracker {
    int64_t last_t[SENSOR_N];        /* last sample with a reading, INT64_MIN: none */
    int64_t last_change_t[SENSOR_N]; /* sample at which it last changed */
    double last_v[SENSOR_N];
    long readings[SENSOR_N], changes[SENSOR_N], every_sample[SENSOR_N];
    uint32_t hist[SENSOR_N][CADENCE_BINS];
    long nhist[SENSOR_N];
    int64_t prev_sample_t;           /* for the sample interval */
    uint32_t sample_hist[CADENCE_BINS];
    long nsample;
};

/* One sensor's update period as the trace shows it. */
struct cadence {
    double period_s;                 /* NAN: unknown (too few changes) */
    int at_most;                     /* changed at (nearly) every sample: period <= period_s */
    long changes;
};

void cadence_init(struct cadence_tracker *c);
/* A sample at time t (non-decreasing) with the sensors' values, NAN where missing. */
void cadence_add(struct cadence_tracker *c, int64_t t, const double v[SENSOR_N]);
struct cadence cadence_get(const struct cadence_tracker *c, enum sensor_id s);
const char *sensor_name(enum sensor_id s);   /* "energy counter", ... */
const char *sensor_key(enum sensor_id s);    /* "counter", "instant", "average", "util" */

#endif
