/*
 * utf8.h — recognising valid UTF-8, for the writers that must never emit a
 * byte sequence their format forbids (SVG/XML text, JSON strings).
 *
 * Owns: the one definition of "a valid UTF-8 character" (shortest form, no
 * surrogates, at most U+10FFFF) used by svg_writer.c, json_escape.c and
 * diag.c, and the one walk over a string that the escaping writers share.
 */
#ifndef FLINCH_UTF8_H
#define FLINCH_UTF8_H

#include <stddef.h>
#include <stdio.h>

#define UTF8_REPLACEMENT "\xEF\xBF\xBD"   /* U+FFFD, written for what a format forbids */

/* Length in bytes (1..4) of the valid UTF-8 character at S, which has N
 * bytes left, or 0 when the bytes there are not valid UTF-8. */
int utf8_char_len(const char *s, size_t n);

/* 1 when the valid character C of LEN bytes is a C1 control (U+0080..U+009F),
 * which some terminals obey like ESC. */
int utf8_is_c1(const unsigned char *c, int len);

/* The one walk over a string that an escaping writer makes: writes S to F,
 * each byte that is not valid UTF-8 as UTF8_REPLACEMENT, each ASCII byte
 * through ASCII(F, C), and each valid multi-byte character as it is, or as
 * UTF8_REPLACEMENT where FORBID (may be NULL) says the format forbids it. */
void utf8_write_escaped(FILE *f, const char *s, void (*ascii)(FILE *f, unsigned char c),
                        int (*forbid)(const unsigned char *c, int len));

#endif
