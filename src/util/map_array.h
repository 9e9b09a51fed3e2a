/*
 * map_array.h — an array in a mapping of its own, grown in place or moved
 * by the kernel (mremap), never copied: the analyzer's finished windows,
 * which become analysis.windows as they lie.
 *
 * Owns: the mapping and its length.
 *
 * Why: the windows' records were made in a region arena and copied into
 * one array at the end of the trace, so every record took two sets of
 * fresh pages (6.6 MB each with 10,000 windows; first touches are the
 * dearest memory the analyzer uses, region_arena.h). Grown by mremap, the
 * array's pages are touched once, where the records are written; growth
 * costs no copy, and it is advised for huge pages from REGION_HUGE on.
 * Elements move when it grows: hold indices across a growth, not pointers.
 */
#ifndef FLINCH_MAP_ARRAY_H
#define FLINCH_MAP_ARRAY_H

#include <stddef.h>

struct map_array {
    void *base;                  /* NULL until the first map_array_reserve */
    size_t bytes;                /* the mapping's length */
};

/* Room for at least `bytes` (> 0); the contents stay, the base may move.
 * Pages never written read as zeros. 0, or -1 when out of memory (the
 * array as it was). */
int map_array_reserve(struct map_array *m, size_t bytes);
/* Unmaps it; all zero again. */
void map_array_free(struct map_array *m);

#endif
