/*
 * syscall_table.c — system call numbers of the calls a blocked thread is
 * usually in, for x86_64 and aarch64 (see syscall_table.h). Generated from
 * the kernel headers (asm/unistd_64.h, asm-generic/unistd.h) and checked
 * against them by tests/unit/test_syscall_table.c.
 */
#include <stddef.h>
#include <string.h>

#include "syscall_table.h"

struct syscall_entry { long nr; const char *name; };

static const struct syscall_entry x86_64_calls[] = {
    { 0, "read" },
    { 1, "write" },
    { 2, "open" },
    { 3, "close" },
    { 7, "poll" },
    { 16, "ioctl" },
    { 17, "pread64" },
    { 18, "pwrite64" },
    { 19, "readv" },
    { 20, "writev" },
    { 23, "select" },
    { 24, "sched_yield" },
    { 26, "msync" },
    { 34, "pause" },
    { 35, "nanosleep" },
    { 40, "sendfile" },
    { 42, "connect" },
    { 43, "accept" },
    { 44, "sendto" },
    { 45, "recvfrom" },
    { 46, "sendmsg" },
    { 47, "recvmsg" },
    { 61, "wait4" },
    { 65, "semop" },
    { 69, "msgsnd" },
    { 70, "msgrcv" },
    { 73, "flock" },
    { 74, "fsync" },
    { 75, "fdatasync" },
    { 128, "rt_sigtimedwait" },
    { 130, "rt_sigsuspend" },
    { 162, "sync" },
    { 202, "futex" },
    { 208, "io_getevents" },
    { 220, "semtimedop" },
    { 230, "clock_nanosleep" },
    { 232, "epoll_wait" },
    { 243, "mq_timedreceive" },
    { 247, "waitid" },
    { 257, "openat" },
    { 270, "pselect6" },
    { 271, "ppoll" },
    { 275, "splice" },
    { 277, "sync_file_range" },
    { 281, "epoll_pwait" },
    { 285, "fallocate" },
    { 288, "accept4" },
    { 295, "preadv" },
    { 296, "pwritev" },
    { 299, "recvmmsg" },
    { 306, "syncfs" },
    { 307, "sendmmsg" },
    { 326, "copy_file_range" },
    { 327, "preadv2" },
    { 328, "pwritev2" },
    { 426, "io_uring_enter" },
    { 441, "epoll_pwait2" },
    { 449, "futex_waitv" },
};

static const struct syscall_entry aarch64_calls[] = {
    { 4, "io_getevents" },
    { 22, "epoll_pwait" },
    { 29, "ioctl" },
    { 32, "flock" },
    { 47, "fallocate" },
    { 56, "openat" },
    { 57, "close" },
    { 63, "read" },
    { 64, "write" },
    { 65, "readv" },
    { 66, "writev" },
    { 67, "pread64" },
    { 68, "pwrite64" },
    { 69, "preadv" },
    { 70, "pwritev" },
    { 71, "sendfile" },
    { 72, "pselect6" },
    { 73, "ppoll" },
    { 76, "splice" },
    { 81, "sync" },
    { 82, "fsync" },
    { 83, "fdatasync" },
    { 84, "sync_file_range" },
    { 95, "waitid" },
    { 98, "futex" },
    { 101, "nanosleep" },
    { 115, "clock_nanosleep" },
    { 124, "sched_yield" },
    { 133, "rt_sigsuspend" },
    { 137, "rt_sigtimedwait" },
    { 183, "mq_timedreceive" },
    { 188, "msgrcv" },
    { 189, "msgsnd" },
    { 192, "semtimedop" },
    { 193, "semop" },
    { 202, "accept" },
    { 203, "connect" },
    { 206, "sendto" },
    { 207, "recvfrom" },
    { 211, "sendmsg" },
    { 212, "recvmsg" },
    { 227, "msync" },
    { 242, "accept4" },
    { 243, "recvmmsg" },
    { 260, "wait4" },
    { 267, "syncfs" },
    { 269, "sendmmsg" },
    { 285, "copy_file_range" },
    { 286, "preadv2" },
    { 287, "pwritev2" },
    { 426, "io_uring_enter" },
    { 441, "epoll_pwait2" },
    { 449, "futex_waitv" },
};

const char *syscall_arch_name(enum syscall_arch a)
{
    return a == SYSCALL_ARCH_X86_64 ? "x86_64" : a == SYSCALL_ARCH_AARCH64 ? "aarch64" : "unknown";
}

enum syscall_arch syscall_host_arch(void)
{
#if defined(__x86_64__)
    return SYSCALL_ARCH_X86_64;
#elif defined(__aarch64__)
    return SYSCALL_ARCH_AARCH64;
#else
    return SYSCALL_ARCH_UNKNOWN;
#endif
}

const char *syscall_name(enum syscall_arch a, long nr)
{
    const struct syscall_entry *t;
    size_t n;
    if (a == SYSCALL_ARCH_X86_64) {
        t = x86_64_calls;
        n = sizeof x86_64_calls / sizeof x86_64_calls[0];
    } else if (a == SYSCALL_ARCH_AARCH64) {
        t = aarch64_calls;
        n = sizeof aarch64_calls / sizeof aarch64_calls[0];
    } else {
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (t[i].nr == nr)
            return t[i].name;
    return NULL;
}

long syscall_number(enum syscall_arch a, const char *name)
{
    for (long nr = 0; nr < 1024; nr++) {
        const char *s = syscall_name(a, nr);
        if (s && strcmp(s, name) == 0)
            return nr;
    }
    return -1;
}
