/* rapl.c — powercap RAPL domains and wrap-corrected energy; see rapl.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "rapl.h"

unsigned long long rapl_wrap_delta(unsigned long long prev, unsigned long long cur,
                                   unsigned long long max_range)
{
    if (cur >= prev)
        return cur - prev;
    if (max_range == 0 || prev > max_range)
        return cur;       /* range unknown: count from the wrap on */
    return (max_range - prev) + cur;
}

/* Reads one unsigned decimal from a sysfs file. Returns 0, or -1 with errno. */
static int read_ull(const char *path, unsigned long long *out)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char buf[64];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    int saved = errno;
    close(fd);
    if (n <= 0) {
        errno = n < 0 ? saved : EINVAL;
        return -1;
    }
    buf[n] = '\0';
    char *end;
    errno = 0;
    unsigned long long v = strtoull(buf, &end, 10);
    if (errno || end == buf) {
        errno = EINVAL;
        return -1;
    }
    *out = v;
    return 0;
}

/* dir + "/" + file into out; -1 when it does not fit. */
static int path_join(char *out, size_t cap, const char *dir, const char *file)
{
    int n = snprintf(out, cap, "%s/%s", dir, file);
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

static int read_name(const char *dir, char *name, size_t cap)
{
    char path[PATH_MAX];
    if (path_join(path, sizeof path, dir, "name") != 0)
        return -1;
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    int ok = fgets(name, (int)cap, f) != NULL;
    fclose(f);
    if (!ok)
        return -1;
    name[strcspn(name, "\r\n")] = '\0';
    return name[0] ? 0 : -1;
}

static int wanted(const char *name)
{
    return strncmp(name, "package", 7) == 0 || strcmp(name, "dram") == 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strverscmp((*a)->d_name, (*b)->d_name);
}

/* "intel-rapl:N" (level 1) or "intel-rapl:N:M" (level 2); 0 otherwise. */
static int zone_level(const char *d, unsigned *pkg)
{
    unsigned a, b;
    char tail;
    if (sscanf(d, "intel-rapl:%u:%u%c", &a, &b, &tail) == 2) {
        *pkg = a;
        return 2;
    }
    if (sscanf(d, "intel-rapl:%u%c", &a, &tail) == 1) {
        *pkg = a;
        return 1;
    }
    return 0;
}

int rapl_discover(struct rapl *r, const char *root, const char *raw_path)
{
    memset(r, 0, sizeof *r);
    if (!root)
        root = RAPL_DEFAULT_ROOT;
    struct dirent **ents = NULL;
    int n = scandir(root, &ents, NULL, by_name);
    for (int i = 0; i < n; i++) {
        unsigned pkg;
        int level = zone_level(ents[i]->d_name, &pkg);
        char dir[PATH_MAX], name[RAPL_NAME_MAX], parent[RAPL_NAME_MAX];
        if (level == 0 || path_join(dir, sizeof dir, root, ents[i]->d_name) != 0 || r->ndom == RAPL_MAX_DOMAINS || read_name(dir, name, sizeof name) != 0 ||
            !wanted(name))
            continue;
        struct rapl_domain *d = &r->dom[r->ndom];
        if (level == 2) {
            char pdir[PATH_MAX];
            char pname[32];
            snprintf(pname, sizeof pname, "intel-rapl:%u", pkg);
            if (path_join(pdir, sizeof pdir, root, pname) != 0 ||
                read_name(pdir, parent, sizeof parent) != 0)
                snprintf(parent, sizeof parent, "package-%u", pkg);
            snprintf(d->name, sizeof d->name, "%.30s.%.30s", parent, name);
        } else {
            snprintf(d->name, sizeof d->name, "%s", name);
        }
        char range_path[PATH_MAX];
        if (path_join(d->energy_path, sizeof d->energy_path, dir, "energy_uj") != 0 ||
            path_join(range_path, sizeof range_path, dir, "max_energy_range_uj") != 0 ||
            access(d->energy_path, F_OK) != 0)
            continue;
        if (read_ull(range_path, &d->max_range_uj) != 0)
            d->max_range_uj = 0;
        r->ndom++;
    }
    for (int i = 0; i < n; i++)
        free(ents[i]);
    free(ents);

    if (raw_path)
        snprintf(r->raw_path, sizeof r->raw_path, "%s", raw_path);
    else if (r->ndom > 0)
        snprintf(r->raw_path, sizeof r->raw_path, "%s", r->dom[0].energy_path);
    return r->ndom;
}

static void warn_unreadable(const char *path, int *warned)
{
    if (*warned)
        return;
    *warned = 1;
    if (errno == EACCES || errno == EPERM)
        diag_warn("%s: %s (energy_uj is root-only on current kernels; see flinch-record(1), RAPL); "
                  "its RAPL cells stay empty", path, strerror(errno));
    else
        diag_warn("%s: %s; its RAPL cells stay empty", path, strerror(errno));
}

void rapl_sample(struct rapl *r)
{
    for (int i = 0; i < r->ndom; i++) {
        struct rapl_domain *d = &r->dom[i];
        unsigned long long uj;
        d->have_value = 0;
        if (read_ull(d->energy_path, &uj) != 0) {
            warn_unreadable(d->energy_path, &d->warned);
            continue;
        }
        if (d->have_prev)
            d->cum_uj += rapl_wrap_delta(d->prev_uj, uj, d->max_range_uj);
        d->prev_uj = uj;
        d->have_prev = 1;
        d->have_value = 1;
    }
}

int rapl_read_raw(struct rapl *r, unsigned long long *uj)
{
    if (!r->raw_path[0])
        return -1;
    if (read_ull(r->raw_path, uj) != 0) {
        warn_unreadable(r->raw_path, &r->raw_warned);
        return -1;
    }
    return 0;
}
