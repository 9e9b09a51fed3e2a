/*
 * seed_method.c — see seed_method.h. Two passes over the file (find the
 * first marks, then collect the samples inside), reading cells the way
 * Python's csv.DictReader and float() do: short rows have missing cells, a
 * cell that float() rejects is skipped.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csv_reader.h"
#include "diag.h"
#include "seed_method.h"
#include "trace_schema.h"

struct seed_sample { int64_t t; double p, u; int has_u; long order; };

/* Python's float(str): surrounding blanks allowed, nan/inf, underscores
 * between digits; not hex. */
static int py_float(const char *s, double *out)
{
    char buf[128];
    size_t n = 0;
    for (; *s && n + 1 < sizeof buf; s++)
        if (*s != '_')
            buf[n++] = *s;
    buf[n] = '\0';
    char *p = buf;
    while (isspace((unsigned char)*p))
        p++;
    if (!*p || strpbrk(p, "xXpP"))
        return -1;
    char *end;
    errno = 0;
    double v = strtod(p, &end);
    while (isspace((unsigned char)*end))
        end++;
    if (*end || end == p)
        return -1;
    *out = v;
    return 0;
}

static int py_int(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    while (isspace((unsigned char)*end))
        end++;
    if (errno || end == s || *end)
        return -1;
    *out = v;
    return 0;
}

struct seed_file {
    struct csv_reader csv;
    int c_t, c_type, c_label, c_power, c_util;
};

static const char *cell(const struct seed_file *f, int col)
{
    return col >= 0 && col < f->csv.nfields ? f->csv.field[col] : NULL;
}

static int seed_open(struct seed_file *f, const char *path)
{
    if (csv_open(&f->csv, path) != 0) {
        diag_error("%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    f->c_t = f->c_type = f->c_label = f->c_power = f->c_util = -1;
    if (csv_next(&f->csv) == 1) {
        for (int i = 0; i < f->csv.nfields; i++) {
            const char *h = f->csv.field[i];
            int *slot = strcmp(h, "t_mono_ns") == 0 ? &f->c_t : strcmp(h, "row_type") == 0 ? &f->c_type
                      : strcmp(h, "label") == 0 ? &f->c_label : strcmp(h, "gpu_power_W") == 0 ? &f->c_power
                      : strcmp(h, "gpu_util_pct") == 0 ? &f->c_util : NULL;
            if (slot && *slot < 0)
                *slot = i;
        }
    }
    return 0;
}

/* Next non-blank row: 1, 0 at end, -1 on error. */
static int seed_next(struct seed_file *f)
{
    int rc;
    while ((rc = csv_next(&f->csv)) == 1)
        if (!(f->csv.nfields == 1 && f->csv.field_len[0] == 0))
            return 1;
    if (rc < 0 && f->csv.err == CSV_ERR_ROW_TOO_LONG)
        diag_error("%s:%ld: row longer than %ld bytes without a newline: not a trace row",
                   f->csv.path, f->csv.line, (long)CSV_RECORD_MAX);
    else if (rc < 0)
        diag_error("%s: read error: %s", f->csv.path, strerror(errno));
    return rc;
}

static int row_time(struct seed_file *f, int64_t *t)
{
    const char *s = cell(f, f->c_t);
    if (!s || py_int(s, t) != 0 || *t < 0 || *t > TRACE_NS_MAX) {
        diag_error("%s:%ld: column t_mono_ns: not an integer: '%.40s'", f->csv.path, f->csv.line,
                   s ? s : "");
        return -1;
    }
    return 0;
}

static int cmp_sample(const void *a, const void *b)
{
    const struct seed_sample *x = a, *y = b;
    if (x->t != y->t)
        return (x->t > y->t) - (x->t < y->t);
    return (x->order > y->order) - (x->order < y->order);   /* stable, like list.sort */
}

int seed_analyze(const char *path, const char *start_label, const char *end_label, FILE *out)
{
    struct seed_file f;
    if (seed_open(&f, path) != 0)
        return EXIT_USAGE;
    int64_t t0 = 0, t1 = 0;
    int have0 = 0, have1 = 0, rc;
    while ((rc = seed_next(&f)) == 1 && !(have0 && have1)) {
        const char *type = cell(&f, f.c_type), *label = cell(&f, f.c_label);
        if (!type || strcmp(type, "MARK") != 0 || !label)
            continue;
        if (!have0 && strcmp(label, start_label) == 0) {
            if (row_time(&f, &t0) != 0)
                goto fail;
            have0 = 1;
        }
        if (!have1 && strcmp(label, end_label) == 0) {
            if (row_time(&f, &t1) != 0)
                goto fail;
            have1 = 1;
        }
    }
    csv_close(&f.csv);
    if (rc < 0)
        return EXIT_USAGE;
    if (!have0 || !have1) {
        char a[32] = "None", b[32] = "None";
        if (have0)
            snprintf(a, sizeof a, "%" PRId64, t0);
        if (have1)
            snprintf(b, sizeof b, "%" PRId64, t1);
        diag_error("Missing MARK(s). start=%s end=%s", a, b);
        return EXIT_USAGE;
    }
    if (t1 <= t0) {
        diag_error("End MARK must be after start MARK");
        return EXIT_USAGE;
    }
    fprintf(out, "duration_s=%.6f\n", (double)(t1 - t0) / 1e9);

    if (seed_open(&f, path) != 0)
        return EXIT_USAGE;
    struct seed_sample *s = NULL;
    long n = 0, cap = 0;
    while ((rc = seed_next(&f)) == 1) {
        const char *type = cell(&f, f.c_type);
        if (!type || strcmp(type, "SAMPLE") != 0)
            continue;
        int64_t t;
        if (row_time(&f, &t) != 0)
            goto fail_free;
        if (t < t0 || t > t1)
            continue;
        double p, u = 0;
        const char *ps = cell(&f, f.c_power), *us = cell(&f, f.c_util);
        if (!ps || py_float(ps, &p) != 0)
            continue;
        int has_u = us && py_float(us, &u) == 0;
        if (!isfinite(p) || (has_u && !isfinite(u))) {
            /* Python's float() takes inf and nan; the energy would be inf */
            diag_error("%s:%ld: column %s: not a finite number: '%.40s'", f.csv.path, f.csv.line,
                       isfinite(p) ? "gpu_util_pct" : "gpu_power_W", isfinite(p) ? us : ps);
            goto fail_free;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 256;
            struct seed_sample *ns = realloc(s, sizeof *ns * (size_t)cap);
            if (!ns) {
                diag_error("out of memory");
                goto fail_free;
            }
            s = ns;
        }
        s[n] = (struct seed_sample){ t, p, u, has_u, n };
        n++;
    }
    csv_close(&f.csv);
    if (rc < 0) {
        free(s);
        return EXIT_USAGE;
    }
    if (n > 1)
        qsort(s, (size_t)n, sizeof *s, cmp_sample);
    if (n < 2) {
        fprintf(out, "gpu_energy_J\u2248(n/a)  # not enough gpu_power_W samples in window\n");
        free(s);
        return EXIT_OK;
    }
    double e_j = 0.0, util_sum = 0.0;
    long util_n = 0;
    for (long i = 0; i + 1 < n; i++) {
        double dt = (double)(s[i + 1].t - s[i].t) / 1e9;
        e_j += 0.5 * (s[i].p + s[i + 1].p) * dt;
        if (s[i].has_u) {
            util_sum += s[i].u;
            util_n++;
        }
    }
    fprintf(out, "gpu_energy_J\u2248%.3f  # trapezoid over %ld samples\n", e_j, n);
    if (util_n)
        fprintf(out, "avg_gpu_util_pct\u2248%.2f\n", util_sum / (double)util_n);
    free(s);
    return EXIT_OK;
fail_free:
    free(s);
fail:
    csv_close(&f.csv);
    return EXIT_USAGE;
}
