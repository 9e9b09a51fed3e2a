/* hosts.c — see hosts.h. */
#include <errno.h>
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

int host_trace_measure(struct host_trace *h, char *err, size_t errlen)
{
    struct trace_reader tr;
    /* every trace is read again after this pass: standard input too */
    if (strcmp(h->path, "-") == 0 && csv_spool_stdin() != 0) {
        snprintf(err, errlen, "-: cannot keep standard input for a second pass: %s", strerror(errno));
        return -1;
    }
    if (trace_reader_open(&tr, h->path) != 0) {
        snprintf(err, errlen, "%s", tr.error);
        return -1;
    }
    int64_t *diff = malloc(DIFF_KEEP * sizeof *diff);
    if (!diff) {
        trace_reader_close(&tr);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    long ndiff = 0, stride = 1, nwall = 0;
    int64_t dmin = 0, dmax = 0;
    struct trace_row row;
    int rc;
    h->rows = 0;
    while ((rc = trace_reader_next(&tr, &row)) == 1) {
        if (h->rows++ == 0 || row.t_mono_ns < h->min_mono_ns)
            h->min_mono_ns = row.t_mono_ns;
        if (h->rows == 1 || row.t_mono_ns > h->max_mono_ns)
            h->max_mono_ns = row.t_mono_ns;
        if (row.type == TRACE_EVENT && !h->recorded_name[0] && trace_event_is(row.label, EVENT_HOST))
            record_host_name(h, row.label);
        if (!row.has_wall)
            continue;
        int64_t d = row.t_wall_ns - row.t_mono_ns;
        if (nwall == 0 || d < dmin)
            dmin = d;
        if (nwall == 0 || d > dmax)
            dmax = d;
        if (nwall++ % stride != 0)
            continue;
        if (ndiff == DIFF_KEEP) {
            for (long i = 0; i < DIFF_KEEP / 2; i++)
                diff[i] = diff[2 * i];
            ndiff = DIFF_KEEP / 2;
            stride *= 2;
            if ((nwall - 1) % stride != 0)
                continue;
        }
        diff[ndiff++] = d;
    }
    if (rc < 0)
        snprintf(err, errlen, "%s", tr.error);
    trace_reader_close(&tr);
    if (rc >= 0 && h->rows == 0) {
        snprintf(err, errlen, "%s: no rows after the header", h->path);
        rc = -1;
    }
    if (rc >= 0) {
        h->has_wall = nwall > 0;
        h->offset_spread_ns = dmax - dmin;
        if (ndiff) {
            qsort(diff, (size_t)ndiff, sizeof *diff, cmp_i64);
            h->wall_offset_ns = diff[ndiff / 2];
        }
    }
    free(diff);
    return rc < 0 ? -1 : 0;
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
