/*
 * fuzz_trace_reader.c — libFuzzer target for the trace reader and the CSV
 * tokenizer under it (issue 6). Built and run by `make fuzz`:
 *
 *   clang -std=c11 -D_GNU_SOURCE -DCSV_BUF_INIT=64 -g -O1 -fsanitize=fuzzer,address,undefined \
 *     -Isrc/trace -Isrc/util tests/fuzz/fuzz_trace_reader.c src/trace/trace_reader.c \
 *     src/trace/csv_reader.c src/trace/trace_schema.c -o build-fuzz/fuzz_trace_reader -lm
 *   build-fuzz/fuzz_trace_reader -max_total_time=60 tests/fuzz/corpus/trace_reader
 *
 * Each input is read as a whole trace file twice: once from a memfd (the
 * reader gets everything in its first read) and once through a pipe fed in
 * small chunks by a thread (records straddle reads, so the buffer refill
 * path runs). Besides memory errors it checks the reader's promises:
 *  - next() returns 1, 0 or -1; -1 (and a failed open) comes with a message
 *    that starts with the path and a ':' and is NUL-terminated;
 *  - rows come in increasing line order, line >= 2, a known row type, a
 *    NUL-terminated label, a GPU index in -1..1023, and per GPU the SAMPLE
 *    times never go back;
 *  - every number it returns is finite and within its column's range
 *    (trace_column_ranges), t_mono_ns within 0..TRACE_NS_MAX;
 *  - both ways of reading give the same rows and the same outcome (a row
 *    over the cap, -DCSV_RECORD_MAX=1024 here, is the same error either way);
 *  - a read with a column mask (trace_reader_want: the times only, as the
 *    clock measure reads) gives the same rows, values of the columns it
 *    wants and outcome, the same error message included, and NAN in the
 *    columns it does not;
 *  - trace_parse_double, when it accepts text, gives exactly strtod's
 *    double (the "correctly rounded" claim), and never accepts text that
 *    strtod would not consume whole.
 * Built with -DCSV_BUF_INIT=64 so the reader's buffer starts tiny and its
 * growth path runs on ordinary inputs.
 * diag_warn/diag_error are stubbed here (formatted, then dropped) so the
 * truncated-last-line warning does not flood the fuzzer's output.
 */
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "diag.h"
#include "trace_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void emit_nowhere(const char *fmt, va_list ap)
{
    char line[1024];
    vsnprintf(line, sizeof line, fmt, ap);
}

void diag_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit_nowhere(fmt, ap);
    va_end(ap);
}

void diag_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit_nowhere(fmt, ap);
    va_end(ap);
}

/* FNV-1a over everything the reader returned, to compare the two reads. */
static void mix(uint64_t *h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        *h ^= b[i];
        *h *= 1099511628211ull;
    }
}

static void check_error(const struct trace_reader *tr, const char *path, uint64_t *h)
{
    size_t plen = strlen(path);
    if (strnlen(tr->error, sizeof tr->error) == sizeof tr->error)
        abort();                                /* not NUL-terminated */
    if (strncmp(tr->error, path, plen) != 0 || tr->error[plen] != ':')
        abort();                                /* message must name the file */
    const char *rest = tr->error + plen;
    mix(h, rest, strlen(rest));
}

/* The column mask of a read (trace_reader_want), and the columns its
 * digest covers: the masked read and an unmasked one must agree there. */
static uint64_t want_columns = TRACE_WANT_ALL, digest_columns = TRACE_WANT_ALL;
#define MEASURE_COLUMNS (TRACE_WANT(COL_T_MONO_NS) | TRACE_WANT(COL_T_WALL_NS))

/* Whether the reader returns column C whatever the mask. */
static int always_read(int c)
{
    return c == COL_T_MONO_NS || c == COL_T_WALL_NS || c == COL_GPU_INDEX;
}

/* Reads the trace at path to the end; returns a digest of what came out. */
static uint64_t read_all(const char *path)
{
    uint64_t h = 14695981039346656037ull;
    struct trace_reader tr;
    if (trace_reader_open(&tr, path) != 0) {
        check_error(&tr, path, &h);
        trace_reader_close(&tr);
        return h;
    }
    trace_reader_want(&tr, want_columns);
    mix(&h, &tr.ncols, sizeof tr.ncols);
    struct trace_row row;
    long last_line = 1;
    int64_t last_t[1025];
    for (int i = 0; i < 1025; i++)
        last_t[i] = INT64_MIN;
    int rc;
    while ((rc = trace_reader_next(&tr, &row)) == 1) {
        if (row.line <= last_line)
            abort();
        last_line = row.line;
        if (row.type != TRACE_SAMPLE && row.type != TRACE_MARK && row.type != TRACE_EVENT)
            abort();
        if (row.gpu < -1 || row.gpu > 1023)
            abort();
        if (row.type == TRACE_SAMPLE) {
            if (row.t_mono_ns < last_t[row.gpu + 1])
                abort();
            last_t[row.gpu + 1] = row.t_mono_ns;
        }
        size_t llen = strlen(row.label);
        mix(&h, &row.line, sizeof row.line);
        mix(&h, &row.type, sizeof row.type);
        mix(&h, &row.t_mono_ns, sizeof row.t_mono_ns);
        mix(&h, &row.gpu, sizeof row.gpu);
        mix(&h, row.label, llen + 1);
        for (int c = 0; c < COL_COUNT; c++) {
            if (!(want_columns & TRACE_WANT(c)) && !always_read(c) && !isnan(row.v[c]))
                abort();                        /* a column the mask leaves out */
            if (isnan(row.v[c]) || (!(digest_columns & TRACE_WANT(c)) && !always_read(c)))
                continue;
            /* every accepted number finite and within its column's range */
            const struct trace_column_range *rg = &trace_column_ranges[c];
            if (!isfinite(row.v[c]) || (rg->hi > rg->lo && (row.v[c] < rg->lo || row.v[c] > rg->hi)))
                abort();
            mix(&h, &row.v[c], sizeof row.v[c]);
        }
        if (row.t_mono_ns < 0 || row.t_mono_ns > TRACE_NS_MAX)
            abort();
    }
    if (rc != 0 && rc != -1)
        abort();
    mix(&h, &rc, sizeof rc);
    if (rc < 0)
        check_error(&tr, path, &h);
    mix(&h, &tr.truncated_last_line, sizeof tr.truncated_last_line);
    trace_reader_close(&tr);
    return h;
}

struct feeder {
    int fd;
    const uint8_t *data;
    size_t size, chunk;
};

static void *feed(void *arg)
{
    struct feeder *f = arg;
    for (size_t off = 0; off < f->size;) {
        size_t n = f->size - off < f->chunk ? f->size - off : f->chunk;
        ssize_t w = write(f->fd, f->data + off, n);
        if (w <= 0)
            break;                              /* reader gave up: EPIPE */
        off += (size_t)w;
    }
    close(f->fd);
    return NULL;
}

static uint64_t read_through_pipe(const uint8_t *data, size_t size)
{
    int p[2];
    if (pipe(p) != 0)
        abort();
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", p[0]);
    struct feeder f = { p[1], data, size, size % 61 + 1 };
    pthread_t th;
    if (pthread_create(&th, NULL, feed, &f) != 0)
        abort();
    /* the reader opens its own descriptor of the pipe; ours stays open
     * until it is done so the path stays valid */
    uint64_t h = read_all(path);
    close(p[0]);
    pthread_join(th, NULL);
    (void)path;
    return h;
}

static uint64_t read_from_memfd(const uint8_t *data, size_t size)
{
    int fd = memfd_create("fuzz_trace", MFD_CLOEXEC);
    if (fd < 0)
        abort();
    for (size_t off = 0; off < size;) {
        ssize_t w = write(fd, data + off, size - off);
        if (w <= 0)
            abort();
        off += (size_t)w;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    uint64_t h = read_all(path);
    close(fd);
    return h;
}

/* The number parser against strtod, on the input's first line. */
static void check_number(const uint8_t *data, size_t size)
{
    size_t n = 0;
    while (n < size && n < 100 && data[n] != '\n' && data[n] != '\0')
        n++;
    char text[128];
    memcpy(text, data, n);
    text[n] = '\0';
    double mine;
    int rc = trace_parse_double(text, n, &mine);
    if (rc == -2) {
        char *e;
        if (isfinite(strtod(text, &e)) || e != text + n)
            abort();                            /* "too large" only for an overflow */
        return;
    }
    if (rc != 0)
        return;
    if (!isfinite(mine))
        abort();                                /* never inf or nan */
    char *end;
    double ref = strtod(text, &end);
    if (end != text + n)
        abort();                                /* accepted what strtod would not */
    if (memcmp(&mine, &ref, sizeof mine) != 0)
        abort();                                /* not the correctly rounded double */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int once;
    if (!once) {
        signal(SIGPIPE, SIG_IGN);
        once = 1;
    }
    check_number(data, size);
    uint64_t whole = read_from_memfd(data, size);
    uint64_t piped = read_through_pipe(data, size);
    if (whole != piped)
        abort();                                /* streaming changed the result */
    digest_columns = MEASURE_COLUMNS;
    uint64_t unmasked = read_from_memfd(data, size);
    want_columns = MEASURE_COLUMNS;
    uint64_t masked = read_from_memfd(data, size);
    want_columns = digest_columns = TRACE_WANT_ALL;
    if (masked != unmasked)
        abort();                                /* the mask changed a row or the outcome */
    return 0;
}
