/* kernels_file.c — reading TRACE.kernels; see kernels_file.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array_grow.h"
#include "kernels_file.h"

#define PID_NAMES 4096                  /* (pid, id) -> name index, open addressing */

struct pid_name { long long pid; int id; int name; };

static const char *field(const char *line, const char *key)
{
    size_t k = strlen(key);
    for (const char *p = line; (p = strstr(p, key)) != NULL; p += k)
        if ((p == line || p[-1] == ' ') && p[k] == '=')
            return p + k + 1;
    return NULL;
}

static long long num(const char *line, const char *key, long long def)
{
    const char *v = field(line, key);
    return v ? strtoll(v, NULL, 10) : def;
}

static int add_span(struct kernels_span **s, long *n, long *cap, int64_t t0, int64_t t1)
{
    if (t1 <= t0 || array_grow((void **)s, cap, *n + 1, sizeof **s) != 0)
        return t1 <= t0 ? 0 : -1;
    (*s)[(*n)++] = (struct kernels_span){ t0, t1 };
    return 0;
}

int kernels_line_pieces(const char *line, int (*fn)(void *ctx, int64_t t0, int64_t t1), void *ctx)
{
    int64_t p = num(line, "start", 0), end = num(line, "end", 0);
    const char *g = field(line, "gaps");
    while (g && *g && *g != ' ') {
        char *e;
        long long busy = strtoll(g, &e, 10), gap = *e == ':' ? strtoll(e + 1, &e, 10) : 0;
        int rc = busy > 0 ? fn(ctx, p, p + busy) : 0;
        if (rc != 0)
            return rc;
        p += busy + gap;
        g = *e == ',' ? e + 1 : NULL;
    }
    return end > p ? fn(ctx, p, end) : 0;
}

int kernels_line_gpu(const char *line)
{
    long long g = num(line, "gpu", -1);
    return g >= 0 && g < KERNELS_MAX_DEVICES ? (int)g : -1;
}

struct span_list { struct kernels_span **s; long *n, *cap; };

static int add_piece(void *ctx, int64_t t0, int64_t t1)
{
    struct span_list *l = ctx;
    return add_span(l->s, l->n, l->cap, t0, t1);
}

/* [start, end) less gaps=BUSY:GAP,... as pieces. */
static int add_pieces(struct kernels_span **s, long *n, long *cap, const char *line)
{
    struct span_list l = { s, n, cap };
    return kernels_line_pieces(line, add_piece, &l);
}

static int cmp_span(const void *a, const void *b)
{
    const struct kernels_span *x = a, *y = b;
    return (x->t0 > y->t0) - (x->t0 < y->t0);
}

static int cmp_line(const void *a, const void *b)
{
    const struct kernels_line *x = a, *y = b;
    return (x->t0 > y->t0) - (x->t0 < y->t0);
}

static void merge(struct kernels_span *s, long *n)
{
    if (*n == 0)
        return;                         /* s may be NULL: qsort must not see it */
    qsort(s, (size_t)*n, sizeof *s, cmp_span);
    long m = 0;
    for (long i = 0; i < *n; i++) {
        if (m && s[i].t0 <= s[m - 1].t1) {
            if (s[i].t1 > s[m - 1].t1)
                s[m - 1].t1 = s[i].t1;
        } else {
            s[m++] = s[i];
        }
    }
    *n = m;
}

static struct pid_name *slot(struct pid_name *t, long long pid, int id)
{
    unsigned long long h = ((unsigned long long)pid * 1000003ULL + (unsigned)id) % PID_NAMES;
    for (int i = 0; i < PID_NAMES; i++, h = (h + 1) % PID_NAMES)
        if (t[h].name < 0 || (t[h].pid == pid && t[h].id == id))
            return &t[h];
    return NULL;
}

struct last_d { long long pid, dropped, zero, lost, pool; };

static int parse(struct kernels_data *k, FILE *f, struct pid_name *pn, struct last_d *ds, int *nds)
{
    char line[2048];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '\0' || line[1] != ' ')
            continue;
        long long pid = num(line, "pid", 0);
        if (line[0] == 'N') {
            const char *id = field(line, "id");
            const char *name = id ? strchr(id, ' ') : NULL;
            struct pid_name *s = name ? slot(pn, pid, atoi(id)) : NULL;
            if (!s || array_grow((void **)&k->names, &k->cap_names, k->nnames + 1, sizeof *k->names))
                continue;
            snprintf(k->names[k->nnames], sizeof k->names[0], "%s", name + 1);
            *s = (struct pid_name){ pid, atoi(id), k->nnames++ };
        } else if (line[0] == 'O') {
            k->off++;
        } else if (line[0] == 'D') {
            int i = 0;
            while (i < *nds && ds[i].pid != pid)
                i++;
            if (i == *nds && *nds < 1024)
                (*nds)++;
            if (i < 1024)
                ds[i] = (struct last_d){ pid, num(line, "dropped", 0), num(line, "zero_stamps", 0),
                                         num(line, "lines_lost", 0), num(line, "pool_empty", 0) };
        } else if (line[0] == 'B' || line[0] == 'C') {
            int g = kernels_line_gpu(line);
            if (g < 0)
                continue;
            struct kernels_device *d = &k->dev[g];
            if (g + 1 > k->ndev)
                k->ndev = g + 1;
            if (line[0] == 'C') {
                if (add_pieces(&d->coll, &d->ncoll, &d->cap_coll, line) != 0)
                    return -1;
                continue;
            }
            if (add_pieces(&d->busy, &d->nbusy, &d->cap_busy, line) != 0 ||
                array_grow((void **)&d->lines, &d->cap_lines, d->nlines + 1, sizeof *d->lines) != 0)
                return -1;
            struct kernels_line *l = &d->lines[d->nlines++];
            memset(l, 0, sizeof *l);
            l->t0 = num(line, "start", 0);
            l->t1 = num(line, "end", 0);
            l->kernels = (long)num(line, "kernels", 0);
            const char *t = field(line, "top");
            while (t && *t && *t != ' ' && l->ntop < KERNELS_TOP) {
                char *e;
                int id = (int)strtol(t, &e, 10);
                long long ns = *e == ':' ? strtoll(e + 1, &e, 10) : 0;
                struct pid_name *s = slot(pn, pid, id);
                l->name[l->ntop] = s && s->name >= 0 ? s->name : -1;
                l->top_ns[l->ntop++] = ns;
                t = *e == ',' ? e + 1 : NULL;
            }
        }
    }
    return 0;
}

struct kernels_data *kernels_file_load(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char head[32];
    struct kernels_data *k = calloc(1, sizeof *k);
    struct pid_name *pn = malloc(PID_NAMES * sizeof *pn);
    struct last_d *ds = malloc(1024 * sizeof *ds);
    int nds = 0;
    if (!k || !pn || !ds || !fgets(head, sizeof head, f) || strcmp(head, "flinch-kernels 1\n") != 0) {
        fclose(f);
        free(pn);
        free(ds);
        kernels_file_free(k);
        return NULL;
    }
    for (int i = 0; i < PID_NAMES; i++)
        pn[i].name = -1;
    int rc = parse(k, f, pn, ds, &nds);
    fclose(f);
    for (int i = 0; i < nds; i++) {
        k->dropped += ds[i].dropped;
        k->zero_stamps += ds[i].zero;
        k->lines_lost += ds[i].lost;
        k->pool_empty += ds[i].pool;
    }
    free(pn);
    free(ds);
    if (rc != 0) {
        kernels_file_free(k);
        return NULL;
    }
    for (int g = 0; g < k->ndev; g++) {
        merge(k->dev[g].busy, &k->dev[g].nbusy);
        merge(k->dev[g].coll, &k->dev[g].ncoll);
        if (k->dev[g].nlines)
            qsort(k->dev[g].lines, (size_t)k->dev[g].nlines, sizeof *k->dev[g].lines, cmp_line);
    }
    return k;
}

void kernels_file_free(struct kernels_data *k)
{
    if (!k)
        return;
    for (int g = 0; g < KERNELS_MAX_DEVICES; g++) {
        free(k->dev[g].busy);
        free(k->dev[g].coll);
        free(k->dev[g].lines);
    }
    free(k->names);
    free(k);
}

int64_t kernels_union_in(const struct kernels_span *s, long n, int64_t t0, int64_t t1)
{
    int64_t sum = 0;
    for (long i = 0; i < n; i++) {
        int64_t a = s[i].t0 > t0 ? s[i].t0 : t0, b = s[i].t1 < t1 ? s[i].t1 : t1;
        if (b > a)
            sum += b - a;
    }
    return sum;
}
