/* map_array.c — see map_array.h. */
#include <sys/mman.h>

#include "map_array.h"
#include "region_arena.h"

int map_array_reserve(struct map_array *m, size_t bytes)
{
    if (bytes <= m->bytes)
        return 0;
    /* doubling, in whole huge pages: few remaps, each page of the old
     * length kept where the kernel puts it */
    size_t want = m->bytes ? m->bytes * 2 : REGION_HUGE;
    if (want < bytes)
        want = (bytes + REGION_HUGE - 1) & ~(REGION_HUGE - 1);
    void *p = m->base ? mremap(m->base, m->bytes, want, MREMAP_MAYMOVE)
                      : mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    advise_huge_pages(p, want);
    m->base = p;
    m->bytes = want;
    return 0;
}

void map_array_free(struct map_array *m)
{
    if (m->base)
        munmap(m->base, m->bytes);
    m->base = NULL;
    m->bytes = 0;
}
