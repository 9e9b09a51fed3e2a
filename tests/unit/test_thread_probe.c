/*
 * test_thread_probe.c — thread_probe() on a fake /proc (its proc_root
 * argument): a thread whose system call file is refused (EACCES, as Yama's
 * ptrace_scope=1 refuses it for --pid) falls back to state and wait
 * channel, says so once through its denied bits and does not try the file
 * again; a kernel without the file at all is the same fallback, not a
 * thread that is gone; a thread whose directory is gone is. Refusal needs
 * an unprivileged reader (root reads a mode-000 file), so the probe runs in
 * a child that drops to uid/gid 65534 when the test runs as root.
 */
#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "syscall_table.h"
#include "thread_class.h"
#include "thread_probe.h"

#define PID 4242
#define TID 4243

static char root[64];

static void put(const char *name, const char *text, mode_t mode)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%d/task/%d/%s", root, PID, TID, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs(text, f);
    fclose(f);
    CHECK(chmod(path, mode) == 0);
}

/* Sets the mode of the fake thread's file NAME. */
static void set_mode(const char *name, mode_t mode)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%d/task/%d/%s", root, PID, TID, name);
    CHECK(chmod(path, mode) == 0);
}

/* A sleeping thread in clock_nanosleep, every file readable. */
static void make_thread(void)
{
    snprintf(root, sizeof root, "/tmp/flinch_probe_XXXXXX");
    CHECK(mkdtemp(root) != NULL);
    CHECK(chmod(root, 0755) == 0);
    char path[256];
    snprintf(path, sizeof path, "%s/%d", root, PID);
    CHECK(mkdir(path, 0755) == 0);
    snprintf(path, sizeof path, "%s/%d/task", root, PID);
    CHECK(mkdir(path, 0755) == 0);
    snprintf(path, sizeof path, "%s/%d/task/%d", root, PID, TID);
    CHECK(mkdir(path, 0755) == 0);
    put("schedstat", "1000 0 5\n", 0644);
    put("stat", "4243 (worker) S 4242 4242 1 0 -1 4194304 0 0 0 0\n", 0644);
    put("wchan", "hrtimer_nanosleep", 0644);
    char sys[128];
    snprintf(sys, sizeof sys, "%ld 0x1 0x0 0x7ffd1000 0x0 0x0 0x0 0x7ffd0f00 0x7f0000001234\n",
             syscall_number(SYSCALL_ARCH_X86_64, "clock_nanosleep"));
    put("syscall", sys, 0644);
}

static void remove_thread(void)
{
    const char *names[] = { "schedstat", "stat", "wchan", "syscall" };
    char path[256];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%d/task/%d/%s", root, PID, TID, names[i]);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/%d/task/%d", root, PID, TID);
    rmdir(path);
    snprintf(path, sizeof path, "%s/%d/task", root, PID);
    rmdir(path);
    snprintf(path, sizeof path, "%s/%d", root, PID);
    rmdir(path);
    rmdir(root);
}

struct probe_result {
    int rc;
    unsigned denied;
    struct thread_state st;
};

/* Probes the fake thread with fresh files and the denied bits given, in a
 * child that is unprivileged (so a mode-000 file is refused as the kernel
 * refuses /proc files). -1 in rc when the child could not drop root. */
static struct probe_result probe(unsigned denied)
{
    struct probe_result r = { -2, denied, { "", 0, "", "", "" } };
    int p[2];
    if (pipe(p) != 0)
        return r;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        if (geteuid() == 0 && (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0))
            _exit(3);
        struct thread_files files;
        thread_files_init(&files);
        r.rc = thread_probe(root, PID, TID, SYSCALL_ARCH_X86_64, &r.denied, &files, NULL, &r.st);
        thread_files_close(&files);
        _exit(write(p[1], &r, sizeof r) == sizeof r ? 0 : 4);
    }
    close(p[1]);
    int status = 0;
    if (pid > 0 && read(p[0], &r, sizeof r) != sizeof r)
        r.rc = -3;
    close(p[0]);
    if (pid > 0)
        waitpid(pid, &status, 0);
    return r;
}

static void readable_syscall(void)
{
    make_thread();
    struct probe_result r = probe(0);
    CHECK(r.rc == 0);
    CHECK(r.denied == 0);
    CHECK_STR(r.st.name, "worker");
    CHECK(r.st.state == 'S');
    CHECK_STR(r.st.wchan, "hrtimer_nanosleep");
    CHECK_STR(r.st.call, "clock_nanosleep");
    CHECK_STR(r.st.fd, "-");
    remove_thread();
}

/* Refused (EACCES): "?" for the call, the wait channel still read, the
 * bit set; with the bit carried over (the sampler keeps it per process)
 * the file is not tried again even once it could be read. */
static void refused_syscall(void)
{
    make_thread();
    set_mode("syscall", 0);
    struct probe_result r = probe(0);
    CHECK(r.rc == 0);
    CHECK(r.denied == PROBE_NO_SYSCALL);
    CHECK(r.st.state == 'S');
    CHECK_STR(r.st.wchan, "hrtimer_nanosleep");
    CHECK_STR(r.st.call, "?");
    CHECK_STR(r.st.fd, "-");
    char detail[96];
    CHECK(thread_classify(r.st.state, r.st.wchan, r.st.call, r.st.fd, detail, sizeof detail) == TC_SLEEP);
    CHECK_STR(detail, "wchan hrtimer_nanosleep");

    set_mode("syscall", 0644);
    r = probe(PROBE_NO_SYSCALL);
    CHECK(r.rc == 0);
    CHECK(r.denied == PROBE_NO_SYSCALL);
    CHECK_STR(r.st.call, "?");
    remove_thread();
}

/* A kernel without the file: the same fallback with its own bit, and the
 * thread is not reported gone (it was, at every sweep, before). */
static void missing_syscall_file(void)
{
    make_thread();
    char path[256];
    snprintf(path, sizeof path, "%s/%d/task/%d/syscall", root, PID, TID);
    CHECK(unlink(path) == 0);
    struct probe_result r = probe(0);
    CHECK(r.rc == 0);
    CHECK(r.denied == PROBE_NO_SYSCALL_FILE);
    CHECK_STR(r.st.wchan, "hrtimer_nanosleep");
    CHECK_STR(r.st.call, "?");
    r = probe(r.denied);
    CHECK(r.rc == 0 && r.denied == PROBE_NO_SYSCALL_FILE);
    remove_thread();
}

/* A wait channel refused as well (another user's process): state only. */
static void refused_wchan_too(void)
{
    make_thread();
    set_mode("syscall", 0);
    set_mode("wchan", 0);
    struct probe_result r = probe(0);
    CHECK(r.rc == 0);
    CHECK(r.denied == (PROBE_NO_SYSCALL | PROBE_NO_WCHAN));
    CHECK_STR(r.st.wchan, "-");
    CHECK_STR(r.st.call, "?");
    char detail[96];
    CHECK(thread_classify(r.st.state, r.st.wchan, r.st.call, r.st.fd, detail, sizeof detail) == TC_OTHER);
    CHECK_STR(detail, "state S");
    remove_thread();
}

static void thread_gone(void)
{
    make_thread();
    remove_thread();
    struct probe_result r = probe(0);
    CHECK(r.rc == -1);
}

int main(void)
{
    make_thread();
    struct probe_result r = probe(0);
    remove_thread();
    if (r.rc != 0) {
        printf("ok - thread probe fallbacks # SKIP cannot probe as an unprivileged user (%d)\n", r.rc);
        return 0;
    }
    run_test("thread probe: every file readable", readable_syscall);
    run_test("thread probe: syscall refused: state and wait channel, not tried again", refused_syscall);
    run_test("thread probe: no syscall file in the kernel: the same fallback, thread kept", missing_syscall_file);
    run_test("thread probe: syscall and wchan refused: state only", refused_wchan_too);
    run_test("thread probe: thread directory gone", thread_gone);
    return check_exit_status();
}
