/*
 * sensor_faults.h — bad sensor data, named: spans of one GPU's trace where
 * a sensor cannot be trusted, found while the trace streams by.
 *
 * Owns: the detection rules and the spans they produce:
 *   counter-stuck     the energy counter did not move for over 1 s while
 *                     the power readings all said the GPU drew over 20 W;
 *   counter-backwards the counter went down (driver reload, reset);
 *   counter-jump      one increment implies over twice the power limit
 *                     (2 kW when the limit is unknown);
 *   power-frozen      instantaneous power held one value for 2 s or more
 *                     while utilization changed at least 3 times;
 *   sensor-lost       a sensor that had readings stopped having them for
 *                     the rest of the trace, at least 1 s before its end
 *                     (a field switched to NOT_SUPPORTED mid-run).
 * What a window does about an overlapping span (the next-best energy
 * source, the flag) is analysis_finish.c's.
 */
#ifndef FLINCH_SENSOR_FAULTS_H
#define FLINCH_SENSOR_FAULTS_H

#include <stdint.h>

#include "sensor_cadence.h"

struct fault_span {
    int64_t t0, t1;
    unsigned flag;                  /* one WINDOW_* fault flag (analysis.h) */
    int sensor;                     /* enum sensor_id it concerns */
    double value;                   /* counter-stuck: lowest power seen; jump: implied W */
};

struct sensor_faults {
    int64_t ctr_change_t, ctr_t;    /* last change / last reading of the counter */
    int64_t ctr_before_t;           /* the reading before the last change */
    double ctr_v, min_power_since;
    int have_ctr;
    int64_t inst_change_t;
    double inst_v, util_v;
    int have_inst, have_util, util_changes;
    int64_t first_seen[SENSOR_N], last_seen[SENSOR_N];
    long seen[SENSOR_N];
    struct fault_span *spans;
    int nspans, cap;
};

void faults_init(struct sensor_faults *f);
void faults_free(struct sensor_faults *f);
/* One sample (time-ordered) with the sensors' values (NAN where missing),
 * instant-or-average power for the stuck test, and the power limit (NAN). */
void faults_add(struct sensor_faults *f, int64_t t, const double v[SENSOR_N], double power_w,
                double power_limit_w);
/* At end of input: spans still open are closed at the last sample. */
void faults_finish(struct sensor_faults *f, int64_t last_t);

#endif
