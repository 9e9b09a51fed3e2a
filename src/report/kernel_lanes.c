/*
 * kernel_lanes.c — see kernel_lanes.h. One pass over TRACE.kernels: each
 * B line's pieces go to its device's busy columns, each C line's to its
 * collective columns (the other lines are not drawn).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "kernel_lanes.h"

struct feed {
    struct kernel_cols *k;
    int64_t from_ns;              /* the range drawn, ns on the trace's clock */
    double range_ns;
    int ncols;
    double col_ns;
};

static int cols_init(struct kernel_cols *k, int ncols)
{
    k->ns = calloc((size_t)ncols, sizeof *k->ns);
    k->lo = malloc((size_t)ncols * sizeof *k->lo);
    k->hi = malloc((size_t)ncols * sizeof *k->hi);
    if (!k->ns || !k->lo || !k->hi)
        return -1;
    for (int c = 0; c < ncols; c++) {
        k->lo[c] = c + 1;
        k->hi[c] = c;
    }
    return 0;
}

static void cols_free(struct kernel_cols *k)
{
    free(k->ns);
    free(k->lo);
    free(k->hi);
    memset(k, 0, sizeof *k);
}

/* A piece [t0, t1) ns into the columns it covers, cut to the range. */
static int add_piece(void *ctx, int64_t t0, int64_t t1)
{
    const struct feed *f = ctx;
    double a = (double)(t0 - f->from_ns), b = (double)(t1 - f->from_ns);
    if (a < 0)
        a = 0;
    if (b > f->range_ns)
        b = f->range_ns;
    if (b <= a)
        return 0;
    double ua = a / f->col_ns, ub = b / f->col_ns;   /* in columns */
    int c1 = (int)ub < f->ncols ? (int)ub : f->ncols - 1;
    for (int c = (int)ua; c <= c1; c++) {
        double lo = ua > c ? ua : c, hi = ub < c + 1 ? ub : c + 1;
        if (hi <= lo)
            continue;
        f->k->ns[c] += (hi - lo) * f->col_ns;
        if (lo < f->k->lo[c])
            f->k->lo[c] = lo;
        if (hi > f->k->hi[c])
            f->k->hi[c] = hi;
        f->k->any = 1;
    }
    return 0;
}

static struct kernel_lane *lane_for(struct kernel_lanes *out, int dev)
{
    for (int i = 0; i < out->nlanes; i++)
        if (out->lane[i].dev == dev)
            return &out->lane[i];
    struct kernel_lane *l = &out->lane[out->nlanes++];
    memset(l, 0, sizeof *l);
    l->dev = dev;
    if (cols_init(&l->busy, out->ncols) != 0 || cols_init(&l->coll, out->ncols) != 0)
        return NULL;
    return l;
}

static int by_dev(const void *x, const void *y)
{
    const struct kernel_lane *a = x, *b = y;
    return (a->dev > b->dev) - (a->dev < b->dev);
}

int kernel_lanes_read(const char *trace, int64_t t0_ns, double from_s, double to_s, int ncols,
                      struct kernel_lanes *out)
{
    memset(out, 0, sizeof *out);
    out->ncols = ncols;
    if (strcmp(trace, "-") == 0 || ncols <= 0 || !(to_s > from_s))
        return 0;                       /* a trace on stdin has no file beside it */
    char path[4096 + 16];
    snprintf(path, sizeof path, "%s.kernels", trace);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return 0;
    char line[2048];
    if (!fgets(line, sizeof line, fp) || strcmp(line, "flinch-kernels 1\n") != 0) {
        fclose(fp);
        return 0;
    }
    struct feed f = { NULL, t0_ns + (int64_t)(from_s * 1e9), (to_s - from_s) * 1e9, ncols, 0 };
    f.col_ns = f.range_ns / ncols;
    out->col_ns = f.col_ns;
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, fp)) {
        if ((line[0] != 'B' && line[0] != 'C') || line[1] != ' ')
            continue;
        int dev = kernels_line_gpu(line);
        if (dev < 0)
            continue;
        struct kernel_lane *l = lane_for(out, dev);
        if (!l) {
            rc = -1;
            break;
        }
        f.k = line[0] == 'B' ? &l->busy : &l->coll;
        kernels_line_pieces(line, add_piece, &f);
    }
    fclose(fp);
    if (rc != 0) {
        diag_error("out of memory");
        kernel_lanes_free(out);
        return EXIT_RUNTIME;
    }
    /* only devices with time in the range get a lane, in ordinal order */
    int k = 0;
    for (int i = 0; i < out->nlanes; i++) {
        if (out->lane[i].busy.any || out->lane[i].coll.any) {
            out->lane[k++] = out->lane[i];
        } else {
            cols_free(&out->lane[i].busy);
            cols_free(&out->lane[i].coll);
        }
    }
    out->nlanes = k;
    qsort(out->lane, (size_t)out->nlanes, sizeof out->lane[0], by_dev);
    return 0;
}

void kernel_lanes_free(struct kernel_lanes *l)
{
    for (int i = 0; i < l->nlanes; i++) {
        cols_free(&l->lane[i].busy);
        cols_free(&l->lane[i].coll);
    }
    l->nlanes = 0;
}
