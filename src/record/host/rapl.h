/*
 * rapl.h — Intel RAPL energy counters from the powercap sysfs tree.
 *
 * Owns: discovering the package and dram domains under a powercap root
 * (default /sys/class/powercap: directories intel-rapl:N and
 * intel-rapl:N:M; the duplicate intel-rapl-mmio view is skipped), reading
 * their energy_uj counters, and turning each into a monotonic cumulative
 * count with max_energy_range_uj when the counter wraps. A domain is named
 * after its "name" file; a sub-domain after its parent and itself
 * ("package-0", "package-0.dram"). The raw counter of the first domain (or
 * of an explicit --rapl file) feeds the original rapl_energy_uj column.
 *
 * energy_uj is readable only by root on current kernels (a side-channel
 * fix): an unreadable counter is reported once and its cells stay empty.
 */
#ifndef FLINCH_RAPL_H
#define FLINCH_RAPL_H

#include <limits.h>

#define RAPL_DEFAULT_ROOT "/sys/class/powercap"
#define RAPL_MAX_DOMAINS 16
#define RAPL_NAME_MAX 64

struct rapl_domain {
    char name[RAPL_NAME_MAX];
    char energy_path[PATH_MAX];
    unsigned long long max_range_uj;  /* 0: unknown, wraps are not corrected */
    unsigned long long prev_uj;
    unsigned long long cum_uj;
    int have_prev;
    int have_value;                   /* cum_uj valid for the current tick */
    int warned;
};

struct rapl {
    struct rapl_domain dom[RAPL_MAX_DOMAINS];
    int ndom;
    char raw_path[PATH_MAX];          /* "" : no raw column value */
    int raw_warned;
};

/* Energy added between two raw counter readings, across one wrap. */
unsigned long long rapl_wrap_delta(unsigned long long prev, unsigned long long cur,
                                   unsigned long long max_range);

/* Finds the domains under root (NULL: the default). raw_path: the --rapl
 * file, or NULL to use the first domain's energy_uj. Returns the number of
 * domains (0 is fine: RAPL is optional). */
int rapl_discover(struct rapl *r, const char *root, const char *raw_path);

/* Reads every domain, advancing the cumulative counts (the first read of a
 * domain is its zero). */
void rapl_sample(struct rapl *r);

/* The raw counter for rapl_energy_uj. Returns 0, or -1 (cell empty). */
int rapl_read_raw(struct rapl *r, unsigned long long *uj);

#endif
