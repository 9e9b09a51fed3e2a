/* sort_doubles.c — see sort_doubles.h. */
#include <stdlib.h>
#include <string.h>

#include "sort_doubles.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void insertion_sort(double *v, long n)
{
    for (long i = 1; i < n; i++) {
        double x = v[i];
        long j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

void sort_doubles(double *v, long n)
{
    if (n <= SORT_DOUBLES_SMALL) {
        insertion_sort(v, n);
        return;
    }
    double *tmp = malloc(sizeof *tmp * (size_t)n);
    if (!tmp) {
        qsort(v, (size_t)n, sizeof *v, cmp_double);
        return;
    }
    double *from = v, *to = tmp;
    for (long width = 1; width < n; width *= 2) {
        for (long lo = 0; lo < n; lo += 2 * width) {
            long mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            long i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                to[k++] = from[j] < from[i] ? from[j++] : from[i++];   /* a tie: the left one first */
            while (i < mid)
                to[k++] = from[i++];
            while (j < hi)
                to[k++] = from[j++];
        }
        double *t = from;
        from = to;
        to = t;
    }
    if (from != v)
        memcpy(v, from, sizeof *v * (size_t)n);
    free(tmp);
}
