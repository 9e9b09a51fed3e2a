/*
 * blocker.c — a test server whose threads block in known ways between
 * marks, for the thread-state tests and bench/thread_sampler_bench.sh.
 *
 *   blocker phases [MS]   one phase after another, each a window between
 *                         the marks PHASE_start and PHASE_end ($FLINCH_MARKS)
 *                         lasting MS ms (default 600): a thread named PHASE
 *                         blocks in it while the main thread ("main") sleeps
 *                         and then releases it:
 *                           accept   accept() on a loopback listening socket
 *                           recv     recv() on a connected loopback socket
 *                           epoll    epoll_wait on an epoll watching a socket
 *                           poll     poll() on a socket
 *                           condvar  pthread_cond_wait
 *                           sleep    nanosleep
 *                           pipe     read() on an empty pipe
 *                           fsync    O_DIRECT write + fsync of a file in the
 *                                    current directory, in a loop
 *                           busy     a busy loop
 *                         Each phase thread is started, and has blocked,
 *                         200 ms before its start mark, and is joined after
 *                         its end mark.
 *   blocker idle N SECONDS
 *                         N-1 threads parked on a condition variable and the
 *                         main thread asleep, for SECONDS (the cost benchmark)
 *
 * Exit 0, or 1 with a message when a socket, pipe or mark failed.
 */
#include "flinch_mark.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int released;
static atomic_int stop;
static int listen_fd, conn_fd[2], pipe_fd[2];

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static void *do_accept(void *a)
{
    (void)a;
    int fd = accept(listen_fd, NULL, NULL);
    if (fd >= 0)
        close(fd);
    return NULL;
}

static void *do_recv(void *a)
{
    (void)a;
    char c;
    if (recv(conn_fd[1], &c, 1, 0) != 1)
        die("recv");
    return NULL;
}

/* epoll_wait on an epoll instance watching one end of the socket pair
 * (the recorder reads the watched descriptors from fdinfo). */
static void *do_epoll(void *a)
{
    (void)a;
    int ep = epoll_create1(0);
    struct epoll_event ev = { .events = EPOLLIN, .data.fd = conn_fd[1] };
    if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, conn_fd[1], &ev) != 0)
        die("epoll");
    struct epoll_event got;
    while (epoll_wait(ep, &got, 1, -1) != 1)
        ;
    char c;
    if (recv(conn_fd[1], &c, 1, 0) != 1)
        die("recv after epoll");
    close(ep);
    return NULL;
}

/* poll on the same socket (the recorder reads the pollfd array). */
static void *do_poll(void *a)
{
    (void)a;
    struct pollfd p = { .fd = conn_fd[1], .events = POLLIN };
    while (poll(&p, 1, -1) != 1)
        ;
    char c;
    if (recv(conn_fd[1], &c, 1, 0) != 1)
        die("recv after poll");
    return NULL;
}

static void *do_condvar(void *a)
{
    (void)a;
    pthread_mutex_lock(&lock);
    while (!released)
        pthread_cond_wait(&cond, &lock);
    pthread_mutex_unlock(&lock);
    return NULL;
}

static void *do_sleep(void *a)
{
    sleep_ms(*(long *)a);
    return NULL;
}

static void *do_pipe(void *a)
{
    (void)a;
    char c;
    if (read(pipe_fd[0], &c, 1) != 1)
        die("read pipe");
    return NULL;
}

/* Appends 1 MiB with O_DIRECT (straight to the device: the thread waits
 * in D state, not copying into the page cache on a CPU) and fsyncs the
 * file's new size, in a loop. Without O_DIRECT (tmpfs), plain writes. */
static void *do_fsync(void *a)
{
    (void)a;
    int fd = open("blocker.fsync", O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0600);
    if (fd < 0)
        fd = open("blocker.fsync", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    void *block = NULL;
    if (fd < 0 || posix_memalign(&block, 4096, 1 << 20) != 0)
        die("blocker.fsync");
    memset(block, 'x', 1 << 20);
    while (!atomic_load(&stop)) {
        if (write(fd, block, 1 << 20) != 1 << 20)
            die("write blocker.fsync");
        fsync(fd);
    }
    close(fd);
    free(block);
    remove("blocker.fsync");
    return NULL;
}

static void *do_busy(void *a)
{
    (void)a;
    volatile unsigned long spin = 0;
    while (!atomic_load(&stop))
        spin++;
    return NULL;
}

static void mark(const char *phase, const char *edge)
{
    char label[64];
    snprintf(label, sizeof label, "%s_%s", phase, edge);
    if (flinch_mark(label) != 0)
        die(label);
}

/* Releases the phase thread at the end of its window. */
static void release(const char *phase)
{
    if (strcmp(phase, "accept") == 0) {
        struct sockaddr_in addr;
        socklen_t len = sizeof addr;
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0 || getsockname(listen_fd, (struct sockaddr *)&addr, &len) != 0 ||
            connect(fd, (struct sockaddr *)&addr, len) != 0)
            die("connect");
        close(fd);
    } else if (strcmp(phase, "recv") == 0 || strcmp(phase, "epoll") == 0 ||
               strcmp(phase, "poll") == 0) {
        if (send(conn_fd[0], "x", 1, 0) != 1)
            die("send");
    } else if (strcmp(phase, "condvar") == 0) {
        pthread_mutex_lock(&lock);
        released = 1;
        pthread_cond_signal(&cond);
        pthread_mutex_unlock(&lock);
    } else if (strcmp(phase, "pipe") == 0) {
        if (write(pipe_fd[1], "x", 1) != 1)
            die("write pipe");
    } else {
        atomic_store(&stop, 1);
    }
}

static void setup(void)
{
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    if (listen_fd < 0 || bind(listen_fd, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        listen(listen_fd, 4) != 0)
        die("listen");
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, conn_fd) != 0 || pipe(pipe_fd) != 0)
        die("socketpair/pipe");
}

static int phases(long ms)
{
    static const struct { const char *name; void *(*fn)(void *); } phase[] = {
        { "accept", do_accept }, { "recv", do_recv }, { "epoll", do_epoll }, { "poll", do_poll },
        { "condvar", do_condvar },
        { "sleep", do_sleep }, { "pipe", do_pipe }, { "fsync", do_fsync }, { "busy", do_busy },
    };
    setup();
    pthread_setname_np(pthread_self(), "main");
    for (size_t i = 0; i < sizeof phase / sizeof phase[0]; i++) {
        pthread_t t;
        long sleep_for = ms + 200;
        atomic_store(&stop, 0);
        if (pthread_create(&t, NULL, phase[i].fn, &sleep_for) != 0)
            die("pthread_create");
        pthread_setname_np(t, phase[i].name);
        sleep_ms(200);
        mark(phase[i].name, "start");
        sleep_ms(ms);
        if (strcmp(phase[i].name, "sleep") != 0)
            release(phase[i].name);
        mark(phase[i].name, "end");
        pthread_join(t, NULL);
        sleep_ms(100);
    }
    return 0;
}

static int idle(long n, long seconds)
{
    pthread_setname_np(pthread_self(), "main");
    for (long i = 1; i < n; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, do_condvar, NULL) != 0)
            die("pthread_create");
        pthread_detach(t);
    }
    sleep_ms(seconds * 1000);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "phases") == 0)
        return phases(argc > 2 ? atol(argv[2]) : 600);
    if (argc == 4 && strcmp(argv[1], "idle") == 0)
        return idle(atol(argv[2]), atol(argv[3]));
    fprintf(stderr, "usage: blocker phases [MS] | blocker idle N SECONDS\n");
    return 2;
}
