/*
 * csv_writer.h — formats trace rows as CSV and appends them to the trace
 * file so that a crash never leaves a torn row behind.
 *
 * Owns: RFC 4180 quoting of cells, the header check when appending to an
 * existing trace, and the one-write(2)-per-row rule. Every row is built in a
 * buffer and handed to the kernel with a single write on an O_APPEND file
 * descriptor: rows from the sampler and from the marks thread never
 * interleave, and a kill -9 loses at most the row being built. The first
 * write error (disk full, file too large) is reported once, with the path
 * and strerror, and every later write is refused.
 */
#ifndef FLINCH_CSV_WRITER_H
#define FLINCH_CSV_WRITER_H

#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>

/* Longest row flinch ever writes, newline included. */
#define CSV_ROW_MAX 4096

/* 1 when a cell must be quoted: it holds , " \r \n, or starts or ends
 * with a space or tab. */
int csv_cell_needs_quotes(const char *cell);

/* Formats ncells cells (NULL = empty cell) as one CSV line ending in "\n".
 * Returns its length, or 0 when it does not fit in cap bytes. */
size_t csv_format_row(char *buf, size_t cap, const char *const *cells, int ncells);

/* The same, with cell always_quote (if not empty) quoted whether it needs
 * it or not (-1: none). */
size_t csv_format_row_quoting(char *buf, size_t cap, const char *const *cells, int ncells,
                              int always_quote);

struct csv_out {
    int fd;
    char path[4096];
    long long rows;          /* rows written by us, header excluded */
    int failed;              /* a write failed; nothing more is written */
    int wrote_header;        /* 1: the file was new or empty */
    int created;             /* 1: this open created the file */
    dev_t dev;               /* the file opened, to remove only that one */
    ino_t ino;
    off_t start_size;        /* size before our first row (abandon cuts back to it) */
    long long prior_rows;    /* appending: whole rows already there (header excluded) */
    long long prior_recordings; /* appending: the recorder's `begin` rows already there */
    long long prior_last_mono_ns; /* appending: t_mono_ns of the last row there, or -1 */
    pthread_mutex_t lock;
    /* Optional: also given every row written, under the lock, so in file
     * order (the live answer's feed; it must never block). NULL: none. */
    void (*tee)(void *arg, const char *row, size_t len);
    void *tee_arg;
};

/* Opens path for appending (O_NOFOLLOW: a symlink is refused) and locks it
 * (flock, held until csv_out_close: a second recorder is refused). A new
 * or empty file gets header (one line, with its "\n"); a non-empty regular
 * file must start with exactly that header, and must be ours and not
 * writable by others unless force_append; its tail is checked (a partial
 * last row is cut away with a warning, NUL bytes are refused) and what it
 * holds is noted in prior_*. Returns 0, or -1 after one diag_error line
 * naming the path and the cause. */
int csv_out_open(struct csv_out *o, const char *path, const char *header, int force_append);

/* A start that failed after csv_out_open: removes the file if this open
 * created it, else cuts it back to its size before our rows; closes it. */
void csv_out_abandon(struct csv_out *o);

/* Appends one whole row with one write(2). Returns 0, or -1 when the row
 * could not be written (reported once; see above). Thread-safe. */
int csv_out_write(struct csv_out *o, const char *row, size_t len);

/* Formats and appends; -1 also when the row does not fit CSV_ROW_MAX. */
int csv_out_write_cells(struct csv_out *o, const char *const *cells, int ncells);
int csv_out_write_cells_quoting(struct csv_out *o, const char *const *cells, int ncells,
                                int always_quote);

int csv_out_failed(struct csv_out *o);
long long csv_out_rows(struct csv_out *o);
void csv_out_close(struct csv_out *o);

#endif
