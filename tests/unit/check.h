/*
 * check.h — the unit tests' assertions. Each test is a function; main()
 * calls run_test() for each, which prints "ok - NAME" or "not ok - NAME"
 * (the runner, tests/run.sh, counts those lines), and returns
 * check_exit_status() so a failure also fails the binary.
 */
#ifndef FLINCH_CHECK_H
#define FLINCH_CHECK_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int check_failed_in_test;
static int check_failed_tests;

static inline int check_report(int ok, const char *expr, const char *file, int line)
{
    if (!ok) {
        fprintf(stderr, "  %s:%d: check failed: %s\n", file, line, expr);
        check_failed_in_test = 1;
    }
    return ok;
}

static inline int check_str_eq(const char *got, const char *want, const char *expr,
                               const char *file, int line)
{
    int ok = got && want && strcmp(got, want) == 0;
    if (!ok) {
        fprintf(stderr, "  %s:%d: check failed: %s\n    got:  \"%s\"\n    want: \"%s\"\n",
                file, line, expr, got ? got : "(null)", want ? want : "(null)");
        check_failed_in_test = 1;
    }
    return ok;
}

static inline int check_near(double got, double want, double tol, const char *expr,
                             const char *file, int line)
{
    int ok = fabs(got - want) <= tol;
    if (!ok) {
        fprintf(stderr, "  %s:%d: check failed: %s\n    got %.9g, want %.9g (tolerance %g)\n",
                file, line, expr, got, want, tol);
        check_failed_in_test = 1;
    }
    return ok;
}

#define CHECK(cond) check_report(!!(cond), #cond, __FILE__, __LINE__)
#define CHECK_STR(got, want) check_str_eq((got), (want), #got " == " #want, __FILE__, __LINE__)
#define CHECK_NEAR(got, want, tol) check_near((got), (want), (tol), #got " ~ " #want, __FILE__, __LINE__)

/* Writes LEN bytes of DATA to STEM_PID.csv (the process id keeps parallel
 * runs apart) and puts that name in PATH (CAP bytes): the unit tests' one
 * way to put a trace or a CSV on disk. */
static inline void check_write_file(char *path, size_t cap, const char *stem, const void *data,
                                    size_t len)
{
    snprintf(path, cap, "%s_%d.csv", stem, (int)getpid());
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK(fwrite(data, 1, len, f) == len);
    CHECK(fclose(f) == 0);
}

/* Reads what a non-blocking FIFO holds now into BUF (NUL-terminated);
 * its length, 0 when nothing arrived. */
static inline size_t check_drain_fifo(int fd, char *buf, size_t size)
{
    ssize_t n = read(fd, buf, size - 1);
    if (n < 0)
        n = 0;
    buf[n] = '\0';
    return (size_t)n;
}

/* A fixed pseudo-random sequence (xorshift64) for the tests that try many
 * inputs: the same on every run, so a failure comes back. */
static inline uint64_t check_rand(void)
{
    static uint64_t state = 88172645463325252ull;
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static inline void run_test(const char *name, void (*fn)(void))
{
    check_failed_in_test = 0;
    fn();
    printf("%s - %s\n", check_failed_in_test ? "not ok" : "ok", name);
    fflush(stdout);
    if (check_failed_in_test)
        check_failed_tests++;
}

static inline int check_exit_status(void) { return check_failed_tests ? 1 : 0; }

#endif
