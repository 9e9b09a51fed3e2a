/*
 * region_arena.h — memory for records that are many, live long and go
 * back in about the order they came: each stream's packed samples in the
 * analyzer (sample_store.h). (Its finished windows, which become one
 * array, lie in a map_array.h instead.)
 *
 * Owns: chunks mapped from the system, handed out by moving a pointer
 * through the newest one, and how many allocations of each are still in
 * use. A chunk goes back to the system once it no longer hands out and
 * every allocation of it has been given back. Memory is never reused
 * within a chunk, so every allocation comes zeroed (a fresh mapping).
 *
 * Why: with many windows the analyzer keeps tens of MB of such records
 * until the end of its trace, and first touching a page costs a fault:
 * ~11 us each on the 2-core VMs the benchmarks run on (a 64 MB buffer
 * took 0.18 s of CPU to touch), a third of what 10,000 windows cost.
 * Chunks double from REGION_FIRST_CHUNK (or the size an owner sets in
 * next_bytes: the sample store starts at REGION_HUGE) up to
 * REGION_SMALL_MAX, then are REGION_HUGE: records that outgrow 192 KiB
 * are many (doubling on through 512 KiB and 1 MiB took ~450 faults more
 * with 10,000 windows). A REGION_HUGE chunk is aligned to REGION_HUGE and
 * advised for transparent huge pages (MADV_HUGEPAGE: the default
 * "madvise" setting of most kernels honours it), so one fault maps 2 MiB
 * (the same 64 MB: 0.004 s). Where huge pages are off the advice is
 * ignored and the chunks are ordinary memory. glibc's heap can be advised
 * only where it has already grown (flinch.c's keep_heap grows it first);
 * one big array from malloc can be advised on its own (advise_huge_pages).
 */
#ifndef FLINCH_REGION_ARENA_H
#define FLINCH_REGION_ARENA_H

#include <stddef.h>

#define REGION_FIRST_CHUNK ((size_t)64 << 10)
#define REGION_SMALL_MAX ((size_t)128 << 10)
#define REGION_HUGE ((size_t)2 << 20)

struct region_chunk {
    unsigned char *base;
    size_t bytes;                /* the mapping's length */
    size_t used;                 /* bytes handed out */
    long live;                   /* allocations not yet given back */
};

struct region_arena {
    struct region_chunk *chunk;  /* by base address, ascending */
    long n, cap;
    long cur_at;                 /* the chunk handing out; none when >= n */
    size_t next_bytes;           /* the next chunk's size (0: REGION_FIRST_CHUNK) */
};

/* All zero is an empty arena. */
/* size bytes, zeroed, aligned to 16; NULL when out of memory. */
void *region_alloc(struct region_arena *a, size_t size);
/* Gives back what region_alloc returned (NULL: nothing). */
void region_free(struct region_arena *a, void *p);
/* Unmaps every chunk left; the arena is empty again. */
void region_done(struct region_arena *a);

/* Advises the whole huge pages inside [p, p + bytes) for transparent huge
 * pages, before they are first written: for a big array from malloc that
 * is filled once (advice only: the memory and its owner are unchanged). */
void advise_huge_pages(void *p, size_t bytes);

#endif
