/* test_csv_split.c — the reader's cut of plain records into fields, 64
 * bytes at a time (csv_reader.c, split_plain): 20,000 random records of
 * 1 to 300 cells, 0 to 20 bytes each (empty ones in runs, as a trace's
 * unused columns are), CRLF and LF, the last record with and without its
 * newline, so that cells end on, before and after every block boundary
 * and records end anywhere in a block; every field and its length against
 * a plain walk. test_csv_split_portable.c runs it on the eight-byte way. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "csv_reader.h"

#define RECORDS 20000
#define CELLS_MAX 300

static unsigned seed = 12345;
static unsigned next_rand(void)
{
    seed = seed * 1103515245u + 12345u;
    return seed >> 8;
}

static void test_random_records(void)
{
    static const char alphabet[] = "0123456789.-xE";
    size_t cap = (size_t)RECORDS * CELLS_MAX * 8, len = 0;
    char *data = malloc(cap);
    int *ncell = malloc(sizeof *ncell * RECORDS);
    unsigned char *width = malloc((size_t)RECORDS * CELLS_MAX);
    CHECK(data && ncell && width);
    if (!data || !ncell || !width)
        return;
    for (int i = 0; i < RECORDS; i++) {
        int n = 1 + (int)(next_rand() % (i % 7 == 0 ? CELLS_MAX : 60));
        int empty_run = 0;
        ncell[i] = n;
        for (int c = 0; c < n; c++) {
            if (empty_run == 0 && next_rand() % 5 == 0)
                empty_run = (int)(next_rand() % 30);
            int w = empty_run > 0 ? (empty_run--, 0) : (int)(next_rand() % 21);
            width[(size_t)i * CELLS_MAX + c] = (unsigned char)w;
            for (int k = 0; k < w; k++)
                data[len++] = alphabet[next_rand() % (sizeof alphabet - 1)];
            if (c + 1 < n)
                data[len++] = ',';
        }
        if (i + 1 < RECORDS || next_rand() % 2) {
            if (next_rand() % 3 == 0)
                data[len++] = '\r';
            data[len++] = '\n';
        }
    }
    char path[64];
    check_write_file(path, sizeof path, "/tmp/flinch_csv_split", data, len);
    struct csv_reader r;
    CHECK(csv_open(&r, path) == 0);
    long bad = 0, fields = 0, records = 0;
    const char *at = data;
    for (int i = 0; i < RECORDS; i++) {
        if (csv_next(&r) != 1) {
            bad++;
            break;
        }
        records++;
        bad += r.nfields != ncell[i];
        for (int c = 0; c < ncell[i] && c < r.nfields; c++) {
            size_t w = width[(size_t)i * CELLS_MAX + c];
            fields++;
            bad += r.field_len[c] != w || strlen(r.field[c]) != w || memcmp(r.field[c], at, w) != 0;
            at += w + 1;              /* the cell and its ',' (or its record's end) */
        }
        if (at < data + len && at[-1] == '\r')
            at++;                     /* CRLF: the '\n' after the '\r' */
    }
    CHECK(csv_next(&r) == 0);
    csv_close(&r);
    unlink(path);
    CHECK(records == RECORDS);
    CHECK(fields > 500000);
    CHECK(bad == 0);
    free(data);
    free(ncell);
    free(width);
}

int main(void)
{
    run_test("csv split: random plain records, every field where it is", test_random_records);
    return check_exit_status();
}
