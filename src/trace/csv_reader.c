/*
 * csv_reader.c — see csv_reader.h.
 *
 * The buffer holds whole records: csv_next() finds where the current record
 * ends (outside quotes), refilling and growing the buffer only when a record
 * straddles the end of the data read so far, then cuts the record into
 * fields in place. Records without any quote take a fast path (memchr for
 * commas); quoted records are unescaped in place, which is safe because
 * unescaping only ever shrinks the text.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csv_reader.h"

/* 256 KiB: a read's bytes are parsed while the kernel's copy of them is
 * still in the core's cache. With 1 MiB, a core's whole L2 on Zen 4, the
 * first bytes of a read had left it before the parse reached them
 * (analyze 5 % slower, by perf: memchr, memmove and the copy itself).
 * Overridable so the fuzzer (tests/fuzz) can start small and exercise growth. */
#ifndef CSV_BUF_INIT
#define CSV_BUF_INIT (1u << 18)
#endif

/* Standard input made re-readable by csv_spool_stdin: a descriptor of the
 * file holding it and where the data starts there; -1 when not spooled. */
static int spool_fd = -1;
static off_t spool_start;

int csv_spool_stdin(void)
{
    if (spool_fd >= 0)
        return 0;
    struct stat st;
    if (fstat(0, &st) == 0 && S_ISREG(st.st_mode)) {
        /* already a file (< trace.csv): read it again from where it began */
        spool_start = lseek(0, 0, SEEK_CUR);
        if (spool_start >= 0 && (spool_fd = fcntl(0, F_DUPFD_CLOEXEC, 3)) >= 0)
            return 0;
    }
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) {
        char tmpl[4096];
        snprintf(tmpl, sizeof tmpl, "%s/flinch-stdin.XXXXXX", dir);
        fd = mkostemp(tmpl, O_CLOEXEC);
        if (fd >= 0)
            unlink(tmpl);
    }
    if (fd < 0)
        return -1;
    char buf[1 << 16];
    for (;;) {
        ssize_t n = read(0, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            goto fail;
        if (n == 0)
            break;
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(fd, buf + off, (size_t)(n - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0)
                goto fail;
            off += w;
        }
    }
    spool_fd = fd;
    spool_start = 0;
    return 0;
fail:;
    int e = errno;
    close(fd);
    errno = e;
    return -1;
}

int csv_open(struct csv_reader *r, const char *path)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    if (strcmp(path, "-") != 0) {
        r->fd = open(path, O_RDONLY | O_CLOEXEC);
    } else if (spool_fd < 0) {
        r->fd = 0;
    } else {
        r->fd = fcntl(spool_fd, F_DUPFD_CLOEXEC, 3);
        if (r->fd >= 0 && lseek(r->fd, spool_start, SEEK_SET) < 0) {
            close(r->fd);
            r->fd = -1;
        }
    }
    if (r->fd < 0)
        return -1;
    r->cap = CSV_BUF_INIT;
    r->max_fields = 64;
    r->buf = malloc(r->cap + 1 + CSV_FIELD_SLACK);
    r->field = malloc(sizeof *r->field * (size_t)r->max_fields);
    r->field_len = malloc(sizeof *r->field_len * (size_t)r->max_fields);
    if (!r->buf || !r->field || !r->field_len) {
        csv_close(r);
        errno = ENOMEM;
        return -1;
    }
    r->next_line = 1;
    return 0;
}

void csv_close(struct csv_reader *r)
{
    if (r->fd > 0)
        close(r->fd);
    r->fd = -1;
    free(r->buf);
    free(r->field);
    free(r->field_len);
    r->buf = NULL;
    r->field = NULL;
    r->field_len = NULL;
}

/* Moves the unread bytes to the front and reads more, growing the buffer
 * when it is full. Returns bytes read, 0 at end of file, -1 on error. */
static long fill(struct csv_reader *r)
{
    if (r->pos > 0) {
        memmove(r->buf, r->buf + r->pos, r->end - r->pos);
        r->end -= r->pos;
        r->pos = 0;
    }
    if (r->end == r->cap) {
        char *nb = realloc(r->buf, r->cap * 2 + 1 + CSV_FIELD_SLACK);
        if (!nb) {
            errno = ENOMEM;
            return -1;
        }
        r->buf = nb;
        r->cap *= 2;
    }
    for (;;) {
        ssize_t n = read(r->fd, r->buf + r->end, r->cap - r->end);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            r->eof = 1;
        r->end += (size_t)n;
        memset(r->buf + r->end, 0, CSV_FIELD_SLACK);   /* defined bytes past the data */
        return n;
    }
}

/* Doubles the field arrays; cold, off the per-field path. */
static int grow_fields(struct csv_reader *r)
{
    int nmax = r->max_fields * 2;
    char **nf = realloc(r->field, sizeof *nf * (size_t)nmax);
    if (!nf)
        return -1;
    r->field = nf;
    size_t *nl = realloc(r->field_len, sizeof *nl * (size_t)nmax);
    if (!nl)
        return -1;
    r->field_len = nl;
    r->max_fields = nmax;
    return 0;
}

static inline int add_field(struct csv_reader *r, char *start, size_t len)
{
    if (r->nfields == r->max_fields && grow_fields(r) != 0)
        return -1;
    start[len] = '\0';
    r->field[r->nfields] = start;
    r->field_len[r->nfields] = len;
    r->nfields++;
    return 0;
}

/* Finds the end of the record starting at r->pos: the offset of its
 * terminating '\n' (outside quotes), or r->end when the data ran out.
 * Sets *quoted when the record holds a quote and *newlines to the number of
 * newlines inside quoted fields. */
static size_t record_end(const struct csv_reader *r, size_t limit, int *quoted, long *newlines,
                         int *inq_at_end)
{
    const char *b = r->buf;
    const char *nl = memchr(b + r->pos, '\n', limit - r->pos);
    size_t stop = nl ? (size_t)(nl - b) : limit;
    *newlines = 0;
    *inq_at_end = 0;
    if (!memchr(b + r->pos, '"', stop - r->pos)) {
        *quoted = 0;
        return stop;
    }
    *quoted = 1;
    /* Same rules as split_quoted: a quote opens a quoted field only at the
     * start of a field; elsewhere it is a literal character (a stray quote
     * in an unquoted cell must not swallow the rest of the file). A quote
     * right after the closing one is an escaped "" and reopens. */
    int inq = 0, at_start = 1, after_close = 0;
    for (size_t i = r->pos; i < limit; i++) {
        char c = b[i];
        if (inq) {
            if (c == '"') {
                inq = 0;
                after_close = 1;
            } else if (c == '\n') {
                (*newlines)++;
            }
            continue;
        }
        if (c == '"')
            inq = at_start || after_close;
        else if (c == '\n')
            return i;
        at_start = c == ',';
        after_close = 0;
    }
    *inq_at_end = inq;
    return limit;
}

/* Not memchr per field: trace cells are a few bytes long and many are
 * empty, so a call per cell costs more than it scans. Sixty-four bytes at
 * a time instead: their ',' bytes as the bits of one word (SSE2, which
 * every x86-64 has; elsewhere eight bytes at a time, each ',' byte's high
 * bit exactly: no carry crosses a byte, (t & 0x7f) + 0x7f stays below
 * 0x100), taken lowest first. Eight bytes at a time, the loop over a
 * word's commas ended at a count that moved with every cell whose width
 * changed from row to row (a GPU going from idle to busy: "0" to "100",
 * "345" to "1980"), and its branch mispredicted: a trace of bursts read
 * 20 % slower than one of steady readings. *e (the record's '\n' or '\r',
 * or the byte after the data: the buffer has one spare) is a ',' sentinel
 * that ends the last field; it is that field's NUL afterwards either way.
 * A block may reach past e into the next records or the buffer's slack
 * (CSV_FIELD_SLACK, defined bytes): its bits past e are dropped, and a
 * field's NUL is written only where the block was already read. The
 * field arrays and their count are kept in locals: the NUL written
 * through a char pointer may alias anything in memory, which would reload
 * them for every field; room for a block's fields is made before it.
 * CSV_SPLIT_PORTABLE builds the eight-byte way on x86-64 too, for its test
 * (tests/unit/test_csv_split_portable.c). */
#if defined(__SSE2__) && !defined(CSV_SPLIT_PORTABLE)
#include <emmintrin.h>
static inline uint64_t comma_bits(const char *p)
{
    const __m128i comma = _mm_set1_epi8(',');
    uint64_t m = 0;
    for (int k = 0; k < 4; k++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
        m |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, comma)) << (16 * k);
    }
    return m;
}
#elif defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static inline uint64_t comma_bits(const char *p)
{
    const uint64_t ones = UINT64_C(0x0101010101010101), low7 = ones * 0x7f;
    uint64_t m = 0;
    for (int k = 0; k < 8; k++) {
        uint64_t x;
        memcpy(&x, p + 8 * k, sizeof x);
        uint64_t t = x ^ (ones * ',');
        uint64_t h = ~(((t & low7) + low7) | t) & (ones * 0x80);
        /* a byte's high bit to bit 8k + its place: gather the 8 bits */
        m |= ((h >> 7) * UINT64_C(0x0102040810204080) >> 56) << (8 * k);
    }
    return m;
}
#else
static inline uint64_t comma_bits(const char *p)
{
    uint64_t m = 0;
    for (int k = 0; k < 64; k++)
        m |= (uint64_t)(p[k] == ',') << k;
    return m;
}
#endif

static int split_plain(struct csv_reader *r, char *s, char *e)
{
    *e = ',';
    char **field = r->field;
    size_t *field_len = r->field_len;
    int nf = 0, max = r->max_fields;
    for (char *p = s; p <= e; p += 64) {
        uint64_t m = comma_bits(p);
        if (e - p < 63)
            m &= (UINT64_C(2) << (e - p)) - 1;     /* up to e, the sentinel included */
        while (m && nf > max - 64) {
            r->nfields = nf;
            if (grow_fields(r) != 0)
                return -1;
            field = r->field;
            field_len = r->field_len;
            max = r->max_fields;
        }
        for (; m; m &= m - 1) {
            char *c = p + __builtin_ctzll(m);
            field[nf] = s;
            field_len[nf++] = (size_t)(c - s);
            *c = '\0';
            s = c + 1;
        }
    }
    r->nfields = nf;
    return 0;
}

/* Splits a record with quotes, unescaping in place. Text after a closing
 * quote is kept as is (lenient, like Python's csv module). */
static int split_quoted(struct csv_reader *r, char *s, char *e)
{
    char *w = s, *fstart = s;
    int inq = 0, at_start = 1;
    for (char *p = s; p < e; p++) {
        char c = *p;
        if (inq) {
            if (c == '"') {
                if (p + 1 < e && p[1] == '"') {
                    *w++ = '"';
                    p++;
                } else {
                    inq = 0;
                }
            } else {
                *w++ = c;
            }
        } else if (c == '"' && at_start) {
            inq = 1;
            at_start = 0;
        } else if (c == ',') {
            if (add_field(r, fstart, (size_t)(w - fstart)) != 0)
                return -1;
            w = fstart = p + 1;
            at_start = 1;
        } else {
            *w++ = c;
            at_start = 0;
        }
    }
    return add_field(r, fstart, (size_t)(w - fstart));
}

int csv_next(struct csv_reader *r)
{
    int quoted, inq;
    long newlines;
    size_t stop;
    for (;;) {
        stop = record_end(r, r->end, &quoted, &newlines, &inq);
        if (stop - r->pos > (size_t)CSV_RECORD_MAX) {
            /* Too long, whether complete or not. What is said about it
             * comes from its first CSV_RECORD_MAX + 1 bytes only, so the
             * answer is the same however the file arrives in reads. */
            record_end(r, r->pos + (size_t)CSV_RECORD_MAX + 1, &quoted, &newlines, &inq);
            r->line = r->next_line;
            r->err = CSV_ERR_ROW_TOO_LONG;
            r->in_quote_at_cut = inq;
            r->quoted_newlines = newlines;
            errno = EFBIG;
            return -1;
        }
        if (stop < r->end || r->eof)
            break;
        if (fill(r) < 0) {
            r->err = CSV_ERR_IO;
            return -1;
        }
    }
    if (r->pos == r->end)
        return 0;
    r->nfields = 0;
    r->line = r->next_line;
    r->next_line += 1 + newlines;
    r->quoted_newlines = newlines;
    r->no_newline = stop == r->end;
    r->open_quote = r->no_newline && inq;
    r->has_nul = memchr(r->buf + r->pos, '\0', stop - r->pos) != NULL;
    char *s = r->buf + r->pos, *e = r->buf + stop;
    r->pos = r->no_newline ? stop : stop + 1;
    if (e > s && e[-1] == '\r' && !(r->open_quote))
        e--;
    int rc = quoted ? split_quoted(r, s, e) : split_plain(r, s, e);
    if (rc != 0) {
        r->err = CSV_ERR_IO;
        errno = ENOMEM;
        return -1;
    }
    return 1;
}
