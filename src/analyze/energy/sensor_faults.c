/* sensor_faults.c — see sensor_faults.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "sensor_faults.h"

#define STUCK_NS (1000000000LL)
#define STUCK_MIN_W 20.0
#define FROZEN_NS (2000000000LL)
#define FROZEN_UTIL_CHANGES 3
#define LOST_NS (1000000000LL)
#define LOST_MIN_READINGS 10
#define JUMP_NO_LIMIT_W 1000.0       /* half the implausible power without a limit */
#define MAX_SPANS 1024

void faults_init(struct sensor_faults *f)
{
    memset(f, 0, sizeof *f);
    f->min_power_since = INFINITY;
}

void faults_free(struct sensor_faults *f)
{
    free(f->spans);
    f->spans = NULL;
}

static void push(struct sensor_faults *f, int64_t t0, int64_t t1, unsigned flag, int sensor,
                 double value)
{
    /* the same fault continuing: extend the last span */
    if (f->nspans && f->spans[f->nspans - 1].flag == flag && f->spans[f->nspans - 1].sensor == sensor
        && f->spans[f->nspans - 1].t1 >= t0) {
        f->spans[f->nspans - 1].t1 = t1;
        return;
    }
    if (f->nspans == MAX_SPANS)
        return;                      /* bounded: the first MAX_SPANS are named */
    if (f->nspans == f->cap) {
        int cap = f->cap ? f->cap * 2 : 8;
        struct fault_span *s = realloc(f->spans, sizeof *s * (size_t)cap);
        if (!s)
            return;
        f->spans = s;
        f->cap = cap;
    }
    f->spans[f->nspans++] = (struct fault_span){ t0, t1, flag, sensor, value };
}

/* The counter held since ctr_change_t; at t it moved (or the trace ended). */
static void close_hold(struct sensor_faults *f, int64_t t)
{
    if (f->have_ctr && t - f->ctr_change_t > STUCK_NS && f->min_power_since > STUCK_MIN_W
        && isfinite(f->min_power_since))
        push(f, f->ctr_change_t, t, WINDOW_COUNTER_STUCK, SENSOR_COUNTER, f->min_power_since);
}

static void add_counter(struct sensor_faults *f, int64_t t, double mj, double power_w,
                        double limit_w)
{
    if (!f->have_ctr) {
        f->have_ctr = 1;
        f->ctr_v = mj;
        f->ctr_change_t = f->ctr_t = f->ctr_before_t = t;
        f->min_power_since = INFINITY;
        return;
    }
    if (mj != f->ctr_v) {
        close_hold(f, f->ctr_t);
        /* the longest the increment can have taken: from the reading
         * before the previous change to this one (a late sample followed by
         * an early one must not look like a jump) */
        double dt = (double)(t - f->ctr_before_t) / 1e9;
        double implied = (mj - f->ctr_v) / 1000 / (dt > 0 ? dt : 1e-9);
        double cap = 2 * (isnan(limit_w) || limit_w <= 0 ? JUMP_NO_LIMIT_W : limit_w);
        if (mj < f->ctr_v)
            push(f, f->ctr_t, t, WINDOW_COUNTER_BACKWARDS, SENSOR_COUNTER, (mj - f->ctr_v) / 1000);
        else if (implied > cap)
            push(f, f->ctr_change_t, t, WINDOW_COUNTER_JUMP, SENSOR_COUNTER, implied);
        f->ctr_v = mj;
        f->ctr_before_t = f->ctr_t;
        f->ctr_change_t = t;
        f->min_power_since = INFINITY;
    }
    f->ctr_t = t;
    if (!isnan(power_w))
        f->min_power_since = fmin(f->min_power_since, power_w);
}

static void close_frozen(struct sensor_faults *f, int64_t t)
{
    if (f->have_inst && t - f->inst_change_t >= FROZEN_NS && f->util_changes >= FROZEN_UTIL_CHANGES)
        push(f, f->inst_change_t, t, WINDOW_POWER_FROZEN, SENSOR_INSTANT, f->inst_v);
}

void faults_add(struct sensor_faults *f, int64_t t, const double v[SENSOR_N], double power_w,
                double power_limit_w)
{
    for (int s = 0; s < SENSOR_N; s++) {
        if (isnan(v[s]))
            continue;
        if (!f->seen[s]++)
            f->first_seen[s] = t;
        f->last_seen[s] = t;
    }
    if (!isnan(v[SENSOR_COUNTER]))
        add_counter(f, t, v[SENSOR_COUNTER], power_w, power_limit_w);
    if (!isnan(v[SENSOR_UTIL])) {
        if (f->have_util && fabs(v[SENSOR_UTIL] - f->util_v) >= 5) {
            f->util_changes++;
            f->util_v = v[SENSOR_UTIL];
        } else if (!f->have_util) {
            f->util_v = v[SENSOR_UTIL];
            f->have_util = 1;
        }
    }
    if (!isnan(v[SENSOR_INSTANT])) {
        if (!f->have_inst || v[SENSOR_INSTANT] != f->inst_v) {
            if (f->have_inst)
                close_frozen(f, t);
            f->have_inst = 1;
            f->inst_v = v[SENSOR_INSTANT];
            f->inst_change_t = t;
            f->util_changes = 0;
        }
    }
}

void faults_finish(struct sensor_faults *f, int64_t last_t)
{
    close_hold(f, f->ctr_t);
    close_frozen(f, f->last_seen[SENSOR_INSTANT]);
    for (int s = 0; s < SENSOR_N; s++)
        if (f->seen[s] >= LOST_MIN_READINGS && last_t - f->last_seen[s] >= LOST_NS)
            push(f, f->last_seen[s], last_t, WINDOW_SENSOR_LOST, s, NAN);
}
