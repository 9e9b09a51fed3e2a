/*
 * utf8.h — recognising valid UTF-8, for the writers that must never emit a
 * byte sequence their format forbids (SVG/XML text, JSON strings).
 *
 * Owns: the one definition of "a valid UTF-8 character" (shortest form, no
 * surrogates, at most U+10FFFF) used by svg_writer.c and json_escape.c.
 */
#ifndef FLINCH_UTF8_H
#define FLINCH_UTF8_H

#include <stddef.h>

/* Length in bytes (1..4) of the valid UTF-8 character at S, which has N
 * bytes left, or 0 when the bytes there are not valid UTF-8. */
int utf8_char_len(const char *s, size_t n);

#endif
