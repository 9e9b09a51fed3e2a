/*
 * threads_file.c — reads the threads file into spans (format and span
 * rule in threads_file.h).
 *
 * Every line is checked: its length, its field count, each number's range
 * and each token's characters; the first bad one ends the read with
 * "FILE:LINE: what". One exception: a T line whose state is not one that
 * Linux documents for /proc/PID/stat is skipped with a warning (rate
 * limited, diag_warn_repeat), the thread keeping its state before it. The
 * threads alive sit unordered in one array, found by tid through a hash
 * (tid_index.h): each line costs the same however many threads there are;
 * at a session's end they are sorted by tid once, the order their last
 * spans come out in. A session that ends without its E line (the recorder
 * was killed) ends at its last sweep, like one that has it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "threads_file.h"

struct threads_live {
    long tid, pid;
    char name[THREADS_NAME_MAX];
    int has_state;
    int64_t since;
    char state;
    char wchan[THREADS_TOKEN_MAX], call[THREADS_TOKEN_MAX], fd[THREADS_TOKEN_MAX];
};

static int fail(struct threads_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct threads_reader *r, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(r->error, sizeof r->error, "%.*s:%ld: %s", 150, r->path, r->line, what);
    return -1;
}

int threads_reader_open(struct threads_reader *r, const char *trace_path)
{
    memset(r, 0, sizeof *r);
    r->closing = -1;
    snprintf(r->path, sizeof r->path, "%s%s", trace_path, THREADS_FILE_SUFFIX);
    int fd = open(r->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENOENT)
            return 1;
        snprintf(r->error, sizeof r->error, "%.*s: cannot open: %s", 200, r->path, strerror(errno));
        return -1;
    }
    r->f = fdopen(fd, "r");
    if (!r->f) {
        close(fd);
        snprintf(r->error, sizeof r->error, "%.*s: cannot read: %s", 200, r->path, strerror(errno));
        return -1;
    }
    return 0;
}

void threads_reader_close(struct threads_reader *r)
{
    if (r->f)
        fclose(r->f);
    r->f = NULL;
    free(r->live);
    r->live = NULL;
    tid_index_free(&r->index);
    diag_repeat_summary(r->path);
}

/* The states proc(5) documents for the third field of /proc/PID/stat:
 * R running, S sleeping, D disk sleep, Z zombie, T stopped, t tracing
 * stop, X and x dead, K wakekill, W waking or paging, P parked, I idle. */
static int linux_state(const char *s)
{
    return strlen(s) == 1 && strchr("RSDZTtXxKWPI", s[0]) != NULL;
}

static int by_tid(const void *a, const void *b)
{
    const struct threads_live *x = a, *y = b;
    return (x->tid > y->tid) - (x->tid < y->tid);
}

/* The session ends: its threads' last spans come out in tid order. */
static void start_closing(struct threads_reader *r)
{
    if (r->nlive > 1)
        qsort(r->live, (size_t)r->nlive, sizeof *r->live, by_tid);
    tid_index_clear(&r->index);
    r->closing = 0;
}

/* Splits line into at most max fields at single spaces. */
static int split(char *line, char **field, int max)
{
    int n = 0;
    for (char *p = line; *p && n < max; n++) {
        field[n] = p;
        p = strchr(p, ' ');
        if (!p)
            return n + 1;
        *p++ = '\0';
    }
    return n;
}

static int parse_long(struct threads_reader *r, const char *s, const char *what, long lo, long hi,
                      long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi || (*s < '0' || *s > '9'))
        return fail(r, "%s: expected an integer from %ld to %ld, got '%.40s'", what, lo, hi, s);
    *out = v;
    return 0;
}

static int parse_time(struct threads_reader *r, const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || errno || v < 0 || *s < '0' || *s > '9')
        return fail(r, "time: expected nanoseconds >= 0, got '%.40s'", s);
    *out = v;
    return 0;
}

static int token(struct threads_reader *r, const char *s, const char *what, size_t max)
{
    size_t n = strlen(s);
    if (n == 0 || n >= max)
        return fail(r, "%s: expected 1 to %zu characters, got %zu", what, max - 1, n);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] <= ' ' || (unsigned char)s[i] > '~')
            return fail(r, "%s: byte 0x%02x is not printable", what, (unsigned char)s[i]);
    return 0;
}


/* Fills span from a live thread's current state over [since, until];
 * 1 when it has positive length. */
static int take_span(const struct threads_live *t, int64_t until, struct thread_span *span)
{
    if (!t->has_state || until <= t->since)
        return 0;
    span->tid = t->tid;
    span->pid = t->pid;
    memcpy(span->name, t->name, sizeof span->name);
    span->t0_ns = t->since;
    span->t1_ns = until;
    span->state = t->state;
    memcpy(span->wchan, t->wchan, sizeof span->wchan);
    memcpy(span->call, t->call, sizeof span->call);
    memcpy(span->fd, t->fd, sizeof span->fd);
    return 1;
}

/* The time a change seen at the current sweep takes effect. */
static int64_t edge(const struct threads_reader *r)
{
    return r->prev_sweep >= 0 ? r->prev_sweep + (r->last_sweep - r->prev_sweep) / 2 : r->last_sweep;
}

/* One line; 1 with a span, 0 without, -1 on error. */
static int handle(struct threads_reader *r, char *line, struct thread_span *span)
{
    char *f[8];
    int n = split(line, f, 8);
    char type = n > 0 && strlen(f[0]) == 1 ? f[0][0] : '?';
    static const struct { char type; int fields; } shape[] = {
        { 'B', 5 }, { 'S', 2 }, { 'N', 4 }, { 'T', 6 }, { 'X', 2 }, { 'E', 4 },
    };
    int want = -1;
    for (size_t i = 0; i < sizeof shape / sizeof shape[0]; i++)
        if (shape[i].type == type)
            want = shape[i].fields;
    if (type == '!') {
        if (r->nnotes < 4)
            snprintf(r->notes[r->nnotes++], sizeof r->notes[0], "%s", line + 2);
        return 0;
    }
    if (want < 0)
        return fail(r, "unknown record '%.20s' (expected B, S, N, T, X, E or !)", f[0]);
    if (n != want)
        return fail(r, "record %c: expected %d fields, got %d", type, want, n);
    if (type == 'B') {
        int64_t t;
        long v;
        if (parse_time(r, f[1], &t) != 0)
            return -1;
        if (strncmp(f[3], "interval_ms=", 12) != 0 ||
            parse_long(r, f[3] + 12, "interval_ms", 1, 3600000, &v) != 0)
            return r->error[0] ? -1 : fail(r, "B: expected interval_ms=N");
        r->interval_ms = v;
        r->sessions++;
        r->in_session = 1;
        r->prev_sweep = r->last_sweep = -1;
        return 0;
    }
    if (!r->in_session)
        return fail(r, "record %c before a B line", type);
    if (type == 'E') {
        int64_t t;
        if (parse_time(r, f[1], &t) != 0)
            return -1;
        r->in_session = 0;
        start_closing(r);
        return 0;
    }
    if (type == 'S') {
        int64_t t;
        if (parse_time(r, f[1], &t) != 0)
            return -1;
        if (t < r->last_sweep)
            return fail(r, "sweep time %lld goes back in time (previous %lld)", (long long)t,
                        (long long)r->last_sweep);
        r->prev_sweep = r->last_sweep;
        r->last_sweep = t;
        return 0;
    }
    if (r->last_sweep < 0)
        return fail(r, "record %c before the session's first S line", type);
    long tid, pid;
    if (parse_long(r, f[1], "tid", 1, 0x7fffffff, &tid) != 0)
        return -1;
    long at = tid_index_get(&r->index, tid);
    int found = at >= 0;
    if (type == 'N') {
        if (parse_long(r, f[2], "pid", 1, 0x7fffffff, &pid) != 0 ||
            token(r, f[3], "name", THREADS_NAME_MAX) != 0)
            return -1;
        if (!found) {
            if (r->nlive == r->cap) {
                long cap = r->cap ? r->cap * 2 : 64;
                void *grown = realloc(r->live, sizeof *r->live * (size_t)cap);
                if (!grown)
                    return fail(r, "out of memory");
                r->live = grown;
                r->cap = cap;
            }
            at = r->nlive;
            if (tid_index_put(&r->index, tid, at) != 0)
                return fail(r, "out of memory");
            r->nlive++;
            memset(&r->live[at], 0, sizeof r->live[at]);
            r->live[at].tid = tid;
        }
        r->live[at].pid = pid;
        snprintf(r->live[at].name, sizeof r->live[at].name, "%s", f[3]);
        return 0;
    }
    if (!found)
        return fail(r, "tid %ld: record %c without an N line before it", tid, type);
    struct threads_live *t = &r->live[at];
    int got = take_span(t, edge(r), span);
    if (type == 'X') {
        tid_index_remove(&r->index, tid);
        if (at != r->nlive - 1) {       /* the last one takes its place */
            r->live[at] = r->live[r->nlive - 1];
            tid_index_set(&r->index, r->live[at].tid, at);
        }
        r->nlive--;
        return got;
    }
    if (!linux_state(f[2])) {
        /* not a span edge: the thread goes on in the state it had */
        diag_warn_repeat(r->path, r->line, "%s:%ld: state '%.20s' is not a Linux thread state "
                         "(R S D Z T t X x K W P I, proc(5)); line ignored", r->path, r->line, f[2]);
        return 0;
    }
    if (token(r, f[3], "wchan", THREADS_TOKEN_MAX) != 0 ||
        token(r, f[4], "call", THREADS_TOKEN_MAX) != 0 ||
        token(r, f[5], "fd", THREADS_TOKEN_MAX) != 0)
        return -1;
    t->has_state = 1;
    t->since = edge(r);
    t->state = f[2][0];
    snprintf(t->wchan, sizeof t->wchan, "%s", f[3]);
    snprintf(t->call, sizeof t->call, "%s", f[4]);
    snprintf(t->fd, sizeof t->fd, "%s", f[5]);
    return got;
}

int threads_reader_next(struct threads_reader *r, struct thread_span *span)
{
    char *line = r->buf;
    for (;;) {
        if (r->closing >= 0) {
            while (r->closing < r->nlive)
                if (take_span(&r->live[r->closing++], r->last_sweep, span))
                    return 1;
            r->nlive = 0;
            r->closing = -1;
        }
        if (r->at_eof)
            return 0;
        if (!r->kept) {
            if (!fgets(line, sizeof r->buf, r->f)) {
                if (ferror(r->f))
                    return fail(r, "read error");
                r->at_eof = 1;
                start_closing(r);
                continue;
            }
            r->line++;
            size_t len = strlen(line);
            if (len == 0 || line[len - 1] != '\n') {
                if (len > THREADS_LINE_MAX)
                    return fail(r, "line longer than %d bytes", THREADS_LINE_MAX);
                diag_warn("%s:%ld: truncated last line ignored (the recorder was stopped "
                          "mid-write)", r->path, r->line);
                r->at_eof = 1;
                start_closing(r);
                continue;
            }
            line[len - 1] = '\0';
            if (r->line == 1) {
                if (strcmp(line, "flinch-threads 1") != 0)
                    return fail(r, "not a flinch threads file (first line '%.40s')", line);
                continue;
            }
            if (line[0] == '#')
                continue;
        }
        if (line[0] == 'B' && r->nlive) {
            r->kept = 1;                  /* the last session had no E line: end it first */
            start_closing(r);
            continue;
        }
        r->kept = 0;
        int rc = handle(r, line, span);
        if (rc != 0)
            return rc;
    }
}
