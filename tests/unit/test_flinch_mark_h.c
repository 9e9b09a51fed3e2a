/*
 * test_flinch_mark_h.c — the header-only C client, against a FIFO this test
 * reads itself (no recorder needed): exact bytes on the wire, the stamp,
 * every errno, SIGPIPE never delivered, and concurrent writers never torn.
 */
#include "flinch_mark.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "clock.h"
#include "mark_line.h"

static char fifo_path[256];

static void make_fifo(void)
{
    snprintf(fifo_path, sizeof fifo_path, "/tmp/flinch_test_mark_h.%d", (int)getpid());
    unlink(fifo_path);
    if (mkfifo(fifo_path, 0600) != 0) {
        perror(fifo_path);
        exit(2);
    }
}

static int open_reader(void)
{
    return open(fifo_path, O_RDONLY | O_NONBLOCK);
}

static void test_stamped_line_bytes(void)
{
    int rfd = open_reader();
    char buf[512];
    CHECK(flinch_mark_to(fifo_path, "infer_start", 123456789012LL) == 0);
    CHECK(check_drain_fifo(rfd, buf, sizeof buf) == 26);
    CHECK_STR(buf, "\ninfer_start\t123456789012\n");
    CHECK(flinch_mark_to(fifo_path, "a b,\"c\"", 1) == 0);
    check_drain_fifo(rfd, buf, sizeof buf);
    CHECK_STR(buf, "\na b,\"c\"\t1\n");
    CHECK(flinch_mark_to(fifo_path, "max", 9223372036854775807LL) == 0);
    check_drain_fifo(rfd, buf, sizeof buf);
    CHECK_STR(buf, "\nmax\t9223372036854775807\n");
    close(rfd);
}

static void test_env_and_now(void)
{
    int rfd = open_reader();
    char buf[512];
    setenv("FLINCH_MARKS", fifo_path, 1);
    CHECK_STR(flinch_mark_fifo_path(), fifo_path);
    int64_t before = mono_ns();
    CHECK(flinch_mark("now") == 0);
    int64_t after = mono_ns();
    size_t n = check_drain_fifo(rfd, buf, sizeof buf);
    CHECK(n > 1 && buf[0] == '\n' && buf[n - 1] == '\n');
    struct mark_line m;
    CHECK(mark_line_parse(buf + 1, n - 2, &m) == MARK_LINE_OK);
    CHECK_STR(m.label, "now");
    CHECK(m.has_stamp && m.stamp_ns >= before && m.stamp_ns <= after);

    CHECK(flinch_mark_at("at", 777) == 0);
    check_drain_fifo(rfd, buf, sizeof buf);
    CHECK_STR(buf, "\nat\t777\n");

    setenv("FLINCH_MARKS", "", 1);
    CHECK_STR(flinch_mark_fifo_path(), "/tmp/flinch_marks");
    unsetenv("FLINCH_MARKS");
    CHECK_STR(flinch_mark_fifo_path(), "/tmp/flinch_marks");
    close(rfd);
}

static void test_errors(void)
{
    errno = 0;
    CHECK(flinch_mark_to(fifo_path, "x", 5) == -1 && errno == ENXIO);   /* no reader */
    errno = 0;
    CHECK(flinch_mark_to("/nonexistent/flinch/fifo", "x", 5) == -1 && errno == ENOENT);

    char file[300];
    snprintf(file, sizeof file, "%s.file", fifo_path);
    FILE *f = fopen(file, "w");
    fputs("keep", f);
    fclose(f);
    errno = 0;
    CHECK(flinch_mark_to(file, "x", 5) == -1 && errno == ENOTSUP);
    struct stat st;
    CHECK(stat(file, &st) == 0 && st.st_size == 4);     /* untouched */
    unlink(file);
    errno = 0;
    CHECK(flinch_mark_to("/dev/null", "x", 5) == -1 && errno == ENOTSUP);

    /* label and stamp rules are checked before anything is opened */
    char long_label[FLINCH_MARK_LABEL_MAX + 2];
    memset(long_label, 'a', sizeof long_label - 1);
    long_label[sizeof long_label - 1] = '\0';
    static const char *const bad[] = { "", "   ", "a\tb", "a\nb", "a\rb", "\x7f", "\x1b[2J" };
    int rfd = open_reader();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        errno = 0;
        if (!CHECK(flinch_mark_to(fifo_path, bad[i], 5) == -1 && errno == EINVAL))
            fprintf(stderr, "    bad label #%zu\n", i);
    }
    errno = 0;
    CHECK(flinch_mark_to(fifo_path, long_label, 5) == -1 && errno == EINVAL);
    long_label[FLINCH_MARK_LABEL_MAX] = '\0';           /* exactly 256: fine */
    CHECK(flinch_mark_to(fifo_path, long_label, 5) == 0);
    errno = 0;
    CHECK(flinch_mark_to(fifo_path, "x", 0) == -1 && errno == EINVAL);
    CHECK(flinch_mark_to(fifo_path, "x", -1) == -1 && errno == EINVAL);
    CHECK(flinch_mark_to(fifo_path, NULL, 1) == -1 && errno == EINVAL);
    CHECK(flinch_mark_to(NULL, "x", 1) == -1 && errno == EINVAL);
    char buf[1024];
    size_t n = check_drain_fifo(rfd, buf, sizeof buf);
    CHECK(n == FLINCH_MARK_LABEL_MAX + 4);              /* only the good one */
    close(rfd);
}

/* A reader that vanished: EPIPE, and the process is still alive. */
static void test_no_sigpipe(void)
{
    int p[2];
    CHECK(pipe(p) == 0);
    close(p[0]);
    errno = 0;
    CHECK(flinch_mark_write_nosigpipe(p[1], "x\t1\n", 4) == -1 && errno == EPIPE);
    sigset_t pending;
    sigpending(&pending);
    CHECK(sigismember(&pending, SIGPIPE) == 0);         /* consumed */

    /* a SIGPIPE the caller already had pending (blocked) stays pending */
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    raise(SIGPIPE);
    CHECK(flinch_mark_write_nosigpipe(p[1], "x\t1\n", 4) == -1 && errno == EPIPE);
    sigpending(&pending);
    CHECK(sigismember(&pending, SIGPIPE) == 1);
    struct timespec zero = { 0, 0 };
    CHECK(sigtimedwait(&pipe_set, NULL, &zero) == SIGPIPE);
    sigpending(&pending);
    CHECK(sigismember(&pending, SIGPIPE) == 0);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    /* and the caller's mask is restored */
    sigset_t now;
    pthread_sigmask(SIG_SETMASK, NULL, &now);
    CHECK(sigismember(&now, SIGPIPE) == sigismember(&old, SIGPIPE));
    close(p[1]);
}

/* A recorder that holds the FIFO but does not read (SIGSTOP): once the
 * pipe is full the call returns EAGAIN at once instead of waiting. */
static void test_full_pipe_never_waits(void)
{
    int rfd = open_reader();
    int filler = open(fifo_path, O_WRONLY | O_NONBLOCK);
    char junk[4096];
    memset(junk, 'j', sizeof junk);
    while (write(filler, junk, sizeof junk) > 0)
        ;
    while (write(filler, junk, 1) > 0)
        ;
    int64_t t0 = mono_ns();
    errno = 0;
    CHECK(flinch_mark_to(fifo_path, "late", 5) == -1 && errno == EAGAIN);
    CHECK(mono_ns() - t0 < 1000000000LL);
    close(filler);
    close(rfd);
}

#define WRITERS 8
#define PER_WRITER 400

static void *writer(void *arg)
{
    int id = (int)(long)arg;
    char label[64];
    for (int i = 0; i < PER_WRITER; i++) {
        /* long labels make a torn write likely if writes were not atomic */
        snprintf(label, sizeof label, "w%d-m%d-%s", id, i, "padpadpadpadpadpadpadpadpadpad");
        int rc;
        /* never blocks: a full pipe is EAGAIN, and this test's writers
         * wait for the reader themselves */
        while ((rc = flinch_mark_to(fifo_path, label, 1000 + i)) != 0 && errno == EAGAIN)
            usleep(200);
        if (rc != 0)
            return (void *)1;
    }
    return NULL;
}

static void test_concurrent_writers_not_torn(void)
{
    int rfd = open(fifo_path, O_RDONLY | O_NONBLOCK);
    int keep = open(fifo_path, O_WRONLY);   /* no EOF while writers come and go */
    fcntl(rfd, F_SETFL, fcntl(rfd, F_GETFL) & ~O_NONBLOCK);
    pthread_t threads[WRITERS];
    for (long i = 0; i < WRITERS; i++)
        pthread_create(&threads[i], NULL, writer, (void *)i);

    static char seen[WRITERS][PER_WRITER];
    memset(seen, 0, sizeof seen);
    int lines = 0, bad = 0;
    char buf[8192], line[512];
    size_t line_len = 0;
    while (lines + bad < WRITERS * PER_WRITER) {
        ssize_t n = read(rfd, buf, sizeof buf);
        if (n <= 0)
            break;
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] != '\n') {
                if (line_len < sizeof line)
                    line[line_len++] = buf[i];
                continue;
            }
            if (line_len == 0)      /* the newline each write starts with */
                continue;
            struct mark_line m;
            int id, k;
            char pad[64];
            if (mark_line_parse(line, line_len, &m) == MARK_LINE_OK
                && sscanf(m.label, "w%d-m%d-%63s", &id, &k, pad) == 3
                && id >= 0 && id < WRITERS && k >= 0 && k < PER_WRITER
                && strcmp(pad, "padpadpadpadpadpadpadpadpadpad") == 0
                && m.stamp_ns == 1000 + k && !seen[id][k]) {
                seen[id][k] = 1;
                lines++;
            } else {
                bad++;
            }
            line_len = 0;
        }
    }
    int failed_writers = 0;
    for (int i = 0; i < WRITERS; i++) {
        void *ret;
        pthread_join(threads[i], &ret);
        failed_writers += ret != NULL;
    }
    CHECK(failed_writers == 0);
    CHECK(bad == 0);
    CHECK(lines == WRITERS * PER_WRITER);
    CHECK(line_len == 0);
    close(keep);
    close(rfd);
}

int main(void)
{
    make_fifo();
    run_test("client-stamped line, exact bytes", test_stamped_line_bytes);
    run_test("FLINCH_MARKS and the stamp of flinch_mark()", test_env_and_now);
    run_test("errors: ENXIO ENOENT ENOTSUP EINVAL", test_errors);
    run_test("EPIPE without SIGPIPE", test_no_sigpipe);
    run_test("a full pipe is EAGAIN, never a wait", test_full_pipe_never_waits);
    run_test("concurrent writers never torn", test_concurrent_writers_not_torn);
    unlink(fifo_path);
    return check_exit_status();
}
