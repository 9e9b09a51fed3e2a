/*
 * recorder_linger.h — `flinch record` keeps sampling after its stop
 * (CMD exited, --seconds elapsed, the first stop signal) while the energy
 * counter has not yet moved three times since the last client mark.
 *
 * Why: analyze places a window edge inside the counter step that holds it
 * and needs that step and two more after it (energy_estimator.c,
 * EST_NEED_AFTER); a wrapped benchmark's last action is its end mark, and
 * on H100-class sensors (a step every 100 ms) a recording stopped right
 * after it leaves the last window on the interpolated counter: -3 to -12 %
 * at +-12 %. The `end` mark stays at the stop; only SAMPLE rows follow it.
 *
 * Owns: the time of the last client mark (set from the marks thread), each
 * GPU's last counter updates as the samples see them, and the decision
 * whether (and until when) to linger. The sampling itself stays in
 * recorder.c.
 */
#ifndef FLINCH_RECORDER_LINGER_H
#define FLINCH_RECORDER_LINGER_H

#include <stdatomic.h>
#include <stdint.h>

#include "trace_limits.h"

#define LINGER_UPDATES 3     /* counter updates needed after an edge */

struct gpu_reading;

struct linger {
    _Atomic int_least64_t last_mark_ns;   /* the last client mark's time; 0: none */
    /* each GPU's last updates, newest first, as the time of the sample
     * before the one that saw the new value: the update happened after it */
    int64_t upd_after_ns[TRACE_MAX_GPUS][LINGER_UPDATES];
    int64_t last_t[TRACE_MAX_GPUS];
    unsigned long long last_mj[TRACE_MAX_GPUS];
    int have_mj[TRACE_MAX_GPUS];
};

/* A MARK row with LABEL at T was written (any thread): `begin` and `end`
 * are the recorder's own and do not count. */
void linger_note_mark(struct linger *l, const char *label, int64_t t);

/* GPU i's reading of this tick. */
void linger_note_reading(struct linger *l, int i, const struct gpu_reading *rd);

/* 1 while some of the NGPU GPUs whose counter was seen to move has seen
 * fewer than LINGER_UPDATES updates surely after the last client mark
 * (between two samples taken after it: the first change seen after a mark
 * may have happened before it, and the step holding the mark is then the
 * next one); 0 without a client mark or once every one has. */
int linger_needed(const struct linger *l, int ngpu);

#endif
