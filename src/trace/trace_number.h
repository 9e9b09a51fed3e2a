/*
 * trace_number.h — the integer cells of a trace (trace_number.c), for the
 * trace reader; trace_parse_double is trace_reader.h's. Private to the
 * trace stage.
 */
#ifndef FLINCH_TRACE_NUMBER_H
#define FLINCH_TRACE_NUMBER_H

#include <stddef.h>
#include <stdint.h>

/* A whole decimal int64 of at most 19 digits, optionally negative; 0 or -1. */
int trace_parse_int64(const char *s, size_t len, int64_t *out);
/* Clock-event reason bits: "0x%016llx" as the recorder writes it, or
 * anything strtoull(base 0) accepts (s NUL-terminated, n its length); 0 or -1. */
int trace_parse_reasons(const char *s, size_t n, unsigned long long *bits);

/* The cells the recorder writes most ("612.345", "98", "-3.5": an optional
 * '-', 1 to 19 digits with at most one '.' among them, no exponent), read
 * inline on the hot path: 0 with *out set, or 1 when S is not that form or
 * needs more care (a significand over 2^53 with a fraction), to be read by
 * trace_parse_double. For the form it takes it computes exactly what
 * trace_parse_double computes (the digits fit a uint64_t; one correctly
 * rounded conversion, or one division of two exact doubles), so the
 * result is the same bit for bit (tests/unit/test_trace_number.c). */
static inline int trace_number_fast(const char *s, size_t len, double *out)
{
    static const double p10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
                                  1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19 };
    const char *p = s, *e = s + len, *dot = NULL;
    int neg = len > 0 && *p == '-';
    p += neg;
    if (p == e || e - p > 20)
        return 1;
    uint64_t m = 0;
    for (; p < e; p++) {
        unsigned d = (unsigned)(unsigned char)*p - '0';
        if (d < 10)
            m = m * 10 + d;
        else if (*p == '.' && !dot)
            dot = p;
        else
            return 1;
    }
    size_t digits = (size_t)(e - s) - (size_t)neg - (dot != NULL);
    if (digits == 0 || digits > 19)
        return 1;
    double v;
    if (!dot || dot == e - 1)
        v = (double)m;
    else if (m <= (UINT64_C(1) << 53))
        v = (double)m / p10[e - dot - 1];
    else
        return 1;
    *out = neg ? -v : v;
    return 0;
}

#endif
