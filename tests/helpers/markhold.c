/*
 * markhold.c — writers that hold the marks FIFO open and flood it while
 * the recorder stops, and the check that nothing written before the stop
 * is missing (issue 9, item 1).
 *
 *   markhold write FIFO N REPORT
 *       forks N writers; each opens FIFO once and writes "\nfw<i>-<seq>\tT\n"
 *       (T: CLOCK_MONOTONIC before the write) as fast as it can, retrying a
 *       full pipe (EAGAIN), until a write fails (EPIPE: the recorder closed
 *       its end) or 30 s pass. Writer i keeps the (seq, time the write
 *       returned) of its last 65536 successful writes and saves them to
 *       REPORT.i. Exit 0 when every writer ended on EPIPE.
 *   markhold check TRACE REPORT N
 *       stop = t_mono_ns of the recorder's `end` row (empty arrival). For
 *       each writer: every seq whose write returned before stop must be a
 *       MARK row, exactly once; prints one line per writer and exits 1 if
 *       any is missing or duplicated. Writes that returned after stop and
 *       are missing raced the close itself; they are counted, not failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RING 65536

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int writer(const char *fifo, int id, const char *report)
{
    static long long ring_seq[RING], ring_t[RING];
    long long n_ok = 0;
    int fd = open(fifo, O_WRONLY | O_NONBLOCK);
    if (fd < 0) {
        fprintf(stderr, "markhold: writer %d: open: %s\n", id, strerror(errno));
        return 1;
    }
    long long deadline = now_ns() + 30000000000LL, seq = 1;
    int rc = 1;
    while (now_ns() < deadline) {
        char line[96];
        int len = snprintf(line, sizeof line, "\nfw%d-%lld\t%lld\n", id, seq, now_ns());
        ssize_t w = write(fd, line, (size_t)len);
        if (w == len) {
            ring_seq[n_ok % RING] = seq;
            ring_t[n_ok % RING] = now_ns();
            n_ok++;
            seq++;
            continue;
        }
        if (w < 0 && errno == EAGAIN) {
            struct timespec ts = { 0, 20000 };
            nanosleep(&ts, NULL);
            continue;
        }
        if (w < 0 && errno == EPIPE)
            rc = 0;
        else
            fprintf(stderr, "markhold: writer %d: write: %s\n", id, w < 0 ? strerror(errno) : "short");
        break;
    }
    close(fd);
    char path[4096];
    snprintf(path, sizeof path, "%s.%d", report, id);
    FILE *f = fopen(path, "w");
    if (!f)
        return 1;
    long long first = n_ok > RING ? n_ok - RING : 0;
    for (long long k = first; k < n_ok; k++)
        fprintf(f, "%lld %lld\n", ring_seq[k % RING], ring_t[k % RING]);
    fclose(f);
    return rc;
}

static int cmd_write(const char *fifo, int n, const char *report)
{
    signal(SIGPIPE, SIG_IGN);
    for (int i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid == 0)
            _exit(writer(fifo, i, report));
        if (pid < 0)
            return 1;
    }
    int bad = 0, st;
    while (wait(&st) > 0)
        bad += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
    return bad ? 1 : 0;
}

/* Splits a CSV line naively (the labels checked here hold no commas). */
static int split(char *line, char **f, int max)
{
    int n = 0;
    f[n++] = line;
    for (char *p = line; *p && n < max; p++)
        if (*p == ',') {
            *p = '\0';
            f[n++] = p + 1;
        }
    return n;
}

static void unquote(char **s)
{
    size_t n = strlen(*s);
    if (n >= 2 && (*s)[0] == '"' && (*s)[n - 1] == '"') {
        (*s)[n - 1] = '\0';
        (*s)++;
    }
}

static int cmd_check(const char *trace, const char *report, int n)
{
    long long *max_seq = calloc((size_t)n, sizeof *max_seq);
    unsigned char **seen = calloc((size_t)n, sizeof *seen);
    long long stop = 0;
    char path[4096], line[8192];
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s.%d", report, i);
        FILE *f = fopen(path, "r");
        long long s, t;
        while (f && fscanf(f, "%lld %lld", &s, &t) == 2)
            if (s > max_seq[i])
                max_seq[i] = s;
        if (f)
            fclose(f);
        seen[i] = calloc((size_t)max_seq[i] + 2, 1);
    }
    FILE *tf = fopen(trace, "r");
    if (!tf) {
        perror(trace);
        return 2;          /* the test fails; what is still allocated does not matter */
    }
    long long dup = 0, unknown = 0;
    while (fgets(line, sizeof line, tf)) {
        line[strcspn(line, "\n")] = '\0';
        char *f[32];
        int nf = split(line, f, 32);
        if (nf < 20 || strcmp(f[2], "MARK") != 0)
            continue;
        unquote(&f[3]);
        int id;
        long long seq;
        if (strcmp(f[3], "end") == 0 && f[19][0] == '\0') {
            stop = atoll(f[0]);
        } else if (sscanf(f[3], "fw%d-%lld", &id, &seq) == 2) {
            if (id < 0 || id >= n || seq < 1 || seq > max_seq[id] + 1)
                unknown++;
            else if (seen[id][seq]++)
                dup++;
        }
    }
    fclose(tf);
    int bad = dup || unknown;
    if (!stop) {
        printf("no end row in %s\n", trace);
        bad = 1;
    }
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s.%d", report, i);
        FILE *f = fopen(path, "r");
        long long s, t, before = 0, missing = 0, after = 0, after_lost = 0;
        while (f && fscanf(f, "%lld %lld", &s, &t) == 2) {
            if (t < stop) {
                before = s;
            } else {
                after++;
                after_lost += !seen[i][s];
            }
        }
        if (f)
            fclose(f);
        for (long long k = 1; k <= before; k++)
            missing += !seen[i][k];
        printf("writer %d: %lld written before the stop, %lld of them missing; %lld written "
               "after it (raced the close), %lld of those lost\n", i, before, missing, after,
               after_lost);
        if (missing || before == 0)
            bad = 1;
    }
    printf("duplicates %lld, unknown %lld\n", dup, unknown);
    for (int i = 0; i < n; i++)
        free(seen[i]);
    free(seen);
    free(max_seq);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "write") == 0)
        return cmd_write(argv[2], atoi(argv[3]), argv[4]);
    if (argc == 5 && strcmp(argv[1], "check") == 0)
        return cmd_check(argv[2], argv[3], atoi(argv[4]));
    fprintf(stderr, "usage: markhold write FIFO N REPORT | check TRACE REPORT N\n");
    return 2;
}
