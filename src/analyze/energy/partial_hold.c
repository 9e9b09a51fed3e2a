/* partial_hold.c — see partial_hold.h. */
#include <math.h>

#include "partial_hold.h"

void partial_hold_add(struct partial_hold *c, int64_t t, double v)
{
    if (isnan(v))
        return;
    if (c->n == 0) {
        c->value = v;
        c->since = t;
        c->n = 1;
        return;
    }
    if (v == c->value)
        return;
    /* the current value ends: was it between its neighbours? */
    if (c->n >= 2 && ((c->before < c->value && c->value < v) || (c->before > c->value && c->value > v))) {
        long ms = (long)((t - c->since) / 1000000);
        if (ms >= 0 && ms < HOLD_BINS) {
            c->hold[ms]++;
            c->nhold++;
        }
    }
    c->before = c->value;
    c->value = v;
    c->since = t;
    c->n = 2;
}

double partial_hold_period_ms(const struct partial_hold *c, double max_ms)
{
    /* a level that held longer than the sensor can take to refresh is a
     * real level (a GPU waiting at 62 W between 60 W idle and 450 W busy),
     * not a partial reading */
    long n = 0, top = max_ms < HOLD_BINS ? (long)max_ms : HOLD_BINS - 1;
    for (long b = 0; b <= top; b++)
        n += c->hold[b];
    if (n == 0)
        return NAN;
    long half = (n + 1) / 2, seen = 0;
    for (int b = 0; b <= top; b++) {
        seen += c->hold[b];
        if (seen >= half)
            return b + 0.5;
    }
    return NAN;
}
