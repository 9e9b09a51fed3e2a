/*
 * reading_instant.c — see reading_instant.h.
 *
 * Why not the row's stamp. The recorder stamps a GPU row (t_mono_ns) just
 * before it asks the driver, and a change of the counter between two rows
 * is placed between their stamps. The value itself is taken later, inside
 * the call: a few tens of microseconds on a quiet host, but a busy host
 * preempts the sampler inside the call for milliseconds (5 ms seen on a
 * 2-core machine under load), and the update then lies after the stamp of
 * the row that shows it: outside the interval the estimator trusts, by more
 * than the jitter it allows. The counter's updates are fitted on a grid to
 * about a millisecond, so a late reading moved an edge by as much as a
 * window's stated uncertainty.
 *
 * nvmlDeviceGetFieldValues gives each value the driver's timestamp
 * (gpu_energy_ts_us, CLOCK_REALTIME microseconds). Whether it is the time
 * of the read, of a cached copy or of the counter's own update, the value
 * held at that instant, so it is the reading's instant in every case. It is
 * brought onto the row's monotonic clock with the row's own pair of stamps
 * (t_wall_ns - t_mono_ns, read together), and used only when it lies within
 * READING_INSTANT_MAX_NS of the stamp: a wall clock stepped between the two
 * reads would otherwise move the reading by the step. The timestamp is
 * whole microseconds: the reading lies somewhere in that microsecond, and
 * when the stamp does too (a driver that answers at once, the simulator's
 * ideal preset) the stamp's nanoseconds are kept.
 */
#include <math.h>

#include "reading_instant.h"

int64_t energy_reading_ns(const struct trace_row *r)
{
    double ts_us = r->v[COL_GPU_ENERGY_TS_US];
    /* a timestamp below 2^53 us is exact in the double; past 2^62 ns it is
     * not a time this trace can hold */
    if (isnan(ts_us) || ts_us <= 0 || ts_us >= 4.0e15 || !r->has_wall)
        return r->t_mono_ns;
    int64_t shift = (int64_t)ts_us * 1000 - r->t_wall_ns;
    if (shift > READING_INSTANT_MAX_NS || shift < -READING_INSTANT_MAX_NS)
        return r->t_mono_ns;
    /* the driver's microsecond holds the reading: the instant in it
     * nearest the stamp (the stamp itself when it falls inside) */
    if (shift > 0)
        return r->t_mono_ns + shift;
    return shift > -1000 ? r->t_mono_ns : r->t_mono_ns + shift + 999;
}
