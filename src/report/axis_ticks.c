/* axis_ticks.c — see axis_ticks.h. */
#include <math.h>
#include <stdio.h>

#include "axis_ticks.h"

double nice_tick_step(double span, int max_ticks)
{
    if (!(span > 0) || !isfinite(span) || max_ticks < 1)
        return 1;
    double raw = span / max_ticks;
    double mag = pow(10, floor(log10(raw)));
    static const double mult[] = { 1, 2, 5, 10 };
    for (int i = 0; i < 4; i++) {
        double step = mult[i] * mag;
        /* a relative epsilon so 10/5 gives 2, not 5, through rounding */
        if (span / step <= max_ticks * (1 + 1e-9))
            return step;
    }
    return 10 * mag;
}

double nice_ceil(double v, double step)
{
    double k = ceil(v / step - 1e-9);
    return k * step;
}

char *format_tick(double v, double step, char *buf, size_t n)
{
    int decimals = 0;
    /* decimals needed so that multiples of step print exactly: 0.25 -> 2 */
    for (double s = step; decimals < 9 && fabs(s - round(s)) > 1e-9 * (fabs(s) + 1); s *= 10)
        decimals++;
    if (fabs(v) < step * 1e-9)
        v = 0;
    snprintf(buf, n, "%.*f", decimals, v);
    return buf;
}

int axis_ticks(double lo, double hi, double step, double *out, int cap)
{
    int n = 0;
    if (!(step > 0) || !isfinite(lo) || !isfinite(hi) || !isfinite(step))
        return 0;
    double first = nice_ceil(lo, step), limit = hi + fabs(hi) * 1e-12;
    /* by index, not t += step: the sum can stop advancing */
    for (long k = 0; n < cap; k++) {
        double t = first + (double)k * step;
        if (!(t <= limit))
            break;
        if (n > 0 && !(t > out[n - 1]))
            break;                  /* below the doubles' resolution here */
        out[n++] = t;
    }
    return n;
}
