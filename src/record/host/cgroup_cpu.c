/* cgroup_cpu.c — see cgroup_cpu.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup_cpu.h"
#include "proc_watch.h"

/* The cgroup2 mount point from mountinfo ("... MOUNTPOINT OPTS ... -
 * cgroup2 SOURCE OPTS"), or /sys/fs/cgroup. */
static void cgroup2_root(char *out, size_t cap)
{
    snprintf(out, cap, "/sys/fs/cgroup");
    FILE *f = fopen("/proc/self/mountinfo", "r");
    if (!f)
        return;
    char line[1024];
    for (int n = 0; n < 100000 && fgets(line, sizeof line, f); n++) {
        const char *dash = strstr(line, " - cgroup2 ");
        if (!dash)
            continue;
        char mnt[512];
        if (sscanf(line, "%*s %*s %*s %*s %511s", mnt) == 1 && strlen(mnt) < cap)
            snprintf(out, cap, "%s", mnt);
        break;
    }
    fclose(f);
}

/* pid's cgroup v2 path: the "0::PATH" line of /proc/PID/cgroup. */
static int cgroup_path(pid_t pid, char *out, size_t cap)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%d/cgroup", (int)pid);
    if (proc_read_small_file(AT_FDCWD, path, buf, sizeof buf) <= 0)
        return -1;
    for (char *line = buf; line && *line;) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (strncmp(line, "0::", 3) == 0 && line[3] == '/' && strlen(line + 3) < cap) {
            snprintf(out, cap, "%s", line + 3);
            return 0;
        }
        line = next;
    }
    return -1;
}

static int parse_stat(struct cgroup_cpu *c, const char *buf)
{
    static const char *const keys[] = { "usage_usec", "nr_periods", "nr_throttled", "throttled_usec" };
    unsigned long long v[4];
    int found = 0;
    for (const char *line = buf; *line;) {
        for (int k = 0; k < 4; k++) {
            size_t n = strlen(keys[k]);
            if (strncmp(line, keys[k], n) == 0 && line[n] == ' ') {
                char *end;
                errno = 0;
                v[k] = strtoull(line + n + 1, &end, 10);
                if (end != line + n + 1 && errno == 0 && (*end == '\n' || *end == '\0'))
                    found |= 1 << k;
            }
        }
        const char *next = strchr(line, '\n');
        if (!next)
            break;
        line = next + 1;
    }
    if (found != 0xF)
        return -1;
    c->usage_usec = v[0];
    c->nr_periods = v[1];
    c->nr_throttled = v[2];
    c->throttled_usec = v[3];
    return 0;
}

int cgroup_cpu_open(struct cgroup_cpu *c, pid_t pid, const char *root)
{
    memset(c, 0, sizeof *c);
    c->fd = -1;
    char base[512], file[1100];
    if (root)
        snprintf(base, sizeof base, "%s", root);
    else
        cgroup2_root(base, sizeof base);
    if (cgroup_path(pid, c->path, sizeof c->path) != 0)
        return -1;
    const char *rel = strcmp(c->path, "/") == 0 ? "" : c->path;
    snprintf(file, sizeof file, "%s%s/cpu.max", base, rel);
    char buf[256];
    unsigned long long period;
    char quota[24];
    if (proc_read_small_file(AT_FDCWD, file, buf, sizeof buf) > 0 &&
        sscanf(buf, "%23s %llu", quota, &period) == 2)
        snprintf(c->cpu_max, sizeof c->cpu_max, "%s/%llu", quota, period);
    snprintf(file, sizeof file, "%s%s/cpu.stat", base, rel);
    c->fd = open(file, O_RDONLY | O_CLOEXEC);
    if (c->fd < 0)
        return -1;
    if (cgroup_cpu_read(c) < 0) {           /* no throttling counters: cpu controller off */
        cgroup_cpu_close(c);
        return -1;
    }
    return 0;
}

int cgroup_cpu_read(struct cgroup_cpu *c)
{
    char buf[1024];
    if (c->fd < 0)
        return -1;
    ssize_t n = pread(c->fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    if (parse_stat(c, buf) != 0)
        return -1;
    return c->nr_throttled != c->said_nr || c->throttled_usec != c->said_usec;
}

void cgroup_cpu_label(struct cgroup_cpu *c, int first, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "%s", EVENT_CGROUP_CPU);
    if (first && n >= 0 && (size_t)n < cap) {
        /* trace_event.h: a value with a space is double-quoted, never holds a quote */
        char path[sizeof c->path];
        snprintf(path, sizeof path, "%s", c->path);
        for (char *p = path; *p; p++)
            if (*p == '"' || (unsigned char)*p < ' ')
                *p = '_';
        const char *q = strchr(path, ' ') ? "\"" : "";
        n += snprintf(buf + n, cap - (size_t)n, " path=%s%s%s cpu_max=%s", q, path, q,
                      c->cpu_max[0] ? c->cpu_max : "?");
    }
    if (n >= 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, " usage_usec=%llu nr_periods=%llu nr_throttled=%llu "
                 "throttled_usec=%llu", c->usage_usec, c->nr_periods, c->nr_throttled,
                 c->throttled_usec);
    c->said_nr = c->nr_throttled;
    c->said_usec = c->throttled_usec;
}

void cgroup_cpu_close(struct cgroup_cpu *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
}
