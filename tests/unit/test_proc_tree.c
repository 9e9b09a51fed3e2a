/*
 * test_proc_tree.c — proc_tree.c on a process tree the test builds itself:
 * "actors" (forked processes that obey one-byte commands on a pipe: fork a
 * child actor, burn N ms of CPU, reap a child, exit) form a root, children
 * and grandchildren, and the test checks the exact pids followed, the CPU
 * time summed without double counting when a child is reaped, an orphan
 * that stays in the tree when re-parented (to this process, the subreaper,
 * as under `flinch record -- CMD`) and its time once it leaves (--pid), and
 * the busiest thread named with its share of a core. Every wait is bounded
 * (poll with a deadline); CPU time is burned by the CPU clock, so a loaded
 * machine slows the test down but does not change the figures.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "clock.h"
#include "proc_tree.h"

#define MS NS_PER_MS
#define NACTORS 8
#define DEADLINE_MS 10000

struct cmd { char op; int arg; };

static int cmd_pipe[NACTORS][2], ack_pipe[NACTORS][2];
static pid_t actor_pid[NACTORS];

static int64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

static int read_full(int fd, void *buf, size_t n)
{
    struct pollfd p = { fd, POLLIN, 0 };
    if (poll(&p, 1, DEADLINE_MS) != 1)
        return -1;
    return read(fd, buf, n) == (ssize_t)n ? 0 : -1;
}

static void actor_loop(int k);

/* Forks actor k from the calling process (the test or another actor). */
static pid_t actor_fork(int k)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
        actor_loop(k);
    return pid;
}

/* An actor: obeys commands until told to exit; never returns. A command's
 * answer is one int (a pid, or 0). */
static void actor_loop(int k)
{
    char name[16];
    snprintf(name, sizeof name, "actor%d", k);
    prctl(PR_SET_NAME, name, 0, 0, 0);
    for (;;) {
        struct cmd c;
        struct pollfd p = { cmd_pipe[k][0], POLLIN, 0 };
        /* bounded: an actor the test forgot ends by itself */
        if (poll(&p, 1, 60000) != 1 || read(cmd_pipe[k][0], &c, sizeof c) != sizeof c)
            _exit(1);
        int answer = 0;
        if (c.op == 'f') {
            answer = (int)actor_fork(c.arg);
        } else if (c.op == 'b') {
            int64_t until = thread_cpu_ns() + c.arg * MS;
            volatile unsigned long x = 0;
            while (thread_cpu_ns() < until)
                x++;
        } else if (c.op == 'r') {
            for (int i = 0; i < DEADLINE_MS && answer <= 0; i++) {
                answer = (int)waitpid(-1, NULL, WNOHANG);
                if (answer == 0)
                    usleep(1000);
            }
        } else if (c.op == 'x') {
            _exit(0);
        }
        if (write(ack_pipe[k][1], &answer, sizeof answer) != sizeof answer)
            _exit(1);
    }
}

/* Sends op/arg to actor k and returns its answer (-1 on a timeout). */
static int ask(int k, char op, int arg)
{
    struct cmd c = { op, arg };
    int answer = -1;
    if (write(cmd_pipe[k][1], &c, sizeof c) != sizeof c || read_full(ack_pipe[k][0], &answer, sizeof answer) != 0)
        return -1;
    return answer;
}

/* Actor parent forks actor k. */
static pid_t spawn(int parent, int k)
{
    actor_pid[k] = parent < 0 ? actor_fork(k) : (pid_t)ask(parent, 'f', k);
    return actor_pid[k];
}

/* Tells actor k to exit and waits until it is a zombie or gone. */
static void quit(int k)
{
    struct cmd c = { 'x', 0 };
    CHECK(write(cmd_pipe[k][1], &c, sizeof c) == sizeof c);
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)actor_pid[k]);
    for (int i = 0; i < DEADLINE_MS; i++) {
        FILE *f = fopen(path, "r");
        if (!f)
            return;
        char *s = fgets(buf, sizeof buf, f);
        fclose(f);
        char *p = s ? strrchr(s, ')') : NULL;
        if (!p || p[2] == 'Z')
            return;
        usleep(1000);
    }
    CHECK(!"actor exited");
}

static void setup(void)
{
    for (int k = 0; k < NACTORS; k++) {
        if (pipe(cmd_pipe[k]) != 0 || pipe(ack_pipe[k]) != 0)
            abort();
        actor_pid[k] = 0;
    }
}

/* Kills what is left, reaps this process's children, closes the pipes. */
static void teardown(void)
{
    for (int k = 0; k < NACTORS; k++)
        if (actor_pid[k] > 0)
            kill(actor_pid[k], SIGKILL);
    for (int i = 0; i < DEADLINE_MS && waitpid(-1, NULL, WNOHANG) >= 0; i++)
        usleep(1000);
    for (int k = 0; k < NACTORS; k++) {
        close(cmd_pipe[k][0]), close(cmd_pipe[k][1]);
        close(ack_pipe[k][0]), close(ack_pipe[k][1]);
    }
}

static int cmp_pid(const void *a, const void *b)
{
    pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
    return (x > y) - (x < y);
}

/* The tree's members, sorted, as "p1 p2 ..." and the expected set likewise. */
static void members(const struct proc_tree *t, char *out, size_t cap)
{
    pid_t p[PROC_TREE_MAX];
    for (int i = 0; i < t->nmember; i++)
        p[i] = t->member[i].pid;
    qsort(p, (size_t)t->nmember, sizeof *p, cmp_pid);
    size_t o = 0;
    out[0] = '\0';
    for (int i = 0; i < t->nmember && o < cap; i++)
        o += (size_t)snprintf(out + o, cap - o, "%s%d", i ? " " : "", (int)p[i]);
}

static void expected(const int *ks, int n, char *out, size_t cap)
{
    pid_t p[NACTORS];
    for (int i = 0; i < n; i++)
        p[i] = actor_pid[ks[i]];
    qsort(p, (size_t)n, sizeof *p, cmp_pid);
    size_t o = 0;
    out[0] = '\0';
    for (int i = 0; i < n && o < cap; i++)
        o += (size_t)snprintf(out + o, cap - o, "%s%d", i ? " " : "", (int)p[i]);
}

#define CHECK_MEMBERS(t, ...) do { \
        static const int ks_[] = { __VA_ARGS__ }; \
        char got_[256], want_[256]; \
        members((t), got_, sizeof got_); \
        expected(ks_, (int)(sizeof ks_ / sizeof ks_[0]), want_, sizeof want_); \
        CHECK_STR(got_, want_); \
    } while (0)

static int member_ppid(const struct proc_tree *t, pid_t pid)
{
    for (int i = 0; i < t->nmember; i++)
        if (t->member[i].pid == pid)
            return (int)t->member[i].ppid;
    return -1;
}

/* Tick granularity of reaped children's time (cutime: a reaped actor's
 * own fraction of a tick is lost, whole ticks may round up), plus the idle
 * actors' own work answering commands. */
#define SLACK_NS (25 * MS)
/* CPU added between two readings is WANT_MS, to the slack. */
#define CHECK_DELTA(d, want_ms) CHECK_NEAR((double)(d) / MS, (double)(want_ms), (double)SLACK_NS / MS)

/* `-- CMD`: the root is our child and we are the subreaper. Actors: 0 the
 * root; 1, 2 its children; 3 child of 1; 4 child of 2 (born after open). */
static void tree_of_our_command(void)
{
    setup();
    CHECK(spawn(-1, 0) > 0);
    CHECK(spawn(0, 1) > 0);
    CHECK(spawn(0, 2) > 0);
    CHECK(spawn(1, 3) > 0);
    struct proc_tree t;
    CHECK(proc_tree_open(&t, actor_pid[0], 1) == 0);
    int64_t cpu0, cpu1, cpu2, cpu3, cpu4, cpu5, cpu6;
    int procs = -1;
    proc_tree_read(&t, 0, &cpu0, &procs);
    CHECK(procs == 4);
    CHECK_MEMBERS(&t, 0, 1, 2, 3);
    CHECK(member_ppid(&t, actor_pid[3]) == (int)actor_pid[1]);

    /* a grandchild born after the recording began */
    CHECK(spawn(2, 4) > 0);
    proc_tree_read(&t, 0, &cpu0, &procs);
    CHECK(procs == 5);
    CHECK_MEMBERS(&t, 0, 1, 2, 3, 4);

    /* a grandchild's CPU */
    CHECK(ask(3, 'b', 200) == 0);
    proc_tree_read(&t, 0, &cpu1, &procs);
    CHECK_DELTA(cpu1 - cpu0, 200);

    /* reaped by its parent: its time moves to the parent's cutime, counted
     * once (not twice, not lost: a later burn elsewhere shows in full) */
    quit(3);
    CHECK(ask(1, 'r', 0) == (int)actor_pid[3]);
    actor_pid[3] = 0;
    proc_tree_read(&t, 0, &cpu2, &procs);
    CHECK(procs == 4);
    CHECK_MEMBERS(&t, 0, 1, 2, 4);
    CHECK_DELTA(cpu2 - cpu1, 0);
    CHECK(ask(1, 'b', 100) == 0);
    proc_tree_read(&t, 0, &cpu3, &procs);
    CHECK_DELTA(cpu3 - cpu2, 100);

    /* actor 2 exits before its child 4: 4 is re-parented to us (the
     * subreaper) and stays in the tree */
    quit(2);
    CHECK(ask(0, 'r', 0) == (int)actor_pid[2]);
    actor_pid[2] = 0;
    proc_tree_read(&t, 0, &cpu4, &procs);
    CHECK(procs == 3);
    CHECK_MEMBERS(&t, 0, 1, 4);
    CHECK(member_ppid(&t, actor_pid[4]) == (int)getpid());
    CHECK(ask(4, 'b', 100) == 0);
    proc_tree_read(&t, 0, &cpu5, &procs);
    CHECK_DELTA(cpu5 - cpu4, 100);

    /* the orphan exits and we reap it: its time comes back through our
     * RUSAGE_CHILDREN, once */
    quit(4);
    CHECK(waitpid(actor_pid[4], NULL, 0) == actor_pid[4]);
    actor_pid[4] = 0;
    proc_tree_read(&t, 0, &cpu6, &procs);
    CHECK(procs == 2);
    CHECK_MEMBERS(&t, 0, 1);
    CHECK_DELTA(cpu6 - cpu5, 0);
    CHECK(ask(0, 'b', 100) == 0);
    proc_tree_read(&t, 0, &cpu0, &procs);
    CHECK_DELTA(cpu0 - cpu6, 100);
    proc_tree_close(&t);
    teardown();
}

/* --pid: flinch is not the root's parent. A member that leaves the tree for
 * a parent outside it (here: re-parented to us, then reaped by us) keeps its
 * last reading; what it used after that reading is the documented loss. */
static void tree_of_a_pid(void)
{
    setup();
    CHECK(spawn(-1, 0) > 0);
    CHECK(spawn(0, 1) > 0);
    CHECK(spawn(1, 2) > 0);
    struct proc_tree t;
    CHECK(proc_tree_open(&t, actor_pid[0], 0) == 0);
    int64_t cpu0, cpu1, cpu2, cpu3;
    int procs = -1;
    proc_tree_read(&t, 0, &cpu0, &procs);
    CHECK(procs == 3);
    CHECK_MEMBERS(&t, 0, 1, 2);

    CHECK(ask(2, 'b', 150) == 0);
    quit(1);                                    /* 2 is orphaned to us */
    CHECK(ask(0, 'r', 0) == (int)actor_pid[1]);
    actor_pid[1] = 0;
    proc_tree_read(&t, 0, &cpu1, &procs);
    CHECK(procs == 2);
    CHECK_MEMBERS(&t, 0, 2);
    CHECK_DELTA(cpu1 - cpu0, 150);

    quit(2);
    CHECK(waitpid(actor_pid[2], NULL, 0) == actor_pid[2]);   /* gone outside the tree */
    actor_pid[2] = 0;
    proc_tree_read(&t, 0, &cpu2, &procs);
    CHECK(procs == 1);
    CHECK_MEMBERS(&t, 0);
    CHECK_DELTA(cpu2 - cpu1, 0);                /* (its exit after the reading is the loss) */
    /* its 150 ms stay in the total: the root's next 100 ms add to it */
    CHECK(ask(0, 'b', 100) == 0);
    proc_tree_read(&t, 0, &cpu3, &procs);
    CHECK_DELTA(cpu3 - cpu2, 100);
    proc_tree_close(&t);
    teardown();
}

/* The busiest thread between two passes: named "TID comm", its run time
 * over the time between the passes (the test passes the clock). */
static void busiest_thread(void)
{
    setup();
    CHECK(spawn(-1, 0) > 0);
    CHECK(spawn(0, 1) > 0);
    struct proc_tree t;
    CHECK(proc_tree_open(&t, actor_pid[0], 1) == 0);
    int64_t cpu;
    int procs;
    proc_tree_read(&t, 0, &cpu, &procs);
    CHECK(procs == 2);
    const int64_t t0 = 1000 * MS;
    proc_tree_slow(&t, t0);
    CHECK(isnan(t.top_cores));                  /* one pass: nothing to compare */
    CHECK(ask(1, 'b', 100) == 0);
    proc_tree_slow(&t, t0 + 50 * MS);           /* under 100 ms: no pass */
    CHECK(isnan(t.top_cores));
    proc_tree_slow(&t, t0 + 200 * MS);
    CHECK_NEAR(t.top_cores, 0.5, 0.06);         /* 100 ms of CPU over 200 ms */
    char want[40];
    snprintf(want, sizeof want, "%d actor1", (int)actor_pid[1]);
    CHECK_STR(t.top_name, want);
    proc_tree_close(&t);
    teardown();
}

static void open_missing_pid(void)
{
    struct proc_tree t;
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    CHECK(waitpid(pid, NULL, 0) == pid);
    errno = 0;
    CHECK(proc_tree_open(&t, pid, 1) == -1 && errno == ESRCH);
}

int main(void)
{
    /* as `flinch record -- CMD` is: orphans of the tree come to us */
    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
        printf("ok - proc_tree # SKIP no PR_SET_CHILD_SUBREAPER\n");
        return 0;
    }
    run_test("proc_tree: the tree of our command: members, CPU, reaping, orphans", tree_of_our_command);
    run_test("proc_tree: the tree of a --pid: a member gone outside keeps its time", tree_of_a_pid);
    run_test("proc_tree: the busiest thread, named, with its share of a core", busiest_thread);
    run_test("proc_tree: a pid that is gone", open_missing_pid);
    return check_exit_status();
}
