/*
 * runstat.c — runs a command and reports what it cost, for bench/.
 *
 *   runstat STATFILE CMD [ARG...]
 *
 * Runs CMD (PATH searched), waits for it with wait4() and writes one line
 * to STATFILE:
 *
 *   wall_ns=N user_us=N sys_us=N maxrss_kib=N status=N minflt=N
 *
 * status is CMD's exit status, or 128+signal; minflt its page faults that
 * needed no I/O (each first touch of a page: on a virtual machine the
 * memory's largest cost, and unlike time the same on every run). runstat
 * exits with the same status, so scripts can still check it.
 * /usr/bin/time prints CPU time in hundredths of a second, too coarse to
 * divide into microseconds per sample; wait4's rusage has microseconds.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int64_t mono_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long tv_us(struct timeval tv)
{
    return (long long)tv.tv_sec * 1000000LL + tv.tv_usec;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: runstat STATFILE CMD [ARG...]\n");
        return 2;
    }
    FILE *stat_file = fopen(argv[1], "w");
    if (!stat_file) {
        fprintf(stderr, "runstat: %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    int64_t start = mono_now_ns();
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "runstat: fork: %s\n", strerror(errno));
        return 2;
    }
    if (pid == 0) {
        fclose(stat_file);
        execvp(argv[2], argv + 2);
        fprintf(stderr, "runstat: %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    int wstatus;
    struct rusage ru;
    while (wait4(pid, &wstatus, 0, &ru) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "runstat: wait4: %s\n", strerror(errno));
            return 2;
        }
    }
    int64_t wall = mono_now_ns() - start;
    int status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
    fprintf(stat_file, "wall_ns=%lld user_us=%lld sys_us=%lld maxrss_kib=%ld status=%d minflt=%ld\n",
            (long long)wall, tv_us(ru.ru_utime), tv_us(ru.ru_stime), ru.ru_maxrss, status, ru.ru_minflt);
    if (fclose(stat_file) != 0) {
        fprintf(stderr, "runstat: %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    return status;
}
