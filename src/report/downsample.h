/*
 * downsample.h — reducing a long series to a few points per pixel without
 * losing its spikes.
 *
 * Owns: min/max bucketing. The time range [t0, t1] is cut into N equal
 * buckets; each keeps only its minimum and maximum sample (with their
 * times). Drawn in time order, those two points per bucket trace the same
 * envelope as every sample would: a 1-sample spike to 612 W in a day of
 * 75 W idle is still there. Memory is fixed by N, whatever the number of
 * samples, so a day-long trace streams through. A bucket holding one or
 * two samples keeps them exactly, so short traces are drawn unreduced.
 */
#ifndef FLINCH_DOWNSAMPLE_H
#define FLINCH_DOWNSAMPLE_H

struct ds_bucket {
    long n;
    double tmin, vmin;   /* time and value of the minimum */
    double tmax, vmax;   /* ... of the maximum */
};

struct downsample {
    double t0, t1;
    int nbuckets;
    struct ds_bucket *b;
    long samples;        /* samples added (inside the range, not NAN) */
    double vmin, vmax;   /* over all of them; NAN when none */
};

/* 0, or -1 when out of memory. T1 must be > T0 (equal: one bucket). */
int downsample_init(struct downsample *d, double t0, double t1, int nbuckets);
/* Adds a sample; NAN values and times outside [t0, t1] are ignored. */
void downsample_add(struct downsample *d, double t, double v);
/* The kept points in time order: at most 2 * nbuckets. Writes up to CAP of
 * them into T and V and returns how many there are. */
long downsample_points(const struct downsample *d, double *t, double *v, long cap);
void downsample_free(struct downsample *d);

#endif
