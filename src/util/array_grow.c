/* array_grow.c — see array_grow.h. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include "array_grow.h"

int array_grow(void **p, long *cap, long need, size_t el)
{
    if (need <= *cap)
        return 0;
    long n = *cap > 0 ? *cap : 16;
    while (n < need) {
        if (n > LONG_MAX / 2)
            return -1;
        n *= 2;
    }
    if (el && (size_t)n > SIZE_MAX / el)
        return -1;
    void *q = realloc(*p, (size_t)n * el);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}
