/*
 * fuzz_csv_roundtrip.c — libFuzzer target: whatever cells the recorder
 * formats (csv_format_row), the reader (csv_reader) gets back exactly the
 * same cells, one record per row. This is the "a label cannot inject a CSV
 * row" property of issue 6, checked for every byte string, not only the
 * ones mark_line_parse lets through.
 *
 *   build-fuzz/fuzz_csv_roundtrip -max_total_time=60 tests/fuzz/corpus/csv_roundtrip
 *
 * Input: cells separated by NUL bytes (a cell can never hold a NUL: it is a
 * C string). Between 2 and 40 cells form a row (one cell alone that is
 * empty would be a blank line, which readers skip by design); the input's
 * cells are also written as a second row in reverse order so records
 * follow one another. The rows go to a memfd through csv_format_row and are
 * read back with csv_next: each record must match its row cell for cell,
 * and there must be exactly two records.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "csv_reader.h"
#include "csv_writer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_CELLS 40

static void put(int fd, const char *buf, size_t len)
{
    for (size_t off = 0; off < len;) {
        ssize_t w = write(fd, buf + off, len - off);
        if (w <= 0)
            abort();
        off += (size_t)w;
    }
}

static void expect_record(struct csv_reader *r, const char *const *cells, int n)
{
    if (csv_next(r) != 1)
        abort();                                /* a row vanished */
    if (r->nfields != n || r->no_newline)
        abort();                                /* a row split or merged */
    for (int i = 0; i < n; i++) {
        size_t len = strlen(cells[i]);
        if (r->field_len[i] != len || memcmp(r->field[i], cells[i], len) != 0)
            abort();                            /* a cell changed */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > CSV_ROW_MAX)
        return 0;
    char text[CSV_ROW_MAX + 1];
    memcpy(text, data, size);
    text[size] = '\0';
    const char *cells[MAX_CELLS], *reversed[MAX_CELLS];
    int n = 0;
    for (size_t off = 0; n < MAX_CELLS;) {
        cells[n++] = text + off;
        off += strlen(text + off) + 1;
        if (off > size)
            break;
    }
    if (n < 2)
        cells[n++] = "";
    for (int i = 0; i < n; i++)
        reversed[i] = cells[n - 1 - i];

    static char row[2 * CSV_ROW_MAX + 64];
    size_t len1 = csv_format_row(row, sizeof row, cells, n);
    if (len1 == 0)
        abort();                                /* the buffer is big enough for any input */
    if (row[len1 - 1] != '\n' || strlen(row) != len1)
        abort();
    int fd = memfd_create("fuzz_csv", MFD_CLOEXEC);
    if (fd < 0)
        abort();
    put(fd, row, len1);
    size_t len2 = csv_format_row(row, sizeof row, reversed, n);
    if (len2 != len1)
        abort();
    put(fd, row, len2);

    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    struct csv_reader r;
    if (csv_open(&r, path) != 0)
        abort();
    expect_record(&r, cells, n);
    expect_record(&r, reversed, n);
    if (csv_next(&r) != 0)
        abort();                                /* an extra record appeared */
    csv_close(&r);
    close(fd);
    return 0;
}
