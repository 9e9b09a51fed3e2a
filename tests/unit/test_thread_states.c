/*
 * test_thread_states.c — the pieces of the thread-state feature that do
 * not need a live process: the system call tables against the kernel's
 * own headers, the /proc parsers, the classification rule, and the
 * threads file reader's spans (midpoint rule, exits, sessions).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "thread_class.h"
#include "thread_probe.h"
#include "threads_file.h"

#if defined(__x86_64__) && __has_include(<asm/unistd_64.h>)
#include <asm/unistd_64.h>
#define HAVE_X86_HEADER 1
#endif

static void test_syscall_tables(void)
{
    CHECK_STR(syscall_name(SYSCALL_ARCH_X86_64, 202), "futex");
    CHECK_STR(syscall_name(SYSCALL_ARCH_X86_64, 288), "accept4");
    CHECK_STR(syscall_name(SYSCALL_ARCH_X86_64, 7), "poll");
    CHECK_STR(syscall_name(SYSCALL_ARCH_AARCH64, 98), "futex");
    CHECK_STR(syscall_name(SYSCALL_ARCH_AARCH64, 242), "accept4");
    CHECK_STR(syscall_name(SYSCALL_ARCH_AARCH64, 63), "read");
    CHECK_STR(syscall_name(SYSCALL_ARCH_AARCH64, 115), "clock_nanosleep");
    CHECK_STR(syscall_name(SYSCALL_ARCH_AARCH64, 73), "ppoll");
    CHECK(syscall_name(SYSCALL_ARCH_AARCH64, 7) == NULL);   /* no poll on aarch64 */
    CHECK(syscall_number(SYSCALL_ARCH_AARCH64, "epoll_wait") == -1);
#ifdef HAVE_X86_HEADER
    CHECK(syscall_number(SYSCALL_ARCH_X86_64, "futex") == __NR_futex);
    CHECK(syscall_number(SYSCALL_ARCH_X86_64, "epoll_wait") == __NR_epoll_wait);
    CHECK(syscall_number(SYSCALL_ARCH_X86_64, "clock_nanosleep") == __NR_clock_nanosleep);
    CHECK(syscall_number(SYSCALL_ARCH_X86_64, "recvfrom") == __NR_recvfrom);
    CHECK(syscall_number(SYSCALL_ARCH_X86_64, "fsync") == __NR_fsync);
    CHECK(syscall_number(SYSCALL_ARCH_X86_64, "ioctl") == __NR_ioctl);
#endif
}

static void test_parsers(void)
{
    char name[THREAD_NAME_MAX], state = 0;
    CHECK(thread_parse_stat("123 (my thread) S 1 2 3", name, sizeof name, &state) == 0);
    CHECK_STR(name, "my\\x20thread");
    CHECK(state == 'S');
    CHECK(thread_parse_stat("9 (a) b)) D 1", name, sizeof name, &state) == 0);
    CHECK_STR(name, "a)\\x20b)");
    CHECK(state == 'D');
    CHECK(thread_parse_stat("9 (x", name, sizeof name, &state) == -1);
    long nr = 0;
    unsigned long long a[6];
    CHECK(thread_parse_syscall("running", &nr, a) == 0);
    CHECK(thread_parse_syscall("-1 0x7ffd 0x4005", &nr, a) == 0);
    CHECK(thread_parse_syscall("288 0x3 0x7ffd2c2db800 0x0 0x80000 0x0 0x0 0x1 0x2", &nr, a) == 1);
    CHECK(nr == 288 && a[0] == 3 && a[3] == 0x80000);
    CHECK(thread_parse_syscall("0 0x1", &nr, a) == -1);
    CHECK_STR(thread_fd_kind("socket:[1234]"), "socket");
    CHECK_STR(thread_fd_kind("pipe:[1234]"), "pipe");
    CHECK_STR(thread_fd_kind("/dev/nvidia0"), "nvidia");
    CHECK_STR(thread_fd_kind("/dev/nvidiactl"), "nvidia");
    CHECK_STR(thread_fd_kind("/dev/null"), "dev");
    CHECK_STR(thread_fd_kind("/data/x.bin"), "file");
    CHECK_STR(thread_fd_kind("anon_inode:[eventfd]"), "eventfd");
    CHECK_STR(thread_fd_kind_max("pipe", "socket"), "socket");
    CHECK_STR(thread_fd_kind_max("nvidia", "pipe"), "nvidia");
    CHECK_STR(thread_fd_kind_max("-", "timerfd"), "timerfd");
}

static const char *cls(char st, const char *w, const char *call, const char *fd, char *d)
{
    return thread_class_name(thread_classify(st, w, call, fd, d, 96));
}

static void test_classify(void)
{
    char d[96];
    CHECK_STR(cls('S', "inet_csk_accept", "accept4", "socket", d), "network");
    CHECK_STR(d, "accept4 on a socket");
    CHECK_STR(cls('S', "ep_poll", "epoll_wait", "socket", d), "network");
    CHECK_STR(cls('S', "ep_poll", "epoll_wait", "-", d), "sleep");
    CHECK_STR(cls('S', "do_sys_poll", "poll", "pipe", d), "pipe");
    CHECK_STR(cls('S', "futex_do_wait", "futex", "-", d), "lock");
    CHECK_STR(d, "futex");
    CHECK_STR(cls('S', "hrtimer_nanosleep", "clock_nanosleep", "-", d), "sleep");
    CHECK_STR(cls('D', "folio_wait_bit", "fsync", "file", d), "disk");
    CHECK_STR(cls('S', "anon_pipe_read", "read", "pipe", d), "pipe");
    CHECK_STR(cls('S', "-", "read", "file", d), "disk");
    CHECK_STR(cls('D', "-", "ioctl", "nvidia", d), "gpu-driver");     /* wins over disk */
    CHECK_STR(cls('S', "uvm_spin_loop", "?", "-", d), "gpu-driver");
    CHECK_STR(cls('R', "-", "-", "-", d), "running");
    CHECK_STR(cls('S', "do_wait", "wait4", "-", d), "other");
    /* without the system call: the wait channel */
    CHECK_STR(cls('S', "futex_wait_queue", "?", "-", d), "lock");
    CHECK_STR(d, "wchan futex_wait_queue");
    CHECK_STR(cls('S', "inet_csk_accept", "?", "-", d), "network");
    CHECK_STR(cls('S', "pipe_read", "?", "-", d), "pipe");
    CHECK_STR(cls('S', "ep_poll", "?", "-", d), "other");
}

static const char *write_threads(const char *text)
{
    static char trace[64];
    snprintf(trace, sizeof trace, "/tmp/flinch_test_threads_%d.csv", (int)getpid());
    char path[96];
    snprintf(path, sizeof path, "%s.threads", trace);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return trace;
}

static void test_spans(void)
{
    /* sweeps at 100, 200, 300; thread 7 sleeps, then a futex from the
     * 200 sweep (edge 150), gone at 300 (edge 250); thread 8 appears at
     * 200 (from 150) and runs to the end (300). */
    const char *trace = write_threads(
        "flinch-threads 1\n"
        "B 50 root=7 interval_ms=100 arch=x86_64\n"
        "S 100\nN 7 7 main\nT 7 S hrtimer_nanosleep clock_nanosleep -\n"
        "S 200\nT 7 S futex_do_wait futex -\nN 8 7 worker\nT 8 R - - -\n"
        "S 300\nX 7\n"
        "E 310 cpu_ns=1 sweeps=3\n");
    struct threads_reader r;
    struct thread_span sp;
    CHECK(threads_reader_open(&r, trace) == 0);
    CHECK(threads_reader_next(&r, &sp) == 1);
    CHECK(sp.tid == 7 && sp.t0_ns == 100 && sp.t1_ns == 150);
    CHECK_STR(sp.call, "clock_nanosleep");
    CHECK(threads_reader_next(&r, &sp) == 1);
    CHECK(sp.tid == 7 && sp.t0_ns == 150 && sp.t1_ns == 250);
    CHECK_STR(sp.call, "futex");
    CHECK(threads_reader_next(&r, &sp) == 1);
    CHECK(sp.tid == 8 && sp.t0_ns == 150 && sp.t1_ns == 300 && sp.state == 'R');
    CHECK_STR(sp.name, "worker");
    CHECK(threads_reader_next(&r, &sp) == 0);
    CHECK(r.interval_ms == 100);
    threads_reader_close(&r);

    /* a session without its E line ends at its last sweep */
    trace = write_threads("flinch-threads 1\nB 0 root=1 interval_ms=10 arch=aarch64\n"
                          "S 10\nN 1 1 a\nT 1 S - futex -\nS 20\n"
                          "B 100 root=1 interval_ms=10 arch=aarch64\nS 110\nN 1 1 a\nT 1 R - - -\nS 120\n");
    CHECK(threads_reader_open(&r, trace) == 0);
    CHECK(threads_reader_next(&r, &sp) == 1);
    CHECK(sp.t0_ns == 10 && sp.t1_ns == 20 && sp.state == 'S');
    CHECK(threads_reader_next(&r, &sp) == 1);
    CHECK(sp.t0_ns == 110 && sp.t1_ns == 120 && sp.state == 'R');
    CHECK(threads_reader_next(&r, &sp) == 0);
    CHECK(r.sessions == 2);
    threads_reader_close(&r);

    trace = write_threads("flinch-threads 1\nB 0 root=1 interval_ms=10 arch=x86_64\nS 10\n"
                          "N 1 1 a b\n");
    CHECK(threads_reader_open(&r, trace) == 0);
    CHECK(threads_reader_next(&r, &sp) == -1);
    CHECK(strstr(r.error, ".threads:4: record N: expected 4 fields, got 5") != NULL);
    threads_reader_close(&r);

    char path[96];
    snprintf(path, sizeof path, "%s.threads", trace);
    unlink(path);
    CHECK(threads_reader_open(&r, trace) == 1);   /* no file: no thread states */
}

int main(void)
{
    run_test("syscall tables", test_syscall_tables);
    run_test("proc parsers", test_parsers);
    run_test("classification", test_classify);
    run_test("threads file spans", test_spans);
    return check_exit_status();
}
