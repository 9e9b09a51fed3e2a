/*
 * test_reader_bounds.c — issue 9: every value the trace reader accepts is
 * finite and in range, rows are capped, a stray quote is an error, and the
 * analyzer's arithmetic on accepted values cannot overflow.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "csv_reader.h"
#include "json_escape.h"
#include "trace_reader.h"
#include "verdict.h"

static char path[64];

static void write_file(const char *data, size_t len)
{
    check_write_file(path, sizeof path, "bounds", data, len);
}

#define HEADER "t_mono_ns,row_type,label,gpu_power_W\n"

/* Reads the file to its end; returns the last rc, error text in err. */
static int read_all(char *err, size_t cap, long *rows)
{
    struct trace_reader tr;
    *rows = 0;
    if (trace_reader_open(&tr, path) != 0) {
        snprintf(err, cap, "%s", tr.error);
        trace_reader_close(&tr);
        return -1;
    }
    struct trace_row row;
    int rc;
    while ((rc = trace_reader_next(&tr, &row)) == 1)
        (*rows)++;
    snprintf(err, cap, "%s", rc < 0 ? tr.error : "");
    trace_reader_close(&tr);
    return rc;
}

static void expect_error(const char *text, const char *want_suffix)
{
    char err[TRACE_ERROR_MAX], want[TRACE_ERROR_MAX];
    long rows;
    write_file(text, strlen(text));
    CHECK(read_all(err, sizeof err, &rows) == -1);
    snprintf(want, sizeof want, "%s:%s", path, want_suffix);
    CHECK_STR(err, want);
}

/* Bug: "1e999" parsed as +inf and plot's axis loop never ended. */
static void test_non_finite_rejected(void)
{
    double v;
    CHECK(trace_parse_double("1e999", 5, &v) == -2);
    CHECK(trace_parse_double("-1e400", 6, &v) == -2);
    CHECK(trace_parse_double("1e308", 5, &v) == 0 && v == 1e308);
    CHECK(trace_parse_double("inf", 3, &v) == -1);
    CHECK(trace_parse_double("nan", 3, &v) == -1);
    expect_error(HEADER "1,SAMPLE,,5\n2,SAMPLE,,1e999\n",
                 "3: column gpu_power_W: not a finite number: '1e999'");
}

/* Bug: power 1e308 was accepted and landed in the histogram's 0 W bin. */
static void test_out_of_range_rejected(void)
{
    expect_error(HEADER "1,SAMPLE,,1e308\n",
                 "2: column gpu_power_W: '1e308' is out of range (0 .. 100000)");
    expect_error(HEADER "1,SAMPLE,,-3\n", "2: column gpu_power_W: '-3' is out of range (0 .. 100000)");
    expect_error(HEADER "9223372036854775807,SAMPLE,,5\n",
                 "2: column t_mono_ns: '9223372036854775807' is out of range (0 .. 4611686018427387903 ns)");
    expect_error(HEADER "-5,SAMPLE,,5\n",
                 "2: column t_mono_ns: '-5' is out of range (0 .. 4611686018427387903 ns)");
    expect_error("t_mono_ns,t_wall_ns,row_type,label\n1,-9000000000000000000,MARK,x\n",
                 "2: column t_wall_ns: '-9000000000000000000' is out of range (0 .. 4611686018427387903 ns)");
    expect_error("t_mono_ns,row_type,label,gpu_util_pct\n1,SAMPLE,,100.5\n",
                 "2: column gpu_util_pct: '100.5' is out of range (0 .. 100)");
    expect_error("t_mono_ns,row_type,label,gpu_index\n1,SAMPLE,,1024\n",
                 "2: column gpu_index: not a GPU index (0 .. 1023): '1024'");
    /* the largest accepted values still read */
    const char *ok = "t_mono_ns,row_type,label,gpu_power_W,gpu_index\n4611686018427387903,SAMPLE,,100000,1023\n";
    char err[TRACE_ERROR_MAX];
    long rows;
    write_file(ok, strlen(ok));
    CHECK(read_all(err, sizeof err, &rows) == 0 && rows == 1);
}

/* Bug: a 2 GB line of NULs was buffered whole (2.1 GB RSS). */
static void test_row_cap(void)
{
    size_t n = (size_t)CSV_RECORD_MAX * 2 + 64;
    char *t = malloc(n);
    CHECK(t != NULL);
    if (!t)
        return;
    size_t h = strlen(HEADER);
    memcpy(t, HEADER, h);
    memset(t + h, 0, n - h);
    write_file(t, n);
    free(t);
    char err[TRACE_ERROR_MAX], want[TRACE_ERROR_MAX];
    long rows;
    CHECK(read_all(err, sizeof err, &rows) == -1);
    snprintf(want, sizeof want, "%s:2: row longer than %ld bytes without a newline: not a trace row "
             "(a corrupt file, or NULs from a crash?)", path, (long)CSV_RECORD_MAX);
    CHECK_STR(err, want);
    /* a short NUL-filled row is refused too (its cells would be cut at the NUL) */
    static const char nul[] = HEADER "1,SAMPLE,,5\n2,SAMPLE,\0\0\0,5\n";
    write_file(nul, sizeof nul - 1);
    CHECK(read_all(err, sizeof err, &rows) == -1 && rows == 1);
    snprintf(want, sizeof want, "%s:3: NUL bytes in the row: not trace text (a file cut short by a "
             "crash or power loss?)", path);
    CHECK_STR(err, want);
}

/* Bug: a label "oops (no closing quote) on line 3 swallowed every row
 * after it with only a "truncated last line" warning and exit 0. */
static void test_unclosed_quote_is_an_error(void)
{
    expect_error(HEADER "1,MARK,a,\n2,MARK,\"oops,\n3,SAMPLE,,5\n4,SAMPLE,,5\n",
                 "3: a quoted cell opened on this line is never closed: every line after it, to "
                 "the end of the file, would be part of that cell");
    /* ...and closed by a later quote: the cell count names the cause */
    expect_error(HEADER "2,MARK,\"oops,\n3,SAMPLE,,5\n4,MARK,\"a,b\",\n",
                 "2: 5 cells where the header has 4 (the row runs over 3 lines through a quoted "
                 "cell: a stray '\"'?)");
    /* a quote open on the very last line is still a cut-off line: a warning */
    const char *t = HEADER "1,SAMPLE,,5\n2,MARK,\"cut";
    char err[TRACE_ERROR_MAX];
    long rows;
    write_file(t, strlen(t));
    CHECK(read_all(err, sizeof err, &rows) == 0 && rows == 1);
}

/* A UTF-8 byte-order mark before the header is accepted. */
static void test_bom_accepted(void)
{
    const char *t = "\xEF\xBB\xBF" HEADER "1,SAMPLE,,5\n";
    char err[TRACE_ERROR_MAX];
    long rows;
    write_file(t, strlen(t));
    CHECK(read_all(err, sizeof err, &rows) == 0 && rows == 1);
}

/* Bug: (long)(1e308 * 2) is undefined; it gave bin 0 ("idle 0.0 W"). */
static void test_power_hist_clamps(void)
{
    struct power_hist *h = calloc(1, sizeof *h);
    CHECK(h != NULL);
    if (!h)
        return;
    power_hist_add(h, 1e308);
    power_hist_add(h, -1e308);
    CHECK(h->bin[POWER_HIST_BINS - 1] == 1 && h->bin[0] == 1);
    free(h);
}

/* JSON has no inf or nan: null, and -1 for infinity so it is reported. */
static void test_json_numbers_finite(void)
{
    char buf[64] = "";
    FILE *f = fmemopen(buf, sizeof buf, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK(json_write_number(f, "%.3f", INFINITY) == -1);
    fputc(' ', f);
    CHECK(json_write_number(f, "%.3f", NAN) == 0);
    fputc(' ', f);
    CHECK(json_write_number(f, "%.3f", 1.5) == 0);
    fclose(f);
    CHECK_STR(buf, "null null 1.500");
}

int main(void)
{
    run_test("non-finite numbers rejected", test_non_finite_rejected);
    run_test("out-of-range numbers rejected", test_out_of_range_rejected);
    run_test("row length capped", test_row_cap);
    run_test("unclosed quote is an error", test_unclosed_quote_is_an_error);
    run_test("byte-order mark accepted", test_bom_accepted);
    run_test("power histogram clamps before converting", test_power_hist_clamps);
    run_test("JSON numbers never inf or nan", test_json_numbers_finite);
    unlink(path);
    return check_exit_status();
}
