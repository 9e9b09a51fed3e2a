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
 *
 * By range (pairing_init_range, `--range NAME`): a window starts at every
 * MARK labelled NAME whose mark_attrs open a range (start=ID), in the given
 * domain if one is given, and ends at the MARK that closes the same ID
 * (end=ID), wherever it is in the file: nested push/pop ranges and ranges
 * that overlap across threads pair exactly, which order alone cannot do.
 * An end=ID that closes nothing counts as an unmatched end when its label
 * is NAME; an ID opened twice before it closes pairs first in, first out.
 *
 * Every range at once (pairing_init_any, the recorder's per-range-name
 * metrics): a window starts at every MARK that opens a range, whatever its
 * label or domain, and the namer gives it a name (a pointer that stays
 * valid; NULL: the range is ignored). An end=ID closes, for each name, the
 * first open window of that name with that ID, so every name pairs exactly
 * as pairing_init_range(NAME, NULL) would pair it alone.
 */
#ifndef FLINCH_WINDOWS_H
#define FLINCH_WINDOWS_H

#include <stdint.h>

#include "mark_line.h"

typedef const char *(*range_namer_fn)(void *arg, const char *label);

/* One open window (private). By range, open windows with the same key
 * hash are chained in opening order (next: the next slot, -1 none). */
struct open_slot {
    long id;                 /* the window's id; -1: closed (a hole) */
    int64_t t;               /* its start time */
    const char *name;        /* any range: its name */
    long next;
    char key[MARK_RANGE_ID_MAX + 1];  /* by range: its ID */
};

struct pairing {
    const char *start_label, *end_label;
    int by_range;            /* pairing_init_range or pairing_init_any */
    range_namer_fn namer;    /* pairing_init_any */
    void *namer_arg;
    const char *domain;      /* by range: only this domain ("" default); NULL any */
    const char *category;    /* by range: only starts with this category=; NULL any
                                (an end carries none: unmatched ends are not counted) */
    long unmatched_ends;
    /* private: open windows in opening order, slot[head..nslot) with holes
     * where a range closed; the oldest goes by moving head (a cap costs
     * O(1) per drop), holes are squeezed out when they outnumber the open
     * ones. By range, bucket[] chains them by key hash (a close looks at
     * its ID's chain only, not at every open window); by label, heap[]
     * gives the ones an end closes (those starting at or before it)
     * without walking those it leaves open. */
    struct open_slot *slot;
    long head, nslot, cap, nopen;
    long *bucket, *bucket_tail;  /* by range: first / last slot per hash, -1 none */
    long nbucket;                /* a power of two >= cap */
    long *heap, nheap;           /* by label: slots by start time (a min-heap; closed
                                    slots in it are skipped when they come up) */
    long *closed;       /* ids closed by the last mark */
    long ncap_closed;
    const char **closed_names;  /* any range: names an end mark decided */
    long ncap_names;
};

/* What one mark did. closed[] is valid until the next pairing_on_mark. */
struct pairing_step {
    const long *closed;  /* ids of the windows this mark ended */
    long nclosed;
    int opens;           /* 1: this mark starts window `new_id` */
    const char *name;    /* any range: the name the namer gave it */
};

void pairing_init(struct pairing *p, const char *start_label, const char *end_label);
/* Pairs the ranges named NAME by their IDs; domain NULL: any domain. */
void pairing_init_range(struct pairing *p, const char *name, const char *domain);
/* Pairs every range by its ID, named by namer (above). */
void pairing_init_any(struct pairing *p, range_namer_fn namer, void *arg);
/* Feeds one MARK with its mark_attrs (NULL when it has none). new_id is the
 * id the window gets if this mark opens one. 0, or -1 when out of memory. */
int pairing_on_mark(struct pairing *p, const char *label, const struct mark_attrs *attrs,
                    int64_t t, long new_id, struct pairing_step *step);
/* Windows still open: unmatched starts. */
long pairing_open_count(const struct pairing *p);
/* The id of the window open longest, -1 when none. */
long pairing_oldest_id(const struct pairing *p);
/* A new recording starts (trace_row.starts_recording): the windows still
 * open can no longer be closed; they stay unmatched starts. */
void pairing_forget_open(struct pairing *p);
/* Forgets the window open longest (it will never close: --max-open, or a
 * live definition's cap); its id, or -1 when none is open. O(1). */
long pairing_drop_oldest(struct pairing *p);
/* Renumbers every open window: id becomes map(arg, id). Ids must keep
 * their order (live_windows.c's compaction shifts them down). */
void pairing_remap_ids(struct pairing *p, long (*map)(void *arg, long id), void *arg);
void pairing_free(struct pairing *p);

#endif
