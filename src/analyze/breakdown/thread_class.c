/*
 * thread_class.c — one recorded thread state to a class (see
 * thread_class.h). In order:
 *   1. on a CPU (state R): running;
 *   2. anything on an NVIDIA device file, or a wait channel in the NVIDIA
 *      driver (nv*, uvm*, os_*): gpu-driver, even in D state;
 *   3. D state (uninterruptible, almost always I/O): disk;
 *   4. the system call, with the kind of its descriptor: futex: lock;
 *      nanosleep: sleep; accept/connect/recv/send: network; fsync and
 *      friends: disk; System V and POSIX message queues, semaphores: pipe;
 *      a read, write or ioctl by its descriptor (socket: network, pipe,
 *      eventfd or signalfd: pipe, regular file: disk, timerfd: sleep);
 *      epoll, poll and select by the strongest kind among the descriptors
 *      they watch (socket > nvidia > pipe > file > timerfd) and with none
 *      at all: sleep (a timeout is all they wait for);
 *   5. without a system call (not readable, or in a fault), the wait
 *      channel: futex*: lock; *nanosleep, hrtimer*: sleep; inet_csk_accept,
 *      sk_wait*, tcp_*, unix_stream*, unix_dgram*, sock_*, inet_*: network;
 *      *pipe*: pipe; folio_wait*, io_schedule, jbd2*, ext4*, xfs*, blk*:
 *      disk; ep_poll, do_select, do_sys_poll: other (which descriptors they
 *      watch needs the system call);
 *   6. everything else: other.
 */
#include <stdio.h>
#include <string.h>

#include "thread_class.h"

const char *thread_class_name(enum thread_class c)
{
    static const char *const names[TC_COUNT] = {
        "network", "lock", "sleep", "disk", "pipe", "gpu-driver", "running", "other",
    };
    return c < TC_COUNT ? names[c] : "other";
}

static int starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int one_of(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0)
            return 1;
    return 0;
}

static const char *fd_words(const char *fd)
{
    if (strcmp(fd, "socket") == 0) return "a socket";
    if (strcmp(fd, "pipe") == 0) return "a pipe";
    if (strcmp(fd, "file") == 0) return "a file";
    if (strcmp(fd, "nvidia") == 0) return "/dev/nvidia*";
    if (strcmp(fd, "-") == 0) return "no descriptors";
    if (strcmp(fd, "?") == 0) return "unreadable descriptors";
    return fd;
}

static enum thread_class by_fd(const char *fd, int none_is_sleep)
{
    if (strcmp(fd, "socket") == 0) return TC_NETWORK;
    if (strcmp(fd, "nvidia") == 0) return TC_GPU_DRIVER;
    if (one_of(fd, (const char *const[]){ "pipe", "eventfd", "signalfd", NULL })) return TC_PIPE;
    if (strcmp(fd, "file") == 0) return TC_DISK;
    if (strcmp(fd, "timerfd") == 0) return TC_SLEEP;
    if (none_is_sleep && strcmp(fd, "-") == 0) return TC_SLEEP;
    return TC_OTHER;
}

static int is_nvidia_wchan(const char *w)
{
    return starts(w, "nv") || starts(w, "uvm") || starts(w, "os_");
}

static enum thread_class by_wchan(const char *w)
{
    if (starts(w, "futex")) return TC_LOCK;
    if (strstr(w, "nanosleep") || starts(w, "hrtimer")) return TC_SLEEP;
    static const char *const net[] = { "inet_csk_accept", "sk_wait", "tcp_", "unix_stream",
                                       "unix_dgram", "sock_", "inet_", NULL };
    for (const char *const *p = net; *p; p++)
        if (starts(w, *p)) return TC_NETWORK;
    if (strstr(w, "pipe")) return TC_PIPE;
    static const char *const disk[] = { "folio_wait", "io_schedule", "jbd2", "ext4", "xfs",
                                        "blk", "wait_on_page", NULL };
    for (const char *const *p = disk; *p; p++)
        if (starts(w, *p)) return TC_DISK;
    return TC_OTHER;
}

enum thread_class thread_classify(char state, const char *wchan, const char *call, const char *fd,
                                  char *detail, size_t cap)
{
    int have_call = strcmp(call, "-") != 0 && strcmp(call, "?") != 0;
    if (state == 'R') {
        snprintf(detail, cap, "on a CPU");
        return TC_RUNNING;
    }
    if (have_call && strcmp(fd, "-") != 0)
        snprintf(detail, cap, "%s on %s", call, fd_words(fd));
    else if (have_call)
        snprintf(detail, cap, "%s", call);
    else if (strcmp(wchan, "-") != 0)
        snprintf(detail, cap, "wchan %s", wchan);
    else
        snprintf(detail, cap, "state %c", state);
    if (strcmp(fd, "nvidia") == 0 || is_nvidia_wchan(wchan))
        return TC_GPU_DRIVER;
    if (state == 'D')
        return TC_DISK;
    if (have_call) {
        if (starts(call, "futex")) return TC_LOCK;
        if (strcmp(call, "nanosleep") == 0 || strcmp(call, "clock_nanosleep") == 0) return TC_SLEEP;
        if (one_of(call, (const char *const[]){ "accept", "accept4", "connect", "recvfrom",
                                                "recvmsg", "recvmmsg", "sendto", "sendmsg",
                                                "sendmmsg", NULL }))
            return TC_NETWORK;
        if (one_of(call, (const char *const[]){ "fsync", "fdatasync", "sync", "syncfs",
                                                "sync_file_range", "msync", "fallocate",
                                                "io_getevents", NULL }))
            return TC_DISK;
        if (one_of(call, (const char *const[]){ "msgrcv", "msgsnd", "semop", "semtimedop",
                                                "mq_timedreceive", NULL }))
            return TC_PIPE;
        if (starts(call, "epoll_") || one_of(call, (const char *const[]){ "poll", "ppoll",
                                                "select", "pselect6", NULL }))
            return by_fd(fd, 1);
        return by_fd(fd, 0);
    }
    return by_wchan(wchan);
}
