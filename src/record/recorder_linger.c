/*
 * recorder_linger.c — whether `flinch record` must keep sampling after its
 * stop for the counter updates the last client mark needs; see
 * recorder_linger.h. recorder.c runs the extra ticks.
 */
#include <string.h>

#include "clock.h"
#include "gpu_sampler.h"
#include "recorder_internal.h"
#include "recorder_linger.h"

void linger_note_mark(struct linger *l, const char *label, int64_t t)
{
    if (strcmp(label, "begin") == 0 || strcmp(label, "end") == 0)
        return;
    /* marks may arrive out of their stamps' order (client stamps): keep
     * the latest */
    int_least64_t cur = atomic_load(&l->last_mark_ns);
    while (t > cur && !atomic_compare_exchange_weak(&l->last_mark_ns, &cur, t))
        ;
}

/* An update is seen at the first sample that reads the new value; it
 * happened after the sample before (the estimator works on the same
 * samples, so it sees the same interval). */
void linger_note_reading(struct linger *l, int i, const struct gpu_reading *rd)
{
    if (i < 0 || i >= TRACE_MAX_GPUS || !gpu_has(rd, GV_ENERGY_MJ))
        return;
    unsigned long long mj = rd->v[GV_ENERGY_MJ];
    if (l->have_mj[i] && mj != l->last_mj[i]) {
        memmove(&l->upd_after_ns[i][1], &l->upd_after_ns[i][0],
                sizeof l->upd_after_ns[i][0] * (LINGER_UPDATES - 1));
        l->upd_after_ns[i][0] = l->last_t[i];
    }
    l->last_t[i] = rd->t_mono_ns;
    l->last_mj[i] = mj;
    l->have_mj[i] = 1;
}

int linger_needed(const struct linger *l, int ngpu)
{
    int64_t mark = atomic_load(&l->last_mark_ns);
    if (mark <= 0)
        return 0;
    for (int i = 0; i < ngpu && i < TRACE_MAX_GPUS; i++) {
        /* a GPU without counter readings, or whose counter never moved,
         * has nothing to wait for */
        if (!l->have_mj[i] || l->upd_after_ns[i][0] == 0)
            continue;
        if (l->upd_after_ns[i][LINGER_UPDATES - 1] < mark)
            return 1;
    }
    return 0;
}

/* The ticks go on on the same schedule (dithered or not), numbered on
 * from the last; the last tick is no longer the end (ticker_tick_at must
 * not hold the schedule on it). A tick whose deadline lies past the limit
 * is not waited for. A GPU lost now ends the linger: the recording is
 * already complete up to `end`. */
void recorder_linger(struct recorder *r, volatile sig_atomic_t *stop_count)
{
    if (r->o->linger_ms <= 0 || r->ngpu == 0 || !linger_needed(&r->linger, r->ngpu))
        return;
    sig_atomic_t seen = *stop_count;
    int64_t limit = mono_ns() + (int64_t)r->o->linger_ms * NS_PER_MS;
    struct ticker *tk = &r->tk;
    tk->last = INT64_MAX;
    while (linger_needed(&r->linger, r->ngpu) && *stop_count == seen &&
           !csv_out_failed(&r->csv)) {
        if (ticker_deadline(tk, tk->next) > limit)
            return;
        int64_t tick, late;
        if (ticker_wait(tk, &tick, &late) != 0)
            continue;                   /* a signal: the loop's test decides */
        if (recorder_sample_tick(r, tick, late) != 0)
            return;
    }
}
