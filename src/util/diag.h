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

/* A warning that bad input can repeat once per line (or per mark from
 * the FIFO): 2 million bad lines must not make 2 million lines of stderr.
 * Warnings of one kind (the same FMT) about one FILE are printed for the
 * first DIAG_REPEAT_SHOWN, then only counted; diag_repeat_summary(FILE)
 * (and, for whatever is left, an exit handler) then prints one line
 * "FILE: N more warnings like this suppressed" per kind. LINE (> 0) is the
 * input line warned about: a warning for a line at or before the last one
 * seen of its kind is a second pass over the same file (plot and export
 * read a trace more than once) and is neither printed nor counted; 0 when
 * there is no line (the FIFO). Thread-safe. */
#define DIAG_REPEAT_SHOWN 10
void diag_warn_repeat(const char *file, long line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The summary lines for FILE (NULL: every file), each kind's count then
 * starting again. */
void diag_repeat_summary(const char *file);

/* Holding messages back: while diag_hold(1) is in force, diag_error and
 * diag_warn keep their lines (in order) instead of printing them, until
 * diag_held_release prints them (PRINT) or drops them (0). For a stage
 * fed rows alongside another (plot's and export's analysis, fed the rows
 * they read once): its messages come where they came when it read the
 * trace after the other stage, or not at all when its result is not used.
 * Single-threaded callers only. */
void diag_hold(int on);
void diag_held_release(int print);

/* What getopt_long's caller does with a bad option: the optstring starts
 * with ':' (getopt then prints nothing itself), and CH, the '?' (unknown
 * option) or ':' (option without its value) it returned, with ARGV, gives
 * one line, "flinch CMD: unknown option '--bogus' (see 'flinch CMD
 * --help')" or "...: option '--out' needs a value (see ...)". Returns
 * EXIT_USAGE. */
int diag_bad_option(int ch, char *const argv[]);

/* Copies S into OUT (CAP bytes, NUL-terminated, cut at a character
 * boundary) with every C0/C1 control, DEL, backslash and byte that is not
 * UTF-8 written as \xNN. Returns the length written. */
size_t diag_escape(const char *s, char *out, size_t cap);

#endif
