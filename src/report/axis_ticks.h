/*
 * axis_ticks.h — "nice" axis ticks: steps of 1, 2 or 5 times a power of
 * ten, so a grid reads 0, 0.5, 1, 1.5 s or 0, 200, 400 W and never
 * 0, 0.37, 0.74.
 *
 * Owns: choosing the step for a span and formatting tick values with just
 * the decimals the step needs.
 */
#ifndef FLINCH_AXIS_TICKS_H
#define FLINCH_AXIS_TICKS_H

#include <stddef.h>

#define AXIS_TICKS_MAX 512       /* more ticks than any picture's pixels / 40 */

/* The smallest step of 1, 2 or 5 x 10^k that cuts SPAN into at most
 * MAX_TICKS intervals. SPAN <= 0 or not finite: 1. */
double nice_tick_step(double span, int max_ticks);

/* The smallest multiple of STEP that is >= V (an axis top). */
double nice_ceil(double v, double step);

/* The multiples of STEP in [LO, HI] (with a relative tolerance at HI), in
 * increasing order, into OUT: at most CAP of them, and never two equal
 * ones, so a loop over them ends whatever the span (an extreme zoom such as
 * 1e17 .. 1e17 + 16 s, where t + step == t). Returns how many. */
int axis_ticks(double lo, double hi, double step, double *out, int cap);

/* Writes V with as many decimals as STEP needs (step 0.25 -> 2, 5 -> 0);
 * "-0" is written "0". Returns BUF. */
char *format_tick(double v, double step, char *buf, size_t n);

#endif
