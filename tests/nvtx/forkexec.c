/*
 * forkexec.c — a forked child that marks and then leaves without exit():
 * built against the real nvtx3 headers, run under `flinch record --nvtx`
 * by tests/e2e/nvtx_fork_exec.sh (issue 26, item 16).
 *
 *   forkexec exec N    the parent marks "parent_mark" (the bridge loads and
 *                      its writer thread starts), forks; the child marks
 *                      "child_mark" N times and execs /bin/true at once
 *   forkexec _exit N   the same, but the child ends with _exit(0), as
 *                      multiprocessing's forked workers do
 *
 * Neither exec nor _exit runs the bridge's exit flush, and exec kills any
 * thread of the child: whatever the child only queued would be lost.
 * Prints "child PID exited STATUS".
 */
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "exec") != 0 && strcmp(argv[1], "_exit") != 0)) {
        fprintf(stderr, "usage: forkexec exec|_exit N\n");
        return 2;
    }
    int n = atoi(argv[2]);
    nvtxMarkA("parent_mark");
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        for (int i = 0; i < n; i++)
            nvtxMarkA("child_mark");
        if (strcmp(argv[1], "exec") == 0) {
            execl("/bin/true", "true", (char *)NULL);
            perror("exec /bin/true");
        }
        _exit(0);
    }
    int st;
    if (waitpid(pid, &st, 0) != pid)
        return 1;
    printf("child %d exited %d\n", (int)pid, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    return 0;
}
