/* sensor_cadence.c — see sensor_cadence.h. */
#include <math.h>
#include <string.h>

#include "sensor_cadence.h"

void cadence_init(struct cadence_tracker *c)
{
    memset(c, 0, sizeof *c);
    for (int s = 0; s < SENSOR_N; s++) {
        c->last_t[s] = INT64_MIN;
        c->last_change_t[s] = INT64_MIN;
    }
    c->prev_sample_t = INT64_MIN;
}

static void hist_add(uint32_t *hist, long *n, int64_t dt_ns)
{
    long bin = (long)(dt_ns / 500000);
    if (bin >= 0 && bin < CADENCE_BINS) {
        hist[bin]++;
        (*n)++;
    }
}

void cadence_add(struct cadence_tracker *c, int64_t t, const double v[SENSOR_N])
{
    if (c->prev_sample_t != INT64_MIN && t > c->prev_sample_t)
        hist_add(c->sample_hist, &c->nsample, t - c->prev_sample_t);
    if (t > c->prev_sample_t)
        c->prev_sample_t = t;
    for (int s = 0; s < SENSOR_N; s++) {
        if (isnan(v[s]))
            continue;
        c->readings[s]++;
        if (c->last_t[s] != INT64_MIN && v[s] != c->last_v[s]) {
            if (c->last_change_t[s] != INT64_MIN) {
                hist_add(c->hist[s], &c->nhist[s], t - c->last_change_t[s]);
                if (c->last_change_t[s] == c->last_t[s])
                    c->every_sample[s]++;
            }
            c->last_change_t[s] = t;
            c->changes[s]++;
        }
        c->last_t[s] = t;
        c->last_v[s] = v[s];
    }
}

/* The q-quantile of a histogram, in seconds (bin middles). */
static double quantile_s(const uint32_t *hist, long n, double q)
{
    long want = (long)ceil(q * (double)n), seen = 0;
    if (want < 1)
        want = 1;
    for (long b = 0; b < CADENCE_BINS; b++) {
        seen += hist[b];
        if (seen >= want)
            return (b + 0.5) * 0.0005;
    }
    return NAN;
}

struct cadence cadence_get(const struct cadence_tracker *c, enum sensor_id s)
{
    struct cadence r = { NAN, 0, c->changes[s] };
    if (c->nhist[s] < CADENCE_MIN_CHANGES)
        return r;
    /* the counter changes at every update (power is never 0); the others
     * only when the quantity moved */
    r.period_s = quantile_s(c->hist[s], c->nhist[s], s == SENSOR_COUNTER ? 0.5 : 0.25);
    /* Changes at most samples: the sensor is at least as fast as the sampler. */
    if (c->every_sample[s] * 2 > c->nhist[s] && c->nsample) {
        r.period_s = quantile_s(c->sample_hist, c->nsample, 0.5);
        r.at_most = 1;
    }
    return r;
}

const char *sensor_name(enum sensor_id s)
{
    static const char *const names[SENSOR_N] = {
        "energy counter", "instant power", "averaged power", "utilization"
    };
    return s < SENSOR_N ? names[s] : "?";
}

const char *sensor_key(enum sensor_id s)
{
    static const char *const keys[SENSOR_N] = { "counter", "instant", "average", "util" };
    return s < SENSOR_N ? keys[s] : "?";
}
