/*
 * markclient.c — a mark writer built on include/flinch_mark.h, for the
 * end-to-end tests and bench/mark_latency.sh.
 *
 *   markclient LABEL...            flinch_mark() each label ($FLINCH_MARKS)
 *   markclient --at NS LABEL       flinch_mark_at()
 *   markclient --writers N --count M
 *                                  fork N processes; writer i sends M marks
 *                                  "w<i>-m<j>" with flinch_mark(); all start
 *                                  together so their writes collide
 *   markclient --raw-us US --count M [--prefix P]
 *                                  latency mode: open the FIFO once, then M
 *                                  times: stamp CLOCK_MONOTONIC, write()
 *                                  "P<j>\tSTAMP\n" at once, sleep US
 *   markclient --wait-reader MS    wait up to MS ms until a reader has the
 *                                  FIFO open (writes nothing); exit 1 if not
 *   markclient --now               print CLOCK_MONOTONIC ns
 *
 * Exit 0 when every mark was written; 1 with "markclient: LABEL: strerror"
 * otherwise.
 */
#include "flinch_mark.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_us(long us)
{
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static int send_one(const char *label, int have_at, long long at)
{
    int rc = have_at ? flinch_mark_at(label, at) : flinch_mark(label);
    if (rc != 0)
        fprintf(stderr, "markclient: %s: %s\n", label, strerror(errno));
    return rc;
}

static int run_writer(int id, int count, int start_fd)
{
    char go;
    if (read(start_fd, &go, 1) != 0)    /* EOF from the parent: start */
        return 1;
    for (int j = 0; j < count; j++) {
        char label[64];
        snprintf(label, sizeof label, "w%d-m%d", id, j);
        if (send_one(label, 0, 0) != 0)
            return 1;
    }
    return 0;
}

static int run_writers(int writers, int count)
{
    int start[2];
    if (pipe(start) != 0)
        return 1;
    for (int i = 0; i < writers; i++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("markclient: fork");
            return 1;
        }
        if (pid == 0) {
            close(start[1]);
            _exit(run_writer(i, count, start[0]));
        }
    }
    close(start[0]);
    close(start[1]);                    /* every writer starts now */
    int failed = 0, status;
    while (wait(&status) > 0)
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            failed++;
    if (failed)
        fprintf(stderr, "markclient: %d of %d writers failed\n", failed, writers);
    return failed ? 1 : 0;
}

/* Stamp, then write() straight away: what is left is the recorder's delay. */
static int run_raw(long spacing_us, int count, const char *prefix)
{
    const char *path = flinch_mark_fifo_path();
    int fd = open(path, O_WRONLY);
    if (fd < 0) {
        fprintf(stderr, "markclient: %s: %s\n", path, strerror(errno));
        return 1;
    }
    for (int j = 0; j < count; j++) {
        char line[128];
        long long t = now_ns();
        int n = snprintf(line, sizeof line, "%s%d\t%lld\n", prefix, j, t);
        if (write(fd, line, (size_t)n) != n) {
            fprintf(stderr, "markclient: write: %s\n", strerror(errno));
            return 1;
        }
        if (spacing_us > 0)
            sleep_us(spacing_us);
    }
    close(fd);
    return 0;
}

static int wait_reader(long ms)
{
    const char *path = flinch_mark_fifo_path();
    long long deadline = now_ns() + ms * 1000000LL;
    do {
        int fd = open(path, O_WRONLY | O_NONBLOCK);
        if (fd >= 0) {
            close(fd);
            return 0;
        }
        sleep_us(10000);
    } while (now_ns() < deadline);
    fprintf(stderr, "markclient: no reader on %s after %ld ms\n", path, ms);
    return 1;
}

int main(int argc, char **argv)
{
    static const struct option options[] = {
        { "at",          required_argument, NULL, 'a' },
        { "writers",     required_argument, NULL, 'w' },
        { "count",       required_argument, NULL, 'c' },
        { "raw-us",      required_argument, NULL, 'r' },
        { "prefix",      required_argument, NULL, 'p' },
        { "wait-reader", required_argument, NULL, 'W' },
        { "now",         no_argument,       NULL, 'n' },
        { NULL, 0, NULL, 0 }
    };
    long long at = 0;
    int have_at = 0;
    int writers = 0, count = 1;
    long raw_us = -1;
    const char *prefix = "lat-";
    int opt;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (opt) {
        case 'a': at = atoll(optarg); have_at = 1; break;
        case 'w': writers = atoi(optarg); break;
        case 'c': count = atoi(optarg); break;
        case 'r': raw_us = atol(optarg); break;
        case 'p': prefix = optarg; break;
        case 'W': return wait_reader(atol(optarg));
        case 'n': printf("%lld\n", now_ns()); return 0;
        default:  return 2;
        }
    }
    if (writers > 0)
        return run_writers(writers, count);
    if (raw_us >= 0)
        return run_raw(raw_us, count, prefix);
    if (optind == argc) {
        fprintf(stderr, "usage: see tests/helpers/markclient.c\n");
        return 2;
    }
    int failed = 0;
    for (int i = optind; i < argc; i++)
        failed |= send_one(argv[i], have_at, at) != 0;
    return failed;
}
