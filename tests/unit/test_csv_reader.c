/* test_csv_reader.c — the CSV tokenizer: plain and quoted fields, CRLF,
 * embedded newlines, a truncated last record, records larger than the
 * initial buffer. */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "csv_reader.h"

static char path[64];

static void write_file(const char *data, size_t len)
{
    check_write_file(path, sizeof path, "/tmp/flinch_csv_test", data, len);
}

static void test_plain_and_crlf(void)
{
    const char d[] = "a,b,c\r\n1,,3\r\n\r\nx,y,z\n";
    write_file(d, sizeof d - 1);
    struct csv_reader r;
    CHECK(csv_open(&r, path) == 0);
    CHECK(csv_next(&r) == 1);
    CHECK(r.nfields == 3 && r.line == 1);
    CHECK_STR(r.field[2], "c");
    CHECK(csv_next(&r) == 1);
    CHECK(r.nfields == 3 && r.line == 2);
    CHECK_STR(r.field[0], "1");
    CHECK(r.field_len[1] == 0);
    CHECK_STR(r.field[2], "3");
    CHECK(csv_next(&r) == 1);           /* the blank line: one empty field */
    CHECK(r.nfields == 1 && r.field_len[0] == 0 && r.line == 3);
    CHECK(csv_next(&r) == 1);
    CHECK_STR(r.field[2], "z");
    CHECK(!r.no_newline && r.line == 4);
    CHECK(csv_next(&r) == 0);
    csv_close(&r);
}

static void test_quotes(void)
{
    const char d[] = "\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",plain\nnext,row\n";
    write_file(d, sizeof d - 1);
    struct csv_reader r;
    CHECK(csv_open(&r, path) == 0);
    CHECK(csv_next(&r) == 1);
    CHECK(r.nfields == 4);
    CHECK_STR(r.field[0], "a,b");
    CHECK_STR(r.field[1], "say \"hi\"");
    CHECK_STR(r.field[2], "two\nlines");
    CHECK(r.field_len[2] == 9);
    CHECK_STR(r.field[3], "plain");
    CHECK(csv_next(&r) == 1);
    CHECK(r.line == 3);                 /* the quoted newline counted */
    CHECK_STR(r.field[1], "row");
    CHECK(csv_next(&r) == 0);
    csv_close(&r);
}

static void test_truncated_last(void)
{
    const char d[] = "a,b,c\n1,2,3\n4,5";
    write_file(d, sizeof d - 1);
    struct csv_reader r;
    CHECK(csv_open(&r, path) == 0);
    CHECK(csv_next(&r) == 1 && !r.no_newline);
    CHECK(csv_next(&r) == 1 && !r.no_newline);
    CHECK(csv_next(&r) == 1);
    CHECK(r.no_newline && !r.open_quote && r.nfields == 2);
    CHECK_STR(r.field[1], "5");
    CHECK(csv_next(&r) == 0);
    csv_close(&r);

    const char q[] = "a,b\n1,\"unterminated";
    write_file(q, sizeof q - 1);
    CHECK(csv_open(&r, path) == 0);
    CHECK(csv_next(&r) == 1);
    CHECK(csv_next(&r) == 1);
    CHECK(r.no_newline && r.open_quote);
    CHECK(csv_next(&r) == 0);
    csv_close(&r);
}

/* A record longer than the initial buffer, after many short ones. */
/* A record just under the CSV_RECORD_MAX cap, straddling buffer refills; then
 * one byte over it: an error naming its line, not a 2 GB buffer. */
static void test_big_record(void)
{
    size_t big = (size_t)CSV_RECORD_MAX - 6, n = 0;
    char *d = malloc(big + 1000000);
    for (int i = 0; i < 50000; i++)
        n += (size_t)sprintf(d + n, "%d,x\n", i);
    d[n++] = '"';
    for (size_t i = 0; i < big; i++)
        d[n++] = (char)('a' + i % 26);
    n += (size_t)sprintf(d + n, "\",end\n");
    write_file(d, n);
    free(d);
    struct csv_reader r;
    CHECK(csv_open(&r, path) == 0);
    long rows = 0;
    int rc;
    while ((rc = csv_next(&r)) == 1 && r.field_len[0] < 1000)
        rows++;
    CHECK(rows == 50000);
    CHECK(rc == 1 && r.field_len[0] == big && r.nfields == 2);
    CHECK_STR(r.field[1], "end");
    CHECK(r.line == 50001);
    CHECK(csv_next(&r) == 0);
    csv_close(&r);

    d = malloc(big + 1000);
    n = (size_t)sprintf(d, "a,b\n1,2\n");
    for (size_t i = 0; i < (size_t)CSV_RECORD_MAX + 1; i++)
        d[n++] = '\0';
    n += (size_t)sprintf(d + n, "\n3,4\n");
    write_file(d, n);
    free(d);
    CHECK(csv_open(&r, path) == 0);
    CHECK(csv_next(&r) == 1 && csv_next(&r) == 1);
    CHECK(csv_next(&r) == -1);
    CHECK(r.err == CSV_ERR_ROW_TOO_LONG && r.line == 3 && !r.in_quote_at_cut);
    csv_close(&r);
}

static void test_missing_file(void)
{
    struct csv_reader r;
    CHECK(csv_open(&r, "/nonexistent/flinch.csv") == -1);
}

int main(void)
{
    run_test("csv plain fields, CRLF, blank line", test_plain_and_crlf);
    run_test("csv quoted fields with commas, quotes, newlines", test_quotes);
    run_test("csv truncated last record flagged", test_truncated_last);
    run_test("csv record larger than the buffer", test_big_record);
    run_test("csv missing file", test_missing_file);
    unlink(path);
    return check_exit_status();
}
