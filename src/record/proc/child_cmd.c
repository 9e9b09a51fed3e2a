/* child_cmd.c — run, reap and report the wrapped command; see child_cmd.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child_cmd.h"
#include "diag.h"

int child_cmd_start(struct child_cmd *c, char *const argv[], const char *marks_path)
{
    memset(c, 0, sizeof *c);
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0 || setenv("FLINCH_MARKS", marks_path, 1) != 0) {
        diag_error("cannot start %s: %s", argv[0], strerror(errno));
        return EXIT_USAGE;
    }
    /* Orphans of CMD's tree re-parent to flinch rather than to init, so
     * their CPU time stays countable (proc_tree.h). Best effort. */
    (void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    pid_t pid = fork();
    if (pid < 0) {
        diag_error("cannot start %s: fork: %s", argv[0], strerror(errno));
        close(p[0]);
        close(p[1]);
        return EXIT_USAGE;
    }
    if (pid == 0) {
        /* Undo what the recorder set up for itself before CMD inherits it. */
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGXFSZ, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        close(p[0]);
        execvp(argv[0], argv);
        int err = errno;
        if (write(p[1], &err, sizeof err) != (ssize_t)sizeof err) { /* parent sees EOF */ }
        _exit(127);
    }
    close(p[1]);
    int err = 0;
    ssize_t n;
    do
        n = read(p[0], &err, sizeof err);
    while (n < 0 && errno == EINTR);
    close(p[0]);
    c->pid = pid;
    if (n == (ssize_t)sizeof err) {
        child_cmd_wait(c);
        diag_error("cannot run %s: %s", argv[0], strerror(err));
        return err == ENOENT ? 127 : 126;
    }
    return 0;
}

int child_cmd_poll(struct child_cmd *c)
{
    if (c->exited)
        return 1;
    if (c->pid <= 0)
        return 0;
    /* flinch is the subreaper of CMD's tree: orphans come to us, and are
     * reaped here too (their CPU time then counts in RUSAGE_CHILDREN). */
    int st;
    pid_t r;
    for (int n = 0; n < 1024 && (r = waitpid(-1, &st, WNOHANG)) > 0; n++)
        if (r == c->pid) {
            c->exited = 1;
            c->status = st;
        }
    return c->exited;
}

void child_cmd_wait(struct child_cmd *c)
{
    if (c->exited || c->pid <= 0)
        return;
    int st;
    pid_t r;
    do
        r = waitpid(c->pid, &st, 0);
    while (r < 0 && errno == EINTR);
    c->exited = 1;
    c->status = r == c->pid ? st : 0;
}

int child_cmd_exit_code(const struct child_cmd *c)
{
    if (WIFEXITED(c->status))
        return WEXITSTATUS(c->status);
    if (WIFSIGNALED(c->status))
        return 128 + WTERMSIG(c->status);
    return EXIT_RUNTIME;
}

int child_cmd_finish(struct child_cmd *c, const volatile sig_atomic_t *count,
                     const volatile sig_atomic_t *sig, int forwarded)
{
    while (!child_cmd_poll(c)) {
        if (*count > 1)
            return 128 + *sig;              /* a second signal: CMD is left to itself */
        if (*count > 0 && !forwarded) {
            kill(c->pid, *sig);
            forwarded = 1;
        }
        struct timespec ts = { 0, 20 * 1000 * 1000 };
        nanosleep(&ts, NULL);               /* SIGCHLD cuts it short */
    }
    return child_cmd_exit_code(c);
}
