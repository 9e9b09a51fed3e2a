/*
 * windows.h — which MARKs make a window.
 *
 * Owns the pairing rule, and nothing else: a window starts at every MARK
 * whose label is the start label and ends at the next MARK with the end
 * label whose time is not before it. Marks are taken in file order; an end
 * mark closes every open window that started at or before it (so two starts
 * followed by one end give two windows sharing that end). An end mark that
 * closes nothing is an unmatched end; a start still open at the end of the
 * trace is an unmatched start. When the start and end labels are the same,
 * each such mark ends the window opened by the previous one and opens the
 * next (consecutive intervals).
 */
#ifndef FLINCH_WINDOWS_H
#define FLINCH_WINDOWS_H

#include <stdint.h>

struct pairing {
    const char *start_label, *end_label;
    long unmatched_ends;
    /* private: open windows, as (id, start time) */
    long *open_id;
    int64_t *open_t;
    long nopen, cap;
    long *closed;       /* ids closed by the last mark */
    long ncap_closed;
};

/* What one mark did. closed[] is valid until the next pairing_on_mark. */
struct pairing_step {
    const long *closed;  /* ids of the windows this mark ended */
    long nclosed;
    int opens;           /* 1: this mark starts window `new_id` */
};

void pairing_init(struct pairing *p, const char *start_label, const char *end_label);
/* Feeds one MARK. new_id is the id the window gets if this mark opens one.
 * 0, or -1 when out of memory. */
int pairing_on_mark(struct pairing *p, const char *label, int64_t t, long new_id,
                    struct pairing_step *step);
/* Windows still open: unmatched starts. */
long pairing_open_count(const struct pairing *p);
const long *pairing_open_ids(const struct pairing *p);
void pairing_free(struct pairing *p);

#endif
