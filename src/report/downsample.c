/* downsample.c — see downsample.h. */
#include <math.h>
#include <stdlib.h>

#include "downsample.h"

int downsample_init(struct downsample *d, double t0, double t1, int nbuckets)
{
    d->t0 = t0;
    d->t1 = t1;
    d->nbuckets = nbuckets < 1 ? 1 : nbuckets;
    d->samples = 0;
    d->vmin = d->vmax = NAN;
    d->b = calloc((size_t)d->nbuckets, sizeof *d->b);
    return d->b ? 0 : -1;
}

void downsample_add(struct downsample *d, double t, double v)
{
    if (isnan(v) || isnan(t) || t < d->t0 || t > d->t1)
        return;
    long i = 0;
    if (d->t1 > d->t0)
        i = (long)((t - d->t0) / (d->t1 - d->t0) * d->nbuckets);
    if (i >= d->nbuckets)
        i = d->nbuckets - 1;
    struct ds_bucket *b = &d->b[i];
    /* strict comparisons: the first of equal values is kept, so a flat
     * stretch keeps its first sample, and a single sample is both */
    if (b->n == 0 || v < b->vmin) {
        b->vmin = v;
        b->tmin = t;
    }
    if (b->n == 0 || v > b->vmax) {
        b->vmax = v;
        b->tmax = t;
    }
    b->n++;
    if (d->samples == 0 || v < d->vmin)
        d->vmin = v;
    if (d->samples == 0 || v > d->vmax)
        d->vmax = v;
    d->samples++;
}

long downsample_points(const struct downsample *d, double *t, double *v, long cap)
{
    long n = 0;
    for (int i = 0; i < d->nbuckets; i++) {
        const struct ds_bucket *b = &d->b[i];
        if (b->n == 0)
            continue;
        double ta = b->tmin, va = b->vmin, tb = b->tmax, vb = b->vmax;
        if (tb < ta) {
            ta = b->tmax; va = b->vmax;
            tb = b->tmin; vb = b->vmin;
        }
        if (n < cap) { t[n] = ta; v[n] = va; }
        n++;
        if (ta == tb && va == vb)
            continue;
        if (n < cap) { t[n] = tb; v[n] = vb; }
        n++;
    }
    return n;
}

void downsample_free(struct downsample *d)
{
    free(d->b);
    d->b = NULL;
}
