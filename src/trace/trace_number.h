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

#endif
