/*
 * live_windows.c — see live_windows.h.
 *
 * Each definition gets its own analysis context, fed every row, exactly as
 * analysis_run feeds one; the only additions are the window_done hook and
 * compaction. Window ids index the context's arrays (win_of, act_of,
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

struct live_slot { struct live_windows *lw; int def; long finished; };

static long new_id_of(void *arg, long old)
{
    struct ctx *c = arg;
    return c->act_of[0][old]->id;     /* an open window always has its active */
}

/* Drops every finished window, every LIVE_COMPACT_AFTER of them or when
 * none is open, wherever it is: a range that never closes (a lost end
 * mark) must not keep the ones after it. The windows kept (those with an
 * active record) get their new ids first, so the pairing can be told them
 * before the arrays move. */
static void compact(struct ctx *c, struct live_slot *slot)
{
    struct analysis *a = c->a;
    if (++slot->finished < LIVE_COMPACT_AFTER && c->nactive > 0)
        return;
    slot->finished = 0;
    long kept = 0;
    for (long i = 0; i < c->nids[0]; i++)
        if (c->act_of[0][i])
            c->act_of[0][i]->id = kept++;
    pairing_remap_ids(&c->pair[0], new_id_of, c);
    kept = 0;
    for (long i = 0; i < c->nids[0]; i++) {
        struct active *act = c->act_of[0][i];
        if (!act) {
            window_release(window_of(c, 0, i));
            continue;
        }
        c->act_of[0][kept] = act;
        c->win_of[0][kept++] = -1;                /* open: not finished */
    }
    c->nids[0] = a->nwindows = kept;
    c->nwins[0] = 0;                              /* every finished record went */
}

static int on_window_done(struct ctx *c, long id)
{
    struct live_slot *slot = c->hook_arg;
    struct live_windows *lw = slot->lw;
    struct window *w = window_of(c, 0, id);
    const char *origin;
    finish_window_so_far(c, w, &origin);
    int rc = lw->fn(lw->arg, slot->def, ++lw->nth[slot->def], w, origin);
    compact(c, slot);
    return rc;
}

int live_windows_open(struct live_windows *lw, struct trace_reader *tr,
                      const struct live_window_def *defs, int n,
                      const struct analysis_options *base, range_namer_fn namer,
                      void *namer_arg, live_window_fn fn, void *arg)
{
    memset(lw, 0, sizeof *lw);
    if (n > LIVE_MAX_DEFS)
        n = LIVE_MAX_DEFS;
    int nctx = n + (namer != NULL);
    lw->fn = fn;
    lw->arg = arg;
    lw->a = calloc((size_t)(nctx ? nctx : 1), sizeof *lw->a);
    lw->ctx = calloc((size_t)(nctx ? nctx : 1), sizeof *lw->ctx);
    struct live_slot *slots = calloc((size_t)(nctx ? nctx : 1), sizeof *slots);
    if (!lw->a || !lw->ctx || !slots) {
        free(slots);
        diag_error("out of memory");
        return EXIT_RUNTIME;
    }
    for (int i = 0; i < nctx; i++) {
        struct analysis_options *o = &lw->opt[i];
        *o = *base;
        if (i < n) {
            /* a range pairs marks labelled with its name (analysis_range_options) */
            o->start_label = defs[i].range ? defs[i].range : defs[i].start;
            o->end_label = defs[i].range ? defs[i].range : defs[i].end;
            o->range_name = defs[i].range;
        } else {
            o->start_label = o->end_label = "";
            o->range_name = NULL;
            o->range_namer = namer;
            o->range_namer_arg = namer_arg;
        }
        o->range_domain = NULL;
        o->idle_start = o->idle_end = NULL;
        o->marks = NULL;
        o->nmarks = 0;
        int rc = analysis_begin(&lw->ctx[i], o, tr->path, tr, &lw->a[i]);
        lw->n = i + 1;
        slots[i] = (struct live_slot){ lw, i, 0 };
        lw->ctx[i].window_done = on_window_done;
        lw->ctx[i].hook_arg = &slots[i];
        if (rc != EXIT_OK)
            return rc;
    }
    if (nctx == 0)
        free(slots);
    return EXIT_OK;
}

/* Past LIVE_MAX_OPEN open windows, the oldest goes (drop_open_over: out
 * of the pairing, its active record freed); the next compaction drops its
 * id like a finished window's, without reporting it. */
static void drop_oldest_open(struct live_windows *lw, struct ctx *c)
{
    for (long n = drop_open_over(c, LIVE_MAX_OPEN); n > 0; n--) {
        lw->abandoned++;
        compact(c, c->hook_arg);         /* counts it with the finished ones */
    }
}

int live_windows_row(struct live_windows *lw, const struct trace_row *row)
{
    for (int i = 0; i < lw->n; i++) {
        int rc = analysis_row(&lw->ctx[i], row);
        if (rc != EXIT_OK)
            return rc;
        if (row->type == TRACE_MARK)
            drop_oldest_open(lw, &lw->ctx[i]);
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
