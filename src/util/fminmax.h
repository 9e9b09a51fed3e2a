/*
 * fminmax.h — fmax and fmin without a libm call, for the loops that run
 * per reading or per window.
 *
 * Owns: nothing but the two functions.
 *
 * Why: C's fmax and fmin must pass over a NAN argument, so without
 * -ffast-math gcc calls libm for each one, and every floating-point value
 * live across the call is spilled (SysV saves no xmm register). The
 * breakdown's host loop made four such calls a sample, ~200 a window. These
 * give libm's answer on x86-64 exactly: a NAN argument passed over, a tie
 * (0 and -0 included) the second argument, as maxsd and minsd do.
 */
#ifndef FLINCH_FMINMAX_H
#define FLINCH_FMINMAX_H

#include <math.h>

static inline double fmax_inline(double a, double b)
{
    return isnan(b) ? a : a > b ? a : b;
}

static inline double fmin_inline(double a, double b)
{
    return isnan(b) ? a : a < b ? a : b;
}

#endif
