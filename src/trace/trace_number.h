/*
 * trace_number.h — the integer cells of a trace (trace_number.c), for the
 * trace reader; trace_parse_double is trace_reader.h's. Private to the
 * trace stage.
 */
#ifndef FLINCH_TRACE_NUMBER_H
#define FLINCH_TRACE_NUMBER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* A cell read a word (8 bytes) at a time: S must have 16 readable bytes
 * past its start whatever N is (a CSV field has: CSV_FIELD_SLACK); lanes
 * past N are masked off. A byte b is a digit when t = b ^ '0' is below 10,
 * which (t & 0x7f) + 0x76 | t leaves without its high bit, and '.' when
 * b ^ '.' is 0 (the comma test of csv_reader.c's split_plain); no carry
 * crosses a byte. Where the byte order does not allow it, nothing is
 * vouched for and the caller reads the cell the usual way. */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TRACE_NUMBER_WORDS 1
/* The high bit of each of the first N (1..8) bytes at S that is not a
 * digit; *DOT: those that are '.'. */
static inline uint64_t trace_word_classes(const char *s, size_t n, uint64_t *dot)
{
    const uint64_t ones = UINT64_C(0x0101010101010101), low7 = ones * 0x7f, high = ones * 0x80;
    uint64_t x;
    memcpy(&x, s, sizeof x);
    uint64_t in = high >> (64 - 8 * n);
    uint64_t t = x ^ (ones * '0'), u = x ^ (ones * '.');
    *dot = ~(((u & low7) + low7) | u) & in;
    return (((t & low7) + ones * (0x80 - 10)) | t) & in;
}
#endif

/* Whether a gpu_clock_event_reasons cell outside the reader's column mask
 * surely reads as a bitmask, without converting it: the recorder's own
 * "0x%016llx", 16 digits 0-9 a-f after "0x" (trace_parse_reasons takes
 * it); 0 leaves the cell to the usual read. A byte b of a word is 0-9 as
 * above, and a-f when u = b ^ 0x60 is 1 to 6 (not 0, not 7 or more). */
static inline int trace_reasons_plain(const char *s, size_t n)
{
#ifdef TRACE_NUMBER_WORDS
    const uint64_t ones = UINT64_C(0x0101010101010101), low7 = ones * 0x7f, high = ones * 0x80;
    if (n != 18 || s[0] != '0' || s[1] != 'x')
        return 0;
    uint64_t bad = 0;
    for (int w = 0; w < 2; w++) {
        uint64_t x, dot;
        memcpy(&x, s + 2 + 8 * w, sizeof x);
        uint64_t not_digit = trace_word_classes(s + 2 + 8 * w, 8, &dot);
        uint64_t u = x ^ (ones * 0x60);
        uint64_t not_af = (((u & low7) + ones * (0x80 - 7)) | u | ~(((u & low7) + low7) | u)) & high;
        bad |= not_digit & not_af;
    }
    return bad == 0;
#else
    (void)s, (void)n;
    return 0;
#endif
}

/* Whether a cell outside the reader's column mask surely reads as a number
 * within its column's range, without converting it: 1 to 16 bytes, all
 * digits but at most one '.', at most MAX_INT digits before the '.' (so
 * below 10^MAX_INT, which the caller's range holds; no sign, so >= 0).
 * Those are cells trace_number_fast takes; 0 leaves the cell to the
 * usual read. Two words at most. */
static inline int trace_number_plain(const char *s, size_t n, int max_int)
{
#ifdef TRACE_NUMBER_WORDS
    uint64_t dot, dot2 = 0, not_digit, not_digit2 = 0;
    if (n > 16 || n == 0)
        return 0;
    not_digit = trace_word_classes(s, n < 8 ? n : 8, &dot);
    if (n > 8)
        not_digit2 = trace_word_classes(s + 8, n - 8, &dot2);
    if ((not_digit & ~dot) | (not_digit2 & ~dot2) || (dot & (dot - 1)) || (dot2 & (dot2 - 1)) ||
        (dot && dot2) || (n == 1 && dot))
        return 0;
    size_t int_digits = dot ? (size_t)__builtin_ctzll(dot) >> 3
                            : dot2 ? 8 + ((size_t)__builtin_ctzll(dot2) >> 3) : n;
    return (long)int_digits <= max_int;
#else
    (void)s, (void)n, (void)max_int;
    return 0;
#endif
}

#endif
