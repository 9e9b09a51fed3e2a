/*
 * sim_procs.c — the loading process's descendants; see sim_procs.h.
 *
 * One pass over /proc/PID/stat collects (pid, ppid) pairs; the tree is
 * then grown from getpid() until a pass adds nothing. A process that forks
 * or exits during the scan may be missed or reported once too often, as a
 * real driver's process list is itself a snapshot.
 */
#include "sim_procs.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pid_pair { unsigned pid, ppid; };

/* The ppid of /proc/PID/stat (field 4, after the last ')': comm may hold
 * anything); 0 when unreadable. */
static unsigned read_ppid(const char *pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%s/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    unsigned ppid = 0;
    char state;
    if (!p || sscanf(p + 1, " %c %u", &state, &ppid) != 2)
        return 0;
    return ppid;
}

static int contains(const unsigned *set, int n, unsigned pid)
{
    for (int i = 0; i < n; i++)
        if (set[i] == pid)
            return 1;
    return 0;
}

int sim_descendant_pids(unsigned *pids, int max)
{
    struct pid_pair *all = malloc(SIM_PROCS_SCAN_MAX * sizeof *all);
    DIR *d = all ? opendir("/proc") : NULL;
    if (!d) {
        free(all);
        return 0;
    }
    int nall = 0;
    struct dirent *e;
    while (nall < SIM_PROCS_SCAN_MAX && (e = readdir(d)) != NULL) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        unsigned ppid = read_ppid(e->d_name);
        if (ppid)
            all[nall++] = (struct pid_pair){ (unsigned)strtoul(e->d_name, NULL, 10), ppid };
    }
    closedir(d);
    unsigned self = (unsigned)getpid();
    int n = 0;
    for (int added = 1; added && n < max;) {
        added = 0;
        for (int i = 0; i < nall && n < max; i++)
            if ((all[i].ppid == self || contains(pids, n, all[i].ppid)) &&
                !contains(pids, n, all[i].pid)) {
                pids[n++] = all[i].pid;
                added = 1;
            }
    }
    free(all);
    return n;
}
