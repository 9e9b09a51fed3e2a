/*
 * labels_seen.h — the distinct MARK labels a trace holds, for the hint
 * "labels seen: begin, request, end" that analyze, plot and export give
 * when the window labels are not in the trace.
 *
 * Owns: remembering at most LABELS_SEEN_MAX distinct labels (each cut to
 * MARK_LABEL_MAX bytes) and writing them as one bounded line.
 */
#ifndef FLINCH_LABELS_SEEN_H
#define FLINCH_LABELS_SEEN_H

#include <stddef.h>

#define LABELS_SEEN_MAX 32

/* Adds LABEL to LABELS (N entries, room for LABELS_SEEN_MAX) unless it is
 * there or the list is full. */
void labels_seen_add(char **labels, int *n, const char *label);
/* "begin, request, end" (", ..." when the list is full), or "" when empty. */
void labels_seen_format(char *const *labels, int n, char *buf, size_t cap);

#endif
