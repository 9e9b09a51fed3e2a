/*
 * num_format.h — integers and fixed-point numbers as text without printf,
 * for the recorder's hot path (a sample row is two dozen numbers; through
 * snprintf they cost half of the recorder's instructions, issue 25 §2).
 *
 * Owns: text byte for byte equal to snprintf's for the formats the trace
 * uses ("%lld", "%llu", "%llu.%03llu" of thousandths, "0x%016llx", "%.1f"
 * in the default rounding mode), the Perfetto export's "%.10g", the "%.0f"
 * of the analyzer's evidence (a dozen numbers a window: with 10,000
 * windows, printf's were a tenth of what the windows cost) and the "%.Nf"
 * of its report's columns. Each
 * writes a NUL-terminated string and returns its length (without the NUL).
 */
#ifndef FLINCH_NUM_FORMAT_H
#define FLINCH_NUM_FORMAT_H

#include <stddef.h>

#define NUM_FORMAT_INT_MAX 21    /* "-9223372036854775808" and its NUL */

/* "%llu" (BUF holds NUM_FORMAT_INT_MAX bytes). */
size_t num_format_u64(char *buf, unsigned long long v);
/* "%lld" (BUF holds NUM_FORMAT_INT_MAX bytes). */
size_t num_format_i64(char *buf, long long v);
/* "%llu.%03llu" of MILLI / 1000 and MILLI % 1000: 612000 -> "612.000"
 * (BUF holds 26 bytes). */
size_t num_format_milli(char *buf, unsigned long long milli);
/* "0x%016llx" (BUF holds 19 bytes). */
size_t num_format_hex64(char *buf, unsigned long long v);
/* snprintf(BUF, CAP, "%.<DIGITS>f", V), return value included (the length
 * it would have had: CAP may truncate a huge V as snprintf does); written
 * here for DIGITS 0 to 9. */
size_t num_format_fixed(char *buf, size_t cap, double v, int digits);
/* num_format_fixed(BUF, CAP, V, 1): the trace's "%.1f". */
size_t num_format_fixed1(char *buf, size_t cap, double v);
/* snprintf(BUF, CAP, "%.10g", V), return value included. */
size_t num_format_g10(char *buf, size_t cap, double v);
/* snprintf(BUF, CAP, "%.0f", V), return value included. */
size_t num_format_fixed0(char *buf, size_t cap, double v);
/* The analyzer's evidence sentences ("41% waiting (300 ms), then ..."):
 * LEN + snprintf(BUF + LEN, CAP - LEN, FMT, ...) when LEN < CAP, else LEN,
 * the text byte for byte snprintf's. FMT's "%s", "%%" and "%.0f" are
 * written here; a format with any other directive goes to vsnprintf
 * whole. */
size_t num_format_append(char *buf, size_t cap, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
