/*
 * live_windows.c — see live_windows.h.
 *
 * Each definition gets its own analysis context, fed every row, exactly as
 * analysis_run feeds one; the only additions are the window_done hook and
 * compaction. Window ids index the context's arrays (windows, act_of,
 * the pairing's open list), so dropping finished windows means shifting
 * every id still in use down by the number dropped; that happens inside
 * the hook, where no caller holds an id.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "diag.h"
#include "live_windows.h"

/* Finished windows kept before they are dropped in one shift. */
#define LIVE_COMPACT_AFTER 256

struct live_slot { struct live_windows *lw; int def; };

static void compact(struct ctx *c)
{
    struct analysis *a = c->a;
    long lo = 0;
    while (lo < a->nwindows && !c->act_of[0][lo])
        lo++;
    if (lo == 0 || (lo < a->nwindows && lo < LIVE_COMPACT_AFTER))
        return;
    for (long i = 0; i < lo; i++)
        free(a->windows[i].gpu);
    long keep = a->nwindows - lo;
    memmove(a->windows, a->windows + lo, sizeof *a->windows * (size_t)keep);
    memmove(c->act_of[0], c->act_of[0] + lo, sizeof *c->act_of[0] * (size_t)keep);
    for (long i = 0; i < keep; i++)
        if (c->act_of[0][i])
            c->act_of[0][i]->id -= lo;
    struct pairing *p = &c->pair[0];
    for (long k = 0; k < p->nopen; k++)
        p->open_id[k] -= lo;
    a->nwindows = keep;
}

static int on_window_done(struct ctx *c, long id)
{
    struct live_slot *slot = c->hook_arg;
    struct live_windows *lw = slot->lw;
    struct window *w = &c->a->windows[id];
    const char *origin;
    finish_window_so_far(c, w, &origin);
    int rc = lw->fn(lw->arg, slot->def, ++lw->nth[slot->def], w, origin);
    compact(c);
    return rc;
}

int live_windows_open(struct live_windows *lw, struct trace_reader *tr,
                      const struct live_window_def *defs, int n,
                      const struct analysis_options *base, live_window_fn fn, void *arg)
{
    memset(lw, 0, sizeof *lw);
    if (n > LIVE_MAX_DEFS)
        n = LIVE_MAX_DEFS;
    lw->fn = fn;
    lw->arg = arg;
    lw->a = calloc((size_t)(n ? n : 1), sizeof *lw->a);
    lw->ctx = calloc((size_t)(n ? n : 1), sizeof *lw->ctx);
    struct live_slot *slots = calloc((size_t)(n ? n : 1), sizeof *slots);
    if (!lw->a || !lw->ctx || !slots) {
        free(slots);
        diag_error("out of memory");
        return EXIT_RUNTIME;
    }
    for (int i = 0; i < n; i++) {
        lw->opt[i] = *base;
        /* a range pairs marks labelled with its name (analysis_range_options) */
        lw->opt[i].start_label = defs[i].range ? defs[i].range : defs[i].start;
        lw->opt[i].end_label = defs[i].range ? defs[i].range : defs[i].end;
        lw->opt[i].range_name = defs[i].range;
        lw->opt[i].range_domain = NULL;
        lw->opt[i].idle_start = lw->opt[i].idle_end = NULL;
        lw->opt[i].marks = NULL;
        lw->opt[i].nmarks = 0;
        int rc = analysis_begin(&lw->ctx[i], &lw->opt[i], tr->path, tr, &lw->a[i]);
        lw->n = i + 1;
        slots[i] = (struct live_slot){ lw, i };
        lw->ctx[i].window_done = on_window_done;
        lw->ctx[i].hook_arg = &slots[i];
        if (rc != EXIT_OK)
            return rc;
    }
    if (n == 0)
        free(slots);
    return EXIT_OK;
}

int live_windows_row(struct live_windows *lw, const struct trace_row *row)
{
    for (int i = 0; i < lw->n; i++) {
        int rc = analysis_row(&lw->ctx[i], row);
        if (rc != EXIT_OK)
            return rc;
    }
    return EXIT_OK;
}

int live_windows_finish(struct live_windows *lw)
{
    for (int i = 0; i < lw->n; i++) {
        int rc = finish_trace(&lw->ctx[i]);
        if (rc != EXIT_OK)
            return rc;
    }
    return EXIT_OK;
}

void live_windows_free(struct live_windows *lw)
{
    void *slots = lw->n ? lw->ctx[0].hook_arg : NULL;
    for (int i = 0; i < lw->n; i++) {
        free_ctx(&lw->ctx[i]);
        analysis_free(&lw->a[i]);
    }
    free(slots);
    free(lw->a);
    free(lw->ctx);
    memset(lw, 0, sizeof *lw);
}
