/*
 * timeline.c — readings and exact energy of a scenario's piecewise-constant
 * timelines.
 *
 * Owns: the reading at a scenario time, the integral of power over any
 * interval, the trailing-window average and where the reading next changes.
 * How sensors sample this timeline is sensor_model.c's.
 * Power is a step function, so every integral is a finite sum: each step
 * caches the energy from 0 to its start, and a query adds one partial step.
 * Times come in as integer nanoseconds and step times are whole
 * milliseconds, so the only rounding is double arithmetic on W * ms = mJ.
 */
#include "scenario.h"

#include <math.h>
#include <stdint.h>

#define NS_PER_MS 1000000LL

/* Index of the last step starting at or before t_ns (t_ns >= 0). */
static size_t step_index(const struct sim_timeline *tl, long long t_ns)
{
    size_t lo = 0, hi = tl->n; /* answer in [lo, hi) */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (tl->steps[mid].t_ms * NS_PER_MS <= t_ns)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Integral of power over [0, t_ns] within one pass of the timeline. */
static double energy_from_zero_mj(const struct sim_timeline *tl, long long t_ns)
{
    const struct sim_step *s = &tl->steps[step_index(tl, t_ns)];
    return s->energy_mj + s->r.power_w * (double)(t_ns - s->t_ms * NS_PER_MS) / 1e6;
}

void timeline_finish(struct sim_timeline *tl)
{
    tl->steps[0].energy_mj = 0;
    for (size_t i = 1; i < tl->n; i++) {
        const struct sim_step *prev = &tl->steps[i - 1];
        tl->steps[i].energy_mj = prev->energy_mj +
            prev->r.power_w * (double)(tl->steps[i].t_ms - prev->t_ms);
    }
}

/* Signed integral of power over [0, t_ns]. Before 0 the GPU draws its
 * time-0 power. With period_ms the timeline repeats, so the integral is
 * whole periods times one period's energy plus the remainder: this stays
 * exact after hours, where summing sample by sample would not. */
static double energy_to_mj(const struct sim_scenario *sc, unsigned gpu, long long t_ns)
{
    const struct sim_timeline *tl = &sc->gpu[gpu];
    if (t_ns < 0)
        return tl->steps[0].r.power_w * (double)t_ns / 1e6;
    if (sc->period_ms <= 0)
        return energy_from_zero_mj(tl, t_ns);
    long long period_ns = sc->period_ms * NS_PER_MS;
    long long whole = t_ns / period_ns;
    return (double)whole * energy_from_zero_mj(tl, period_ns) +
           energy_from_zero_mj(tl, t_ns - whole * period_ns);
}

const struct sim_reading *timeline_reading_at(const struct sim_scenario *sc,
                                              unsigned gpu, long long t_ns)
{
    const struct sim_timeline *tl = &sc->gpu[gpu];
    if (t_ns < 0)
        return &tl->steps[0].r;
    if (sc->period_ms > 0)
        t_ns %= sc->period_ms * NS_PER_MS;
    return &tl->steps[step_index(tl, t_ns)].r;
}

double timeline_power_w(const struct sim_scenario *sc, unsigned gpu, long long t_ns)
{
    return timeline_reading_at(sc, gpu, t_ns)->power_w;
}

double timeline_energy_mj(const struct sim_scenario *sc, unsigned gpu,
                          long long t0_ns, long long t1_ns)
{
    return energy_to_mj(sc, gpu, t1_ns) - energy_to_mj(sc, gpu, t0_ns);
}

double timeline_average_power_w(const struct sim_scenario *sc, unsigned gpu,
                                long long t_ns)
{
    long long window_ns = sc->average_window_ms * NS_PER_MS;
    return timeline_energy_mj(sc, gpu, t_ns - window_ns, t_ns) /
           (double)sc->average_window_ms;
}

long long timeline_next_change_ns(const struct sim_scenario *sc, unsigned gpu, long long t_ns)
{
    const struct sim_timeline *tl = &sc->gpu[gpu];
    if (t_ns < 0)
        return 0;
    long long base = 0, off = t_ns;
    if (sc->period_ms > 0) {
        long long period_ns = sc->period_ms * NS_PER_MS;
        base = t_ns / period_ns * period_ns;
        off = t_ns - base;
        size_t i = step_index(tl, off);
        return base + (i + 1 < tl->n ? tl->steps[i + 1].t_ms * NS_PER_MS : period_ns);
    }
    size_t i = step_index(tl, off);
    return i + 1 < tl->n ? tl->steps[i + 1].t_ms * NS_PER_MS : INT64_MAX;
}

/* One pass [0, t_ns] of the timeline, 0 <= t_ns. */
static long long amount_from_zero(const struct sim_timeline *tl, step_amount_fn amount,
                                  const void *arg, long long t_ns)
{
    long long total = 0;
    for (size_t i = 0; i < tl->n; i++) {
        long long a = tl->steps[i].t_ms * NS_PER_MS;
        if (a >= t_ns)
            break;
        long long b = i + 1 < tl->n ? tl->steps[i + 1].t_ms * NS_PER_MS : t_ns;
        if (b > t_ns)
            b = t_ns;
        total += amount(&tl->steps[i].r, b - a, arg);
    }
    return total;
}

long long timeline_amount_to(const struct sim_scenario *sc, unsigned gpu, step_amount_fn amount,
                             const void *arg, long long t_ns)
{
    const struct sim_timeline *tl = &sc->gpu[gpu];
    if (t_ns <= 0)
        return -amount(&tl->steps[0].r, -t_ns, arg);
    if (sc->period_ms <= 0)
        return amount_from_zero(tl, amount, arg, t_ns);
    long long period_ns = sc->period_ms * NS_PER_MS;
    long long whole = t_ns / period_ns;
    return whole * amount_from_zero(tl, amount, arg, period_ns) +
           amount_from_zero(tl, amount, arg, t_ns - whole * period_ns);
}
