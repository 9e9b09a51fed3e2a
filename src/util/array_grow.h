/*
 * array_grow.h — room for `need` elements in a heap array that is reused
 * and grows by doubling.
 *
 * Owns: the one growth rule of the arrays kept from use to use (the
 * breakdown's working arrays, the decode buffers, a kernels file's lists):
 * capacity doubles from 16, so a long run of windows reallocates only
 * while the largest grows.
 */
#ifndef FLINCH_ARRAY_GROW_H
#define FLINCH_ARRAY_GROW_H

#include <stddef.h>

/* *p holds *cap elements of el bytes; after a 0 return it holds at least
 * need (kept as they were). -1 when out of memory or too large; *p is
 * then unchanged. */
int array_grow(void **p, long *cap, long need, size_t el);

#endif
