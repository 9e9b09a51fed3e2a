/*
 * diag.h — one way to tell the user something went wrong.
 *
 * Every message is one line on stderr, prefixed with the program and
 * subcommand ("flinch record: "), so scripts and humans can grep it.
 * Exit codes shared by all subcommands are defined here and documented in
 * the README.
 */
#ifndef FLINCH_DIAG_H
#define FLINCH_DIAG_H

#include <stddef.h>

enum flinch_exit {
    EXIT_OK = 0,
    EXIT_RUNTIME = 1,   /* failed while running: write error, no mark reader... */
    EXIT_USAGE = 2,     /* bad usage or input, or could not start (no driver, bad CSV) */
    EXIT_GPU_LOST = 3   /* recording ended because a GPU fell off the bus; rows kept */
};

/* Set once by main: "flinch record", "flinch analyze"... */
void diag_set_prog(const char *prog);
const char *diag_prog(void);

/* Messages are printed escaped (diag_escape): a label or cell from a
 * hostile trace cannot reach the terminal as an escape sequence or break
 * the one-line rule. */
void diag_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void diag_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Copies S into OUT (CAP bytes, NUL-terminated, cut at a character
 * boundary) with every C0/C1 control, DEL, backslash and byte that is not
 * UTF-8 written as \xNN. Returns the length written. */
size_t diag_escape(const char *s, char *out, size_t cap);

#endif
