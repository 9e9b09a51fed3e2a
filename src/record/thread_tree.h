/*
 * thread_tree.h — the traced process tree: a root process (--pid, or the
 * command flinch record wraps) and every live descendant of it.
 *
 * Owns one enumeration, kept behind this one function so that a better
 * tree watcher (subreaper, cgroup) can replace it without touching callers.
 */
#ifndef FLINCH_THREAD_TREE_H
#define FLINCH_THREAD_TREE_H

#include <sys/types.h>

/* Fills pids[] with root first, then its descendants (breadth first), at
 * most cap of them. Returns how many, 0 when root is gone. Reads
 * /proc/PID/task/TID/children (Linux >= 3.5 with CONFIG_PROC_CHILDREN),
 * falling back to one scan of /proc/[0-9]* parents when that file is
 * missing. proc_root: "/proc", or another tree in tests. */
int thread_tree_list(const char *proc_root, pid_t root, pid_t *pids, int cap);

#endif
