/*
 * csv_reader.h — a streaming RFC 4180 CSV tokenizer.
 *
 * Owns: reading a file through one big buffer and splitting it into
 * records and fields, without a malloc per row. Fields point into the
 * buffer (NUL-terminated in place, quotes removed and "" unescaped) and stay
 * valid until the next csv_next(). A record may end in LF or CRLF; quoted
 * fields may hold commas, quotes and newlines. The last record of a file may
 * lack its newline (a writer that was killed): it is still returned, with
 * no_newline set, so the caller can decide whether it is complete.
 *
 * Bounded: a record longer than CSV_RECORD_MAX bytes (1 MiB; a 2 GB line of
 * NULs) is not buffered whole: csv_next() fails with err CSV_ERR_ROW_TOO_LONG
 * and line set to where it starts, so memory stays about 2 x CSV_RECORD_MAX.
 */
#ifndef FLINCH_CSV_READER_H
#define FLINCH_CSV_READER_H

#include <stddef.h>

/* Longest record read, in bytes without its newline (the writer's own
 * limit, CSV_ROW_MAX in csv_writer.h, is far below). Overridable so the
 * fuzzer (tests/fuzz) reaches it with short inputs. */
#ifndef CSV_RECORD_MAX
#define CSV_RECORD_MAX (1L << 20)
#endif

/* The CSV_FIELD_SLACK bytes from a field's start are always readable
 * (the buffer is padded past its data), so a caller may load a field a
 * word at a time; the bytes past its NUL are unspecified (the next
 * fields, or stale data). 64: the reader itself cuts records 64 bytes at
 * a time. */
#define CSV_FIELD_SLACK 64

enum csv_error { CSV_ERR_NONE, CSV_ERR_IO, CSV_ERR_ROW_TOO_LONG };

struct csv_reader {
    const char *path;     /* for messages; "-" reads stdin */
    long line;            /* line number where the current record starts (1-based) */
    int nfields;          /* fields in the current record */
    char **field;         /* field[i]: NUL-terminated text of field i */
    size_t *field_len;    /* its length in bytes */
    int no_newline;       /* current record ended at end of file without a newline */
    int open_quote;       /* ... and inside an unterminated quoted field */
    long quoted_newlines; /* newlines inside quoted fields of this record (it
                             spans lines line .. line + quoted_newlines) */
    int has_nul;          /* the record holds a NUL byte (fields are cut there) */
    enum csv_error err;   /* why csv_next() returned -1 */
    int in_quote_at_cut;  /* CSV_ERR_ROW_TOO_LONG: the cut fell inside quotes */
    /* private */
    int fd;
    char *buf;
    size_t cap, pos, end;
    int eof;
    int max_fields;
    long next_line;
};

/* 0, or -1 with errno set (the file could not be opened / no memory).
 * "-" is standard input: read once as it comes, or from the start each
 * time once csv_spool_stdin() has run. */
int csv_open(struct csv_reader *r, const char *path);
/* For commands that read their input more than once (plot, export, analyze
 * of several traces): copies standard input into an unlinked temporary file
 * (in $TMPDIR or /tmp; a regular file on stdin is used as it is) so that
 * every later csv_open("-") reads it from its start. 0, or -1 with errno. */
int csv_spool_stdin(void);
/* Reads the next record: 1, 0 at end of file, -1 on a read error (err
 * CSV_ERR_IO, errno set) or a record over CSV_RECORD_MAX (CSV_ERR_ROW_TOO_LONG,
 * line: where it starts). */
int csv_next(struct csv_reader *r);
void csv_close(struct csv_reader *r);

#endif
