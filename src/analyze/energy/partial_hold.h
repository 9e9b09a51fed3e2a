/*
 * partial_hold.h — how often a GPU's instantaneous power and utilization
 * readings refresh, from the few steps a short trace holds: the fallback of
 * the breakdown's edge placement and resolution (breakdown.h, struct
 * sensor_cadence) when sensor_cadence.h has too few changes to measure a
 * period (a quantity that holds still between a handful of steps).
 *
 * A sensor that averages over a window and refreshes on a period shows, at
 * a step of the real quantity, an intermediate value (part old, part new)
 * that holds until its next refresh; an ideal sensor jumps straight to the
 * new value. So each reading strictly between the values before and after
 * it is a partial one, and how long it held is one refresh period. The
 * estimate is the median of those holds (NAN: no partial reading seen, an
 * ideal sensor as far as the trace can tell; a hold longer than the
 * sensor's slowest documented refresh is a real level, not counted). Real
 * sensors also fluctuate
 * at every refresh, which only adds holds of the same length.
 */
#ifndef FLINCH_PARTIAL_HOLD_H
#define FLINCH_PARTIAL_HOLD_H

#include <stdint.h>

#define HOLD_BINS 2048            /* 1 ms bins: holds up to ~2 s */

struct partial_hold {
    int n;                           /* distinct values seen, up to 3 */
    double before, value;            /* the value before the current one, the current one */
    int64_t since;                   /* first sample with the current value */
    uint32_t hold[HOLD_BINS];
    long nhold;
};

void partial_hold_add(struct partial_hold *c, int64_t t, double v);
/* The median of the holds up to max_ms (the longest refresh the sensor may
 * have: a longer hold is a real level between two others), NAN when none. */
double partial_hold_period_ms(const struct partial_hold *c, double max_ms);

#endif
