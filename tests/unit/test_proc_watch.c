/*
 * test_proc_watch.c — CPU time and state of real child processes: a busy
 * child against a sleeping one, a zombie, a reaped child, a comm with
 * parentheses, and the schedstat fallback. Timing checks poll with generous
 * deadlines so a loaded machine slows them down rather than failing them.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "clock.h"
#include "proc_watch.h"

#define MS NS_PER_MS

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static int64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

/* Burns at least ms of CPU in this thread. */
static void spin_cpu_ms(int ms)
{
    int64_t until = thread_cpu_ns() + ms * MS;
    volatile unsigned long x = 0;
    while (thread_cpu_ns() < until)
        x++;
}

static pid_t spawn_busy(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        volatile unsigned long x = 0;
        for (;;)
            x++;
    }
    return pid;
}

static pid_t spawn_sleeper(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        for (;;)
            pause();
    }
    return pid;
}

static void kill_and_reap(pid_t pid)
{
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

static void test_busy_vs_sleeping(void)
{
    pid_t busy = spawn_busy(), sleeper = spawn_sleeper();
    struct proc_watch wb, ws;
    CHECK(proc_watch_open(&wb, busy) == 0);
    CHECK(proc_watch_open(&ws, sleeper) == 0);

    /* ~300 ms on an idle machine; up to 5 s when the cores are shared */
    int64_t busy_ns = 0, sleep_ns = 0;
    char busy_state = '?', sleep_state = '?';
    int64_t deadline = mono_ns() + 5 * NS_PER_SEC;
    sleep_ms(300);
    for (;;) {
        CHECK(proc_watch_read(&wb, &busy_ns, &busy_state) == 0);
        if (busy_ns > 150 * MS || mono_ns() > deadline)
            break;
        sleep_ms(50);
    }
    CHECK(proc_watch_read(&ws, &sleep_ns, &sleep_state) == 0);
    if (!CHECK(busy_ns > 150 * MS))
        fprintf(stderr, "    busy child: %lld ns\n", (long long)busy_ns);
    if (!CHECK(sleep_ns < 20 * MS))
        fprintf(stderr, "    sleeping child: %lld ns\n", (long long)sleep_ns);
    CHECK(busy_state == 'R');
    CHECK(sleep_state == 'S');
    CHECK(wb.exited == 0 && ws.exited == 0);
    kill_and_reap(busy);
    kill_and_reap(sleeper);
}

/* The whole point of not using /proc/PID/stat's utime: sub-tick precision. */
static void test_precise_not_ticks(void)
{
    struct proc_watch w;
    int64_t before, after;
    char state;
    CHECK(proc_watch_open(&w, getpid()) == 0);
    CHECK(w.have_clock == 1);
    CHECK(proc_watch_read(&w, &before, &state) == 0);
    CHECK(state == 'R');
    spin_cpu_ms(2);
    CHECK(proc_watch_read(&w, &after, &state) == 0);
    int64_t delta = after - before;
    if (!CHECK(delta >= 2 * MS && delta < 8 * MS))
        fprintf(stderr, "    2 ms spin measured as %lld ns\n", (long long)delta);
}

static void test_schedstat_fallback(void)
{
    struct proc_watch w;
    int64_t via_clock, via_schedstat;
    char state;
    CHECK(proc_watch_open(&w, getpid()) == 0);
    spin_cpu_ms(5);
    CHECK(proc_watch_read(&w, &via_clock, &state) == 0);
    w.have_clock = 0;               /* as if clock_getcpuclockid had failed */
    CHECK(proc_watch_read(&w, &via_schedstat, &state) == 0);
    CHECK(state == 'R');
    CHECK(via_schedstat >= via_clock);
    if (!CHECK(via_schedstat - via_clock < 5 * MS))
        fprintf(stderr, "    clock %lld, schedstat %lld\n",
                (long long)via_clock, (long long)via_schedstat);
}

/* A child that exited but was not reaped: exited, with its final CPU time. */
static void test_zombie_keeps_final_cpu(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        sleep_ms(50);               /* give the parent time to open */
        spin_cpu_ms(100);
        _exit(7);
    }
    struct proc_watch w;
    int64_t cpu = 0;
    char state = '?';
    CHECK(proc_watch_open(&w, pid) == 0);
    int rc = 0;
    int64_t deadline = mono_ns() + 10 * NS_PER_SEC;
    while ((rc = proc_watch_read(&w, &cpu, &state)) == 0 && mono_ns() < deadline)
        sleep_ms(10);
    CHECK(rc == 1);
    CHECK(state == 'X');
    CHECK(w.exited == 1);
    if (!CHECK(cpu >= 100 * MS && cpu < 1000 * MS))
        fprintf(stderr, "    zombie final cpu %lld ns\n", (long long)cpu);
    /* still a zombie: not reaped by the watcher */
    siginfo_t info = { 0 };
    CHECK(waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0);
    CHECK(info.si_pid == pid && info.si_status == 7);

    /* reaped: still exited, same number */
    int status;
    CHECK(waitpid(pid, &status, 0) == pid);
    int64_t cpu2 = -1;
    char state2 = '?';
    CHECK(proc_watch_read(&w, &cpu2, &state2) == 1);
    CHECK(cpu2 == cpu && state2 == 'X');
}

static void test_reaped_child(void)
{
    pid_t pid = spawn_sleeper();
    struct proc_watch w;
    int64_t cpu;
    char state;
    CHECK(proc_watch_open(&w, pid) == 0);
    CHECK(proc_watch_read(&w, &cpu, &state) == 0);
    int64_t alive_cpu = cpu;
    kill_and_reap(pid);
    CHECK(proc_watch_read(&w, &cpu, &state) == 1);
    CHECK(state == 'X' && w.exited == 1);
    CHECK(cpu == alive_cpu);
    CHECK(proc_watch_read(&w, &cpu, &state) == 1);
}

static void test_no_such_process(void)
{
    struct proc_watch w;
    pid_t pid = spawn_sleeper();
    kill_and_reap(pid);             /* a pid that surely no longer exists */
    errno = 0;
    CHECK(proc_watch_open(&w, pid) == -1);
    CHECK(errno == ESRCH);
    errno = 0;
    CHECK(proc_watch_open(&w, 0) == -1 && errno == ESRCH);
    CHECK(proc_watch_open(&w, -5) == -1 && errno == ESRCH);
}

/* comm may hold ") " — the state is found after the last ')'. */
static void test_comm_with_parens(void)
{
    int ready[2];
    CHECK(pipe(ready) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_NAME, "a) R (b) ", 0, 0, 0);
        (void)!write(ready[1], "x", 1);
        for (;;)
            pause();
    }
    char c;
    CHECK(read(ready[0], &c, 1) == 1);
    close(ready[0]);
    close(ready[1]);
    struct proc_watch w;
    int64_t cpu;
    char state = '?';
    CHECK(proc_watch_open(&w, pid) == 0);
    sleep_ms(20);
    CHECK(proc_watch_read(&w, &cpu, &state) == 0);
    CHECK(state == 'S');
    CHECK(w.start_ticks > 0);
    kill_and_reap(pid);
}

int main(void)
{
    run_test("busy child vs sleeping child", test_busy_vs_sleeping);
    run_test("CPU time is ns-precise, not ticks", test_precise_not_ticks);
    run_test("schedstat fallback agrees with the CPU clock", test_schedstat_fallback);
    run_test("zombie counts as exited with its final CPU time", test_zombie_keeps_final_cpu);
    run_test("reaped child reported exited", test_reaped_child);
    run_test("no such process", test_no_such_process);
    run_test("comm with parentheses and spaces", test_comm_with_parens);
    return check_exit_status();
}
