/*
 * fd_budget.c — see fd_budget.h.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "fd_budget.h"

int fd_budget_exhausted(int err)
{
    return err == EMFILE || err == ENFILE;
}

/* Descriptors open now, by /proc/self/fd (its own listing's descriptor
 * excluded); -1 when it cannot be listed. */
static long open_now(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    long n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
            n++;
    closedir(d);
    return n > 0 ? n - 1 : 0;
}

long fd_budget_spare(void)
{
    struct rlimit lim;
    if (getrlimit(RLIMIT_NOFILE, &lim) != 0)
        return 0;
    if (lim.rlim_cur < lim.rlim_max) {
        lim.rlim_cur = lim.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &lim) != 0)
            getrlimit(RLIMIT_NOFILE, &lim);
    }
    if (lim.rlim_cur == RLIM_INFINITY || lim.rlim_cur > (rlim_t)1 << 30)
        lim.rlim_cur = (rlim_t)1 << 30;
    long in_use = open_now();
    if (in_use < 0)
        return 0;                       /* cannot tell: keep nothing open */
    long spare = (long)lim.rlim_cur - in_use - FD_BUDGET_RESERVE;
    return spare > 0 ? spare : 0;
}
