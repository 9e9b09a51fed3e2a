/* analysis_feed.c — see analysis_feed.h. */
#include <stdlib.h>
#include <string.h>

#include "analysis_feed.h"
#include "analysis_internal.h"
#include "diag.h"

void analysis_feed_begin(struct analysis_feed *f, const struct analysis_options *o, const char *path,
                         struct trace_reader *tr, struct analysis *a)
{
    memset(f, 0, sizeof *f);
    memset(a, 0, sizeof *a);
    f->a = a;
    f->c = malloc(sizeof *f->c);
    diag_hold(1);
    f->status = f->c ? analysis_begin(f->c, o, path, tr, a) : EXIT_RUNTIME;
    if (!f->c)
        diag_error("out of memory");
    diag_hold(0);
}

void analysis_feed_row(struct analysis_feed *f, const struct trace_row *row)
{
    if (f->status != EXIT_OK)
        return;
    diag_hold(1);
    f->status = analysis_row(f->c, row);
    diag_hold(0);
}

int analysis_feed_end(struct analysis_feed *f, int use)
{
    diag_held_release(use);
    int status = f->status;
    if (f->c) {
        if (use)
            status = analysis_end(f->c, status);
        else
            free_ctx(f->c);    /* discarded unfinished: nothing of it is said */
    }
    free(f->c);
    f->c = NULL;
    return use ? status : EXIT_OK;
}
