/*
 * child_cmd.h — the command `flinch record -- CMD ARGS...` wraps.
 *
 * Owns: starting CMD with FLINCH_MARKS pointing at the marks FIFO, telling
 * a failed exec apart from CMD's own failure (a close-on-exec pipe carries
 * execvp's errno back), reaping it, and turning its wait status into an
 * exit code the way shells do (status, or 128 + signal number).
 */
#ifndef FLINCH_CHILD_CMD_H
#define FLINCH_CHILD_CMD_H

#include <signal.h>
#include <sys/types.h>

struct child_cmd {
    pid_t pid;
    int exited;
    int status;      /* wait status once exited */
};

/* Starts argv[0] (PATH searched) with FLINCH_MARKS=marks_path. Returns 0,
 * or the exit code to end with (127: not found, 126: not runnable, as a
 * shell says; 2: flinch could not fork, e.g. out of descriptors) after a
 * diag_error line. */
int child_cmd_start(struct child_cmd *c, char *const argv[], const char *marks_path);

/* Reaps the child if it exited; returns 1 once it has. Never blocks. */
int child_cmd_poll(struct child_cmd *c);

/* Waits for the child to exit (restarting on signals). */
void child_cmd_wait(struct child_cmd *c);

/* Exit status as a shell reports it: N, or 128 + signal. */
int child_cmd_exit_code(const struct child_cmd *c);

/* Once the recording is over (CMD may still run: --seconds ran out, a GPU
 * was lost, the trace could not be written): waits for CMD and returns its
 * exit code, passing on the recorder's stop signals as the recording did
 * (COUNT and SIG: the recorder's handler's; FORWARDED: the first was
 * passed on already). A second signal gives up on CMD: 128 + SIG. */
int child_cmd_finish(struct child_cmd *c, const volatile sig_atomic_t *count,
                     const volatile sig_atomic_t *sig, int forwarded);

#endif
