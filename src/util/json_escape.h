/*
 * json_escape.h — writing a JSON string literal.
 *
 * Owns: escaping text for JSON (RFC 8259): quote and backslash escaped,
 * control characters as \n \t ... or \u00XX, valid UTF-8 passed through
 * unchanged, and any byte that is not valid UTF-8 replaced by U+FFFD so the
 * output is always valid JSON whatever a MARK label holds; and writing a
 * number so that the output never holds inf or nan.
 */
#ifndef FLINCH_JSON_ESCAPE_H
#define FLINCH_JSON_ESCAPE_H

#include <stdio.h>

/* Writes S as a JSON string, with its surrounding double quotes. */
void json_write_string(FILE *f, const char *s);

/* Writes V with the printf format FMT, or null when V is not finite (JSON
 * has no NaN or infinity). Returns 0, or -1 when V was infinite: a value
 * that should not exist, which the caller reports (NaN, "unknown", is the
 * ordinary meaning of null and returns 0). */
int json_write_number(FILE *f, const char *fmt, double v);

#endif
