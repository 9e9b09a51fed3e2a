/* search_back.c — see search_back.h. */
#include "search_back.h"

long search_back(long lo, long hi, int (*passes)(const void *arg, long i), const void *arg)
{
    /* gallop: hi stays an index that passes (or the end), lo one past the
     * last probe that failed */
    for (long step = 1; hi - step >= lo; step *= 2) {
        if (!passes(arg, hi - step)) {
            lo = hi - step + 1;
            break;
        }
        hi -= step;
    }
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (passes(arg, mid))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}
