/* hosts.c — see hosts.h. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hosts.h"
#include "trace_event.h"
#include "trace_reader.h"

int host_trace_parse(const char *arg, struct host_trace *h, char *err, size_t errlen)
{
    memset(h, 0, sizeof *h);
    const char *eq = strchr(arg, '=');
    const char *name, *name_end;
    /* HOST=PATH only when what precedes '=' could be a host name: a path
     * like ./a=b.csv keeps its '=' */
    if (eq && eq > arg && !memchr(arg, '/', (size_t)(eq - arg))) {
        name = arg;
        name_end = eq;
        h->path = eq + 1;
        h->named = 1;
    } else {
        h->path = arg;
        const char *slash = strrchr(arg, '/');
        name = slash ? slash + 1 : arg;
        name_end = name + strlen(name);
        if (name_end - name > 4 && strcmp(name_end - 4, ".csv") == 0)
            name_end -= 4;
    }
    size_t len = (size_t)(name_end - name);
    if (*h->path == '\0') {
        snprintf(err, errlen, "'%s': no file after '='", arg);
        return -1;
    }
    if (len == 0 || len >= HOST_NAME_LEN) {
        snprintf(err, errlen, "'%s': host name must be 1..%d bytes (use HOST=PATH)", arg,
                 HOST_NAME_LEN - 1);
        return -1;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c == ':' || c == '=' || c < 0x20 || c == 0x7F) {
            snprintf(err, errlen, "'%s': host name '%.*s' may not hold ':', '=' or control "
                     "characters (use HOST=PATH)", arg, (int)len, name);
            return -1;
        }
    }
    memcpy(h->name, name, len);
    h->name[len] = '\0';
    return 0;
}

/* The median needs every difference, a day-long trace has millions: keep
 * at most DIFF_KEEP of them, every STRIDE-th row, doubling the stride (and
 * dropping every other kept value) whenever the buffer fills. Evenly spread
 * samples of the whole recording, in fixed memory, deterministically. */
#define DIFF_KEEP 8192

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The flinch_host EVENT's name=, when it is a valid host name. */
static void record_host_name(struct host_trace *h, const char *label)
{
    char name[HOST_NAME_LEN];
    if (trace_event_value(label, "name", name, sizeof name) != 0 || !name[0] ||
        strcmp(name, "unknown") == 0)
        return;
    for (const char *c = name; *c; c++)
        if (*c == ':' || *c == '=' || *c == '/' || (unsigned char)*c < 0x21 || *c == 0x7f)
            return;
    memcpy(h->recorded_name, name, sizeof name);
}

void hosts_adopt_recorded_names(struct host_trace *hosts, int n)
{
    for (int i = 0; i < n; i++) {
        const char *want = hosts[i].recorded_name;
        if (hosts[i].named || !want[0])
            continue;
        int clash = 0;
        for (int k = 0; k < n; k++)
            if (k != i && (strcmp(hosts[k].recorded_name, want) == 0 ||
                           (hosts[k].named && strcmp(hosts[k].name, want) == 0)))
                clash = 1;
        if (!clash)
            memcpy(hosts[i].name, want, HOST_NAME_LEN);
    }
}

int host_measure_begin(struct host_trace *h, struct host_measure *m)
{
    memset(m, 0, sizeof *m);
    m->stride = 1;
    h->rows = 0;
    h->recorded_name[0] = '\0';
    m->diff = malloc(DIFF_KEEP * sizeof *m->diff);
    return m->diff ? 0 : -1;
}

void host_measure_row(struct host_trace *h, struct host_measure *m, const struct trace_row *row)
{
    if (h->rows++ == 0 || row->t_mono_ns < h->min_mono_ns)
        h->min_mono_ns = row->t_mono_ns;
    if (h->rows == 1 || row->t_mono_ns > h->max_mono_ns)
        h->max_mono_ns = row->t_mono_ns;
    if (row->type == TRACE_EVENT && !h->recorded_name[0] && trace_event_is(row->label, EVENT_HOST))
        record_host_name(h, row->label);
    if (!row->has_wall)
        return;
    int64_t d = row->t_wall_ns - row->t_mono_ns;
    if (m->nwall == 0 || d < m->dmin)
        m->dmin = d;
    if (m->nwall == 0 || d > m->dmax)
        m->dmax = d;
    if (m->nwall++ % m->stride != 0)
        return;
    if (m->ndiff == DIFF_KEEP) {
        for (long i = 0; i < DIFF_KEEP / 2; i++)
            m->diff[i] = m->diff[2 * i];
        m->ndiff = DIFF_KEEP / 2;
        m->stride *= 2;
        if ((m->nwall - 1) % m->stride != 0)
            return;
    }
    m->diff[m->ndiff++] = d;
}

int host_measure_end(struct host_trace *h, struct host_measure *m, char *err, size_t errlen)
{
    int rc = 0;
    if (h->rows == 0) {
        snprintf(err, errlen, "%s: no rows after the header", h->path);
        rc = -1;
    } else {
        h->has_wall = m->nwall > 0;
        h->offset_spread_ns = m->dmax - m->dmin;
        h->wall_offset_ns = 0;
        if (m->ndiff) {
            qsort(m->diff, (size_t)m->ndiff, sizeof *m->diff, cmp_i64);
            h->wall_offset_ns = m->diff[m->ndiff / 2];
        }
    }
    free(m->diff);
    m->diff = NULL;
    return rc;
}

/* Up to MAX_ROWS rows of h->path into M (host_measure_begin'd here): 0
 * (M to be ended), -1 when the file cannot be read as a trace, -2 at a
 * bad row (both with ERR set, M freed). */
static int measure_read(struct host_trace *h, long max_rows, struct host_measure *m, char *err,
                        size_t errlen)
{
    struct trace_reader tr;
    if (trace_reader_open(&tr, h->path) != 0) {
        snprintf(err, errlen, "%s", tr.error);
        return -1;
    }
    /* the times, the row types and labels only: every other cell is still
     * checked (this pass vouches for the trace before export writes to a
     * pipe), not converted */
    trace_reader_want(&tr, TRACE_WANT(COL_T_MONO_NS) | TRACE_WANT(COL_T_WALL_NS));
    if (host_measure_begin(h, m) != 0) {
        trace_reader_close(&tr);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    struct trace_row row;
    int rc = 0;
    while (h->rows < max_rows && (rc = trace_reader_next(&tr, &row)) == 1)
        host_measure_row(h, m, &row);
    if (rc < 0) {
        snprintf(err, errlen, "%s", tr.error);
        free(m->diff);
        m->diff = NULL;
    }
    trace_reader_close(&tr);
    return rc < 0 ? -2 : 0;
}

int host_trace_measure(struct host_trace *h, char *err, size_t errlen)
{
    /* every trace is read again after this pass: standard input too */
    if (strcmp(h->path, "-") == 0 && csv_spool_stdin() != 0) {
        snprintf(err, errlen, "-: cannot keep standard input for a second pass: %s", strerror(errno));
        return -1;
    }
    struct host_measure m;
    if (measure_read(h, LONG_MAX, &m, err, errlen) != 0)
        return -1;
    return host_measure_end(h, &m, err, errlen);
}

int host_trace_guess(struct host_trace *h, long max_rows, char *err, size_t errlen)
{
    struct host_measure m;
    int rc = measure_read(h, max_rows, &m, err, errlen);
    if (rc == -1)
        return -1;
    free(m.diff);               /* after a bad row: NULL */
    h->wall_offset_ns = 0;
    h->has_wall = 0;
    h->offset_spread_ns = 0;
    return 0;
}

/* Times and offsets the reader accepts lie within +-TRACE_NS_MAX (2^62),
 * but a mark from one host converted through another host's offset can
 * leave that range; the result is clamped to it, so later differences of
 * two times never overflow. A clamped mark lies far outside every trace:
 * its window is reported as before the trace or incomplete. */
static int64_t clamp_ns(int64_t a, int64_t b, int subtract)
{
    int64_t r;
    int over = subtract ? __builtin_sub_overflow(a, b, &r) : __builtin_add_overflow(a, b, &r);
    if (over)
        return (subtract ? b < 0 : b > 0) ? TRACE_NS_MAX : -TRACE_NS_MAX;
    return r > TRACE_NS_MAX ? TRACE_NS_MAX : r < -TRACE_NS_MAX ? -TRACE_NS_MAX : r;
}

int64_t host_shared_ns(const struct host_trace *h, int64_t t_mono_ns)
{
    return clamp_ns(t_mono_ns, h->wall_offset_ns, 0);
}

int64_t host_mono_ns(const struct host_trace *h, int64_t shared_ns)
{
    return clamp_ns(shared_ns, h->wall_offset_ns, 1);
}

int hosts_find(const struct host_trace *hosts, int n, const char *name, size_t len)
{
    for (int i = 0; i < n; i++)
        if (strlen(hosts[i].name) == len && memcmp(hosts[i].name, name, len) == 0)
            return i;
    return -1;
}

int hosts_check(const struct host_trace *hosts, int n, char *err, size_t errlen)
{
    for (int i = 0; i < n; i++) {
        int j = hosts_find(hosts, i, hosts[i].name, strlen(hosts[i].name));
        if (j >= 0) {
            snprintf(err, errlen, "%s and %s are both host '%s' (name them: HOST=PATH)",
                     hosts[j].path, hosts[i].path, hosts[i].name);
            return -1;
        }
        if (n > 1 && !hosts[i].has_wall) {
            snprintf(err, errlen, "%s: no t_wall_ns values: cannot align it with the other hosts",
                     hosts[i].path);
            return -1;
        }
    }
    return 0;
}

void host_ref_parse(const struct host_trace *hosts, int n, const char *ref, int *host,
                    const char **label)
{
    const char *colon = strchr(ref, ':');
    *host = colon ? hosts_find(hosts, n, ref, (size_t)(colon - ref)) : -1;
    *label = *host >= 0 ? colon + 1 : ref;
}
