/*
 * sensor_model.c — how the simulated GPU's sensors sample its timeline.
 *
 * Owns: the `ideal` and `h100` presets, the phases and jitter drawn from
 * the sensor seed, and what each sensor reports at a query instant:
 *   - the energy counter holds the exact integral up to its last update
 *     instant u_k = phase + k * period + jitter_k (jitter_k uniform in
 *     [-jitter, +jitter], a pure function of seed and k);
 *   - instantaneous power (field 186) is the mean over the window ending at
 *     its last refresh, refreshed every instant period;
 *   - the averaged power (nvmlDeviceGetPowerUsage, field 185) is the mean
 *     over average_window_ms ending at its last refresh;
 *   - utilization is the mean busy percentage over the util period ending
 *     at its last refresh, refreshed every util period.
 * Zero periods and windows give today's (`ideal`) behaviour: the value at
 * the query instant. The figures and their sources are in sim/SCENARIO.md.
 * Pure: no clock, no state beyond the scenario.
 */
#include "scenario.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define NS_PER_MS 1000000LL

static unsigned long long splitmix64(unsigned long long x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* A uniform draw in [0, 1) from the seed and a salt. */
static double uniform01(unsigned long long seed, unsigned long long salt)
{
    return (double)(splitmix64(seed * 0x100000001b3ULL ^ splitmix64(salt)) >> 11) / 9007199254740992.0;
}

int sensor_preset_apply(struct sim_scenario *sc, const char *name)
{
    struct sim_sensors *s = &sc->sensors;
    unsigned long long seed = s->seed;
    int have_seed = s->have_seed;
    if (strcmp(name, "ideal") == 0) {
        memset(s, 0, sizeof *s);
        sc->energy_update_ms = 0;
        sc->latency_us = 0;
    } else if (strcmp(name, "h100") == 0) {
        memset(s, 0, sizeof *s);
        sc->energy_update_ms = 100;              /* slow end of 10..100 ms reports */
        s->energy_jitter_ns = 1 * NS_PER_MS;     /* assumption, see SCENARIO.md */
        s->instant_window_ns = 25 * NS_PER_MS;   /* arXiv 2312.02741: 25% of the runtime */
        s->instant_period_ns = 100 * NS_PER_MS;
        s->average_period_ns = 100 * NS_PER_MS;
        s->util_period_ns = 166667000LL;         /* NVML: between 1/6 s and 1 s */
        sc->latency_us = 20;
    } else {
        return -1;
    }
    s->seed = seed;
    s->have_seed = have_seed;
    sc->power_instant = 0;
    sc->average_window_ms = 1000;                /* NVML: 1 s average on Ampere+ */
    sc->preset = strcmp(name, "ideal") == 0 ? "ideal" : "h100";
    return 0;
}

/* Phases not set by a directive come from the seed (0 without one), so a
 * bench can draw every grid's phase with one number. */
void sensor_finish(struct sim_scenario *sc, const unsigned long long *env_seed)
{
    struct sim_sensors *s = &sc->sensors;
    if (!s->have_seed && env_seed) {
        s->seed = *env_seed;
        s->have_seed = 1;
    }
    if (!s->have_seed)
        return;
    struct { unsigned bit; long long period, *phase; } grids[] = {
        { SIM_PHASE_ENERGY, sc->energy_update_ms * NS_PER_MS, &s->energy_phase_ns },
        { SIM_PHASE_INSTANT, s->instant_period_ns, &s->instant_phase_ns },
        { SIM_PHASE_AVERAGE, s->average_period_ns, &s->average_phase_ns },
        { SIM_PHASE_UTIL, s->util_period_ns, &s->util_phase_ns },
    };
    for (unsigned i = 0; i < sizeof grids / sizeof grids[0]; i++)
        if (!(s->phase_set & grids[i].bit) && grids[i].period > 0)
            *grids[i].phase = (long long)(uniform01(s->seed, i + 1) * (double)grids[i].period);
}

/* floor((t - phase) / period) */
static long long grid_index(long long t_ns, long long phase_ns, long long period_ns)
{
    long long d = t_ns - phase_ns;
    long long k = d / period_ns;
    if (d < 0 && k * period_ns != d)
        k--;
    return k;
}

/* The last refresh instant at or before t on a grid (t itself if none). */
static long long last_refresh(long long t_ns, long long phase_ns, long long period_ns)
{
    if (period_ns <= 0)
        return t_ns;
    return phase_ns + grid_index(t_ns, phase_ns, period_ns) * period_ns;
}

long long sensor_energy_update_ns(const struct sim_scenario *sc, long long k)
{
    const struct sim_sensors *s = &sc->sensors;
    long long base = s->energy_phase_ns + k * sc->energy_update_ms * NS_PER_MS;
    if (s->energy_jitter_ns <= 0)
        return base;
    double u = uniform01(s->seed ^ 0x5bd1e995ULL, (unsigned long long)k);
    return base + llround((2 * u - 1) * (double)s->energy_jitter_ns);
}

/* The counter real drivers expose: it only moves at its update instants,
 * so it reads the integral up to the last one. The tiny epsilon keeps a
 * value like 443087.99999999994 (double rounding of an exact 443088) from
 * flooring one millijoule short. */
unsigned long long sensor_energy_counter_mj(const struct sim_scenario *sc, unsigned gpu,
                                            long long t_ns)
{
    long long at = t_ns;
    if (sc->energy_update_ms > 0) {
        long long k = grid_index(t_ns, sc->sensors.energy_phase_ns, sc->energy_update_ms * NS_PER_MS) + 1;
        /* jitter < period / 2: the last update is one of k+1, k, k-1, k-2 */
        while (sensor_energy_update_ns(sc, k) > t_ns)
            k--;
        at = sensor_energy_update_ns(sc, k);
    }
    /* faults: a counter that holds over [t0, t1), restarts from 0 at t0, or
     * jumps by VALUE mJ at t0 */
    double shift = 0;
    for (size_t i = 0; i < sc->n_sensor_faults; i++) {
        const struct sim_sensor_fault *f = &sc->sensor_faults[i];
        if (f->kind == SIM_FAULT_COUNTER_STUCK && at >= f->t0_ns && at < f->t1_ns)
            at = f->t0_ns;
    }
    for (size_t i = 0; i < sc->n_sensor_faults; i++) {
        const struct sim_sensor_fault *f = &sc->sensor_faults[i];
        if (f->kind == SIM_FAULT_COUNTER_RESET && at >= f->t0_ns)
            shift = -((double)sc->energy_base_mj + timeline_energy_mj(sc, gpu, 0, f->t0_ns));
        if (f->kind == SIM_FAULT_COUNTER_JUMP && at >= f->t0_ns)
            shift += f->value;
    }
    double mj = (double)sc->energy_base_mj + timeline_energy_mj(sc, gpu, 0, at) + shift;
    if (mj <= 0)
        return 0;
    return (unsigned long long)floor(mj + 1e-6);
}

double sensor_instant_w(const struct sim_scenario *sc, unsigned gpu, long long t_ns)
{
    const struct sim_sensors *s = &sc->sensors;
    for (size_t i = 0; i < sc->n_sensor_faults; i++) {
        const struct sim_sensor_fault *f = &sc->sensor_faults[i];
        if (f->kind == SIM_FAULT_INSTANT_FROZEN && t_ns >= f->t0_ns && t_ns < f->t1_ns)
            t_ns = f->t0_ns;                 /* holds its value at t0 */
    }
    long long r = last_refresh(t_ns, s->instant_phase_ns, s->instant_period_ns);
    if (s->instant_window_ns <= 0)
        return timeline_power_w(sc, gpu, r);
    return timeline_energy_mj(sc, gpu, r - s->instant_window_ns, r) /
           ((double)s->instant_window_ns / 1e6);
}

double sensor_average_w(const struct sim_scenario *sc, unsigned gpu, long long t_ns)
{
    const struct sim_sensors *s = &sc->sensors;
    return timeline_average_power_w(sc, gpu, last_refresh(t_ns, s->average_phase_ns,
                                                          s->average_period_ns));
}

/* Mean of the unsigned reading at field_off over [a, b], walking the steps
 * (a sensor period spans a handful of them). */
double timeline_mean_uint(const struct sim_scenario *sc, unsigned gpu, long long a, long long b,
                          size_t field_off)
{
    double sum = 0;
    if (b <= a)
        return *(const unsigned *)((const char *)timeline_reading_at(sc, gpu, a) + field_off);
    for (long long t = a; t < b;) {
        long long next = timeline_next_change_ns(sc, gpu, t);
        if (next > b || next <= t)
            next = b;
        const struct sim_reading *r = timeline_reading_at(sc, gpu, t);
        sum += *(const unsigned *)((const char *)r + field_off) * (double)(next - t);
        t = next;
    }
    return sum / (double)(b - a);
}

void sensor_util(const struct sim_scenario *sc, unsigned gpu, long long t_ns,
                 unsigned *gpu_pct, unsigned *mem_pct)
{
    const struct sim_sensors *s = &sc->sensors;
    if (s->util_period_ns <= 0) {
        const struct sim_reading *r = timeline_reading_at(sc, gpu, t_ns);
        *gpu_pct = r->util_pct;
        *mem_pct = r->mem_util_pct;
        return;
    }
    long long r = last_refresh(t_ns, s->util_phase_ns, s->util_period_ns);
    long long a = r - s->util_period_ns;
    *gpu_pct = (unsigned)lround(timeline_mean_uint(sc, gpu, a, r, offsetof(struct sim_reading, util_pct)));
    *mem_pct = (unsigned)lround(timeline_mean_uint(sc, gpu, a, r,
                                                   offsetof(struct sim_reading, mem_util_pct)));
}
