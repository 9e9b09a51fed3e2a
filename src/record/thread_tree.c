/*
 * thread_tree.c — lists a process and its descendants (see thread_tree.h).
 *
 * The children files are per thread: a child belongs to the thread that
 * forked it, so every task's file of every process in the tree is read.
 * A child that exits between the reads is simply missing from this list;
 * one that appears is found on the next call. Both are what a periodic
 * sampler wants, so nothing here retries.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "thread_tree.h"

static int seen(const pid_t *pids, int n, pid_t p)
{
    for (int i = 0; i < n; i++)
        if (pids[i] == p)
            return 1;
    return 0;
}

/* Appends the pids listed in one children file; -1 when it cannot be
 * opened (the task is gone). */
static int read_children(int task_dir, const char *tid, pid_t *pids, int *n, int cap)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "%s/children", tid);
    int fd = openat(task_dir, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t got = 0;
    ssize_t r;
    while (got + 1 < sizeof buf && (r = read(fd, buf + got, sizeof buf - 1 - got)) > 0)
        got += (size_t)r;
    close(fd);
    buf[got] = '\0';
    for (char *p = buf; *p && *n < cap;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p)
            break;
        if (v > 0 && !seen(pids, *n, (pid_t)v))
            pids[(*n)++] = (pid_t)v;
        p = end;
    }
    return 0;
}

/* The fallback: each process's parent from /proc/PID/stat, then the
 * descendants of root by repeated passes (bounded by the tree's depth). */
static int scan_parents(const char *proc_root, pid_t *pids, int cap)
{
    DIR *d = opendir(proc_root);
    if (!d)
        return 1;
    int np = 0, pcap = 256;
    pid_t (*pairs)[2] = malloc(sizeof *pairs * (size_t)pcap);
    struct dirent *e;
    while (pairs && (e = readdir(d)) != NULL) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char path[300], buf[512];
        snprintf(path, sizeof path, "%s/stat", e->d_name);
        int fd = openat(dirfd(d), path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t r = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (r <= 0)
            continue;
        buf[r] = '\0';
        char *paren = strrchr(buf, ')');
        if (!paren || strlen(paren) < 5)
            continue;
        if (np == pcap) {
            pcap *= 2;
            void *grown = realloc(pairs, sizeof *pairs * (size_t)pcap);
            if (!grown)
                break;
            pairs = grown;
        }
        pairs[np][0] = (pid_t)atol(e->d_name);
        pairs[np][1] = (pid_t)atol(paren + 4);
        np++;
    }
    closedir(d);
    int n = 1;
    for (int grew = 1; grew && pairs;) {
        grew = 0;
        for (int i = 0; i < np && n < cap; i++)
            if (!seen(pids, n, pairs[i][0]) && seen(pids, n, pairs[i][1])) {
                pids[n++] = pairs[i][0];
                grew = 1;
            }
    }
    free(pairs);
    return n;
}

int thread_tree_list(const char *proc_root, pid_t root, pid_t *pids, int cap)
{
    char path[300];
    snprintf(path, sizeof path, "%s/%d", proc_root, (int)root);
    if (cap < 1 || access(path, F_OK) != 0)
        return 0;
    int n = 0;
    pids[n++] = root;
    snprintf(path, sizeof path, "%s/%d/task/%d/children", proc_root, (int)root, (int)root);
    if (access(path, F_OK) != 0)
        return scan_parents(proc_root, pids, cap);
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%d/task", proc_root, (int)pids[i]);
        DIR *d = opendir(path);
        if (!d)
            continue;                  /* exited meanwhile */
        struct dirent *e;
        while ((e = readdir(d)) != NULL)
            if (e->d_name[0] >= '1' && e->d_name[0] <= '9')
                read_children(dirfd(d), e->d_name, pids, &n, cap);
        closedir(d);
    }
    return n;
}
