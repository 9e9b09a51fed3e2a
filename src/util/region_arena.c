/* region_arena.c — see region_arena.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "region_arena.h"

#define REGION_ALIGN 16

/* The chunk holding p: the last one whose base is at or before it. */
static long chunk_of(const struct region_arena *a, const void *p)
{
    long lo = 0, hi = a->n;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if ((uintptr_t)a->chunk[mid].base <= (uintptr_t)p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

void advise_huge_pages(void *p, size_t bytes)
{
    uintptr_t lo = ((uintptr_t)p + REGION_HUGE - 1) & ~(uintptr_t)(REGION_HUGE - 1);
    uintptr_t hi = ((uintptr_t)p + bytes) & ~(uintptr_t)(REGION_HUGE - 1);
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_HUGEPAGE);   /* advice: ignored where huge pages are off */
}

/* A mapping of bytes; from REGION_HUGE on (bytes then a multiple of it)
 * aligned to REGION_HUGE and advised for huge pages: map one huge page
 * more than asked and cut off what lies before and after the aligned part. */
static void *map_chunk(size_t bytes)
{
    int prot = PROT_READ | PROT_WRITE, flags = MAP_PRIVATE | MAP_ANONYMOUS;
    if (bytes < REGION_HUGE) {
        void *p = mmap(NULL, bytes, prot, flags, -1, 0);
        return p == MAP_FAILED ? NULL : p;
    }
    size_t span = bytes + REGION_HUGE;
    unsigned char *p = mmap(NULL, span, prot, flags, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    uintptr_t at = ((uintptr_t)p + REGION_HUGE - 1) & ~(uintptr_t)(REGION_HUGE - 1);
    size_t head = at - (uintptr_t)p, tail = span - head - bytes;
    if (head)
        munmap(p, head);
    if (tail)
        munmap((unsigned char *)at + bytes, tail);
    advise_huge_pages((void *)at, bytes);
    return (void *)at;
}

static void unmap_chunk(struct region_arena *a, long i)
{
    munmap(a->chunk[i].base, a->chunk[i].bytes);
    memmove(&a->chunk[i], &a->chunk[i + 1], sizeof *a->chunk * (size_t)(a->n - i - 1));
    a->n--;
    if (a->cur_at > i)
        a->cur_at--;
    else if (a->cur_at == i)
        a->cur_at = a->n;
}

/* A new chunk for at least size bytes, made the one handing out; the one
 * it replaces goes if nothing of it is in use. 0 when out of memory. */
static int new_chunk(struct region_arena *a, size_t size)
{
    if (a->n == a->cap) {
        long ncap = a->cap ? a->cap * 2 : 16;
        struct region_chunk *nc = realloc(a->chunk, sizeof *nc * (size_t)ncap);
        if (!nc)
            return 0;
        a->chunk = nc;
        a->cap = ncap;
    }
    size_t bytes = a->next_bytes ? a->next_bytes : REGION_FIRST_CHUNK;
    while (bytes < size)
        bytes *= 2;
    if (bytes >= REGION_HUGE)
        bytes = (size + REGION_HUGE - 1) / REGION_HUGE * REGION_HUGE;
    unsigned char *p = map_chunk(bytes);
    if (!p)
        return 0;
    if (a->cur_at < a->n && a->chunk[a->cur_at].live == 0)
        unmap_chunk(a, a->cur_at);
    a->next_bytes = bytes * 2 <= REGION_SMALL_MAX ? bytes * 2 : REGION_HUGE;
    struct region_chunk ch = { p, bytes, 0, 0 };
    long at = chunk_of(a, p) + 1;       /* kept in address order */
    memmove(&a->chunk[at + 1], &a->chunk[at], sizeof *a->chunk * (size_t)(a->n - at));
    a->chunk[at] = ch;
    a->n++;
    a->cur_at = at;
    return 1;
}

void *region_alloc(struct region_arena *a, size_t size)
{
    if (size == 0 || size > SIZE_MAX / 4)
        return NULL;
    size = (size + REGION_ALIGN - 1) & ~(size_t)(REGION_ALIGN - 1);
    if (a->cur_at >= a->n || a->chunk[a->cur_at].bytes - a->chunk[a->cur_at].used < size) {
        if (!new_chunk(a, size))
            return NULL;
    }
    struct region_chunk *ch = &a->chunk[a->cur_at];
    void *p = ch->base + ch->used;
    ch->used += size;
    ch->live++;
    return p;
}

void region_free(struct region_arena *a, void *p)
{
    if (!p)
        return;
    long i = chunk_of(a, p);
    if (--a->chunk[i].live == 0 && i != a->cur_at)
        unmap_chunk(a, i);              /* no longer handing out, all given back */
}

void region_done(struct region_arena *a)
{
    for (long i = 0; i < a->n; i++)
        munmap(a->chunk[i].base, a->chunk[i].bytes);
    free(a->chunk);
    memset(a, 0, sizeof *a);
}
