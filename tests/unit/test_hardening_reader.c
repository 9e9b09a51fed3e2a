/*
 * test_hardening_reader.c — regression tests from issue 6's fuzzing and
 * review of the trace reader (csv_reader + trace_reader). Each test names
 * the bug it pins down; see TESTING.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "csv_reader.h"
#include "trace_reader.h"

static char path[64];

static void write_file(const char *data, size_t len)
{
    check_write_file(path, sizeof path, "hardening", data, len);
}

#define HEADER "t_mono_ns,row_type,label,gpu_power_W\n"

/* Bug: record_end toggled its in-quotes state on every '"', while the
 * field splitter only opens a quoted field at a field's start. A stray
 * quote inside an unquoted cell (a hand-edited trace; Python's csv reads it
 * as a literal quote) made the reader swallow the rest of the file as one
 * "truncated last line" and return no rows at all. */
static void test_stray_quote_does_not_swallow_file(void)
{
    const char *t = HEADER "1,MARK,x\"y,\n2,SAMPLE,,5\n3,SAMPLE,,6\n4,MARK,end,\n";
    write_file(t, strlen(t));
    struct trace_reader tr;
    CHECK(trace_reader_open(&tr, path) == 0);
    struct trace_row row;
    CHECK(trace_reader_next(&tr, &row) == 1);
    CHECK_STR(row.label, "x\"y");
    CHECK(row.line == 2);
    CHECK(trace_reader_next(&tr, &row) == 1);
    CHECK(row.t_mono_ns == 2 && row.v[COL_GPU_POWER_W] == 5.0);
    CHECK(trace_reader_next(&tr, &row) == 1);
    CHECK(trace_reader_next(&tr, &row) == 1);
    CHECK_STR(row.label, "end");
    CHECK(row.line == 5);
    CHECK(trace_reader_next(&tr, &row) == 0);
    CHECK(tr.truncated_last_line == 0);
    trace_reader_close(&tr);
    unlink(path);
}

/* Text after a closing quote, and a quote in it, stay literal, as in
 * split_quoted (and Python's csv); the record still ends at its newline. */
static void test_quote_after_closing_quote(void)
{
    const char *t = HEADER "1,MARK,\"ab\"c\"d,\n2,MARK,\"e\"\"f\",\n";
    write_file(t, strlen(t));
    struct trace_reader tr;
    CHECK(trace_reader_open(&tr, path) == 0);
    struct trace_row row;
    CHECK(trace_reader_next(&tr, &row) == 1);
    CHECK_STR(row.label, "abc\"d");
    CHECK(trace_reader_next(&tr, &row) == 1);
    CHECK_STR(row.label, "e\"f");
    CHECK(row.line == 3);
    CHECK(trace_reader_next(&tr, &row) == 0);
    trace_reader_close(&tr);
    unlink(path);
}

/* A label with a comma, a quote and a newline (the CSV writer's quoting)
 * reads back whole, and the line numbers after it count the newline. */
static void test_quoted_newline_keeps_line_numbers(void)
{
    const char *t = HEADER "1,MARK,\"a,\"\"b\"\"\nc\",\n2,SAMPLE,,1\n3,SAMPLE,,x\n";
    write_file(t, strlen(t));
    struct trace_reader tr;
    CHECK(trace_reader_open(&tr, path) == 0);
    struct trace_row row;
    CHECK(trace_reader_next(&tr, &row) == 1);
    CHECK_STR(row.label, "a,\"b\"\nc");
    CHECK(trace_reader_next(&tr, &row) == 1);
    CHECK(row.line == 4);
    CHECK(trace_reader_next(&tr, &row) == -1);
    CHECK(strstr(tr.error, ":5: column gpu_power_W: not a number: 'x'") != NULL);
    trace_reader_close(&tr);
    unlink(path);
}

/* A record just under the 1 MiB row cap (CSV_RECORD_MAX), straddling the
 * reader's first buffer: a quoted label of 1 MiB - 100 bytes. */
static void test_record_larger_than_buffer(void)
{
    size_t big = (size_t)CSV_RECORD_MAX - 100;
    size_t cap = big + 256;
    char *t = malloc(cap);
    CHECK(t != NULL);
    if (!t)
        return;
    size_t n = (size_t)snprintf(t, cap, HEADER "1,MARK,\"");
    for (size_t i = 0; i < big; i++)
        t[n++] = (char)(i % 97 == 0 ? ',' : 'a' + i % 26);
    n += (size_t)snprintf(t + n, cap - n, "\",\n2,SAMPLE,,7\n");
    write_file(t, n);
    struct trace_reader tr;
    CHECK(trace_reader_open(&tr, path) == 0);
    struct trace_row row;
    CHECK(trace_reader_next(&tr, &row) == 1);
    CHECK(strlen(row.label) == big);
    CHECK(row.label[0] == ',' && row.label[1] == 'b');
    CHECK(trace_reader_next(&tr, &row) == 1);
    CHECK(row.v[COL_GPU_POWER_W] == 7.0);
    CHECK(trace_reader_next(&tr, &row) == 0);
    trace_reader_close(&tr);
    free(t);
    unlink(path);
}

/* kill -9 in mid-row: the whole rows before it are read, the cut one is
 * skipped with the flag set; an unterminated quote at the end likewise. */
static void test_truncated_last_line(void)
{
    const char *cuts[] = { HEADER "1,SAMPLE,,5\n2,SAMP", HEADER "1,SAMPLE,,5\n2,MARK,\"ab" };
    for (int k = 0; k < 2; k++) {
        write_file(cuts[k], strlen(cuts[k]));
        struct trace_reader tr;
        CHECK(trace_reader_open(&tr, path) == 0);
        struct trace_row row;
        CHECK(trace_reader_next(&tr, &row) == 1);
        CHECK(trace_reader_next(&tr, &row) == 0);
        CHECK(tr.truncated_last_line == 1);
        trace_reader_close(&tr);
        unlink(path);
    }
}

int main(void)
{
    run_test("stray quote in an unquoted cell does not swallow the file", test_stray_quote_does_not_swallow_file);
    run_test("text and quotes after a closing quote stay literal", test_quote_after_closing_quote);
    run_test("quoted newline keeps later line numbers right", test_quoted_newline_keeps_line_numbers);
    run_test("a 3 MiB record grows the buffer", test_record_larger_than_buffer);
    run_test("truncated last line skipped, rows before kept", test_truncated_last_line);
    return check_exit_status();
}
