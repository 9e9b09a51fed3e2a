/*
 * fuzz_csv_reader.c — libFuzzer target: csv_reader against a reference.
 *
 *   build-fuzz/fuzz_csv_reader -max_total_time=60 tests/fuzz/corpus/csv_reader
 *
 * The reference below is a one-pass, character-at-a-time state machine of
 * the grammar csv_reader.h documents (Python csv's default dialect): a
 * record ends at a '\n' outside quotes, one '\r' before it is dropped; a
 * quote opens a quoted field only at the start of a field, "" inside one is
 * a quote, the closing quote ends the quoting and anything after it up to
 * the next comma is literal; a last record without '\n' is returned with
 * no_newline, and open_quote when it ends inside quotes. csv_reader does
 * the same with a record scan, a fast path for quote-free records and
 * in-place unescaping: each record must match the reference field for
 * field, byte for byte, with the same line number and flags. (Written
 * after review found the scan and the splitter disagreeing about a stray
 * quote; tests/unit/test_hardening_reader.c.) Built with -DCSV_BUF_INIT=64
 * so records straddle buffer refills and growth, and -DCSV_RECORD_MAX=1024 so
 * the row cap is reached: a record over it must fail with
 * CSV_ERR_ROW_TOO_LONG at its first line, and has_nul must match the bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "csv_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum ref_state { FIELD_START, UNQUOTED, QUOTED, QUOTE_IN_QUOTED, AFTER_CLOSE };

struct ref_record {
    long line;
    int no_newline, open_quote;
    size_t raw_start, raw_len;      /* the record's bytes, without its '\n' */
    int nfields;
    size_t start[4096], len[4096];  /* field i is text[start[i]..+len[i]) */
};

static char text[1 << 16];
static size_t text_len;

/* Parses one record of data[*pos..size) into r. 0 when no record is left. */
static int ref_next(const uint8_t *data, size_t size, size_t *pos, long *line, struct ref_record *r)
{
    if (*pos >= size)
        return 0;
    enum ref_state st = FIELD_START;
    r->line = *line;
    r->raw_start = *pos;
    r->nfields = 0;
    r->no_newline = r->open_quote = 0;
    text_len = 0;
    size_t fstart = 0;
    size_t i = *pos;
    for (; i < size; i++) {
        char c = (char)data[i];
        if (c == '\n')
            (*line)++;
        if (st == QUOTED) {
            if (c == '"')
                st = QUOTE_IN_QUOTED;
            else
                text[text_len++] = c;
            continue;
        }
        if (st == QUOTE_IN_QUOTED && c == '"') {
            text[text_len++] = '"';
            st = QUOTED;
            continue;
        }
        if (c == '\n' || c == ',') {
            int end = c == '\n';
            if (end && i > *pos && data[i - 1] == '\r' && text_len > fstart)
                text_len--;                     /* the '\r' of a CRLF */
            r->start[r->nfields] = fstart;
            r->len[r->nfields] = text_len - fstart;
            r->nfields++;
            fstart = text_len;
            st = FIELD_START;
            if (end) {
                r->raw_len = i - r->raw_start;
                *pos = i + 1;
                return 1;
            }
            continue;
        }
        if (c == '"' && st == FIELD_START) {
            st = QUOTED;
            continue;
        }
        text[text_len++] = c;
        st = st == QUOTE_IN_QUOTED || st == AFTER_CLOSE ? AFTER_CLOSE : UNQUOTED;
    }
    r->no_newline = 1;
    r->open_quote = st == QUOTED;
    if (!r->open_quote && data[size - 1] == '\r' && text_len > fstart)
        text_len--;
    r->start[r->nfields] = fstart;
    r->len[r->nfields] = text_len - fstart;
    r->nfields++;
    r->raw_len = size - r->raw_start;
    *pos = size;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4000)
        return 0;                               /* fields and text bounded by the arrays */
    int fd = memfd_create("fuzz_csv_reader", MFD_CLOEXEC);
    if (fd < 0)
        abort();
    if (size && write(fd, data, size) != (ssize_t)size)
        abort();
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    struct csv_reader r;
    if (csv_open(&r, path) != 0)
        abort();
    static struct ref_record ref;
    size_t pos = 0;
    long line = 1;
    for (;;) {
        int got = csv_next(&r);
        int want = ref_next(data, size, &pos, &line, &ref);
        if (want && ref.raw_len > (size_t)CSV_RECORD_MAX) {
            /* over the row cap: an error naming the record's first line */
            if (got != -1 || r.err != CSV_ERR_ROW_TOO_LONG || r.line != ref.line)
                abort();
            break;
        }
        if (got != want)
            abort();                            /* a record appeared or vanished */
        if (!got)
            break;
        if (r.has_nul != (memchr(data + ref.raw_start, 0, ref.raw_len) != NULL))
            abort();                            /* a NUL byte went unnoticed */
        if (r.line != ref.line || r.nfields != ref.nfields || r.no_newline != ref.no_newline ||
            r.open_quote != ref.open_quote)
            abort();
        for (int k = 0; k < r.nfields; k++)
            if (r.field_len[k] != ref.len[k] ||
                memcmp(r.field[k], text + ref.start[k], ref.len[k]) != 0)
                abort();                        /* a field differs */
    }
    csv_close(&r);
    close(fd);
    return 0;
}
