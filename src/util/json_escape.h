/*
 * json_escape.h — writing a JSON string literal.
 *
 * Owns: escaping text for JSON (RFC 8259): quote and backslash escaped,
 * control characters as \n \t ... or \u00XX, valid UTF-8 passed through
 * unchanged, and any byte that is not valid UTF-8 replaced by U+FFFD so the
 * output is always valid JSON whatever a MARK label holds.
 */
#ifndef FLINCH_JSON_ESCAPE_H
#define FLINCH_JSON_ESCAPE_H

#include <stdio.h>

/* Writes S as a JSON string, with its surrounding double quotes. */
void json_write_string(FILE *f, const char *s);

#endif
