/*
 * search_back.h — the first index of a sorted run that passes a test,
 * looked for from its newest end.
 *
 * Owns: the search the streaming pass makes into its rings (the
 * integrators' and the energy estimator's) and its tapes (tape.c, while
 * their times go forward) for a window edge's time.
 *
 * Why from the end: an edge is resolved as soon as the samples after it
 * have come, so the index wanted lies a few entries from the newest one,
 * while a ring holds tens of thousands. A binary search over the whole
 * ring touched ~16 entries spread over megabytes, each a cache miss, on
 * every row while a window waited; with 10,000 windows that was a tenth
 * of the analysis. Stepping back 1, 2, 4, ... entries from the end and
 * then halving what is left finds the same index (the test is monotone:
 * false, then true) in a few probes among entries still in cache. The
 * rings' times only go forward (the reader refuses a GPU's samples out of
 * order, and the host's ring takes only later ones), so the test is; a
 * tape checks that its own do before it searches this way.
 */
#ifndef FLINCH_SEARCH_BACK_H
#define FLINCH_SEARCH_BACK_H

/* The first i in [lo, hi) where passes(arg, i), hi when none. passes must
 * be false up to some index and true from it on. */
long search_back(long lo, long hi, int (*passes)(const void *arg, long i), const void *arg);

#endif
