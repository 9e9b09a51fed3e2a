/*
 * segment_merge.h — no flapping: segments shorter than their evidence can
 * resolve are merged into their neighbours, and "A, then B" is said only of
 * segments that really come in that order.
 *
 * Owns: the merge of a timeline's short segments, and the test of whether a
 * breakdown's classes follow one another or interleave.
 */
#ifndef FLINCH_SEGMENT_MERGE_H
#define FLINCH_SEGMENT_MERGE_H

#include "breakdown_internal.h"

/* Merges every segment of the closed timeline tl shorter than shortest
 * (ms) into a neighbour, shortest first: between two neighbours of one state
 * it takes theirs (the three become one), else it joins the longer one (the
 * earlier on a tie; the only one at either end). The shortest-first order
 * makes a flapping signal settle on its majority: the minority's short
 * pieces go first and each merge joins two majority pieces. A timeline of
 * one segment is left as it is. Equal neighbours are always coalesced. */
void segment_merge_short(struct timeline *tl, double shortest);

/* Every segment of state st shorter than shortest (ms) whose neighbours
 * are all of state around, each at least as long as it, becomes around (and
 * one with them): a short event between long quiet stretches is dropped, a
 * piece next to anything else, or the longer part of its stretch, is kept.
 * A timeline of one segment is left as it is. */
void segment_merge_isolated(struct timeline *tl, unsigned char st, unsigned char around, double shortest);

/* The same two merges as first written, a walk over every piece after
 * each change: quadratic in the pieces, kept for where the list the
 * merges above use cannot get its memory, and as the reference their
 * unit test compares them with. */
void segment_merge_short_walk(struct timeline *tl, double shortest);
void segment_merge_isolated_walk(struct timeline *tl, unsigned char st, unsigned char around, double shortest);

/* Whether segment I is long enough to say where it lies: not shorter than
 * the breakdown's edge resolution. A 5 ms tail of waiting behind edges of
 * +-45 ms may lie anywhere in them, so it cannot make "A, then B" false,
 * nor put its class first. */
int segment_placed(const struct breakdown *bd, int i);

/* 1 when every class of bd forms one contiguous run of placed segments (so
 * "A, then B" is true), 0 when some class comes back after another
 * (interleaved). */
int segments_in_order(const struct breakdown *bd);

#endif
