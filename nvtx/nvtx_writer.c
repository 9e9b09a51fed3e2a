/* nvtx_writer.c — the bridge's ring of lines and the thread that writes them; see nvtx_writer.h. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nvtx_emit.h"
#include "nvtx_writer.h"

#define MASK (NVTX_WRITER_CELLS - 1)
#define POLL_NS 5000000L                /* while marks flow: drain every 5 ms, */
#define FAST_POLL_NS 1000000L           /* every 1 ms when a drain moved this many: */
#define FAST_LINES (NVTX_WRITER_CELLS / 8)
#define IDLE_POLLS 4                    /* after 4 empty polls, sleep until a mark */
#define STACK_BYTES (64 * 1024)

_Static_assert((NVTX_WRITER_CELLS & MASK) == 0, "NVTX_WRITER_CELLS is a power of two");
_Static_assert(NVTX_LINE_MAX <= PIPE_BUF, "a line fits in one atomic write");

enum { W_NONE, W_STARTING, W_RUNNING, W_OFF };

/*
 * The ring is Vyukov's bounded queue: cell i is free for the producer at
 * position p when seqs[i] == p, holds a line for the consumer when
 * seqs[i] == p + 1, and is handed back for the next lap with p + CELLS.
 * A producer claims a position with one compare-and-swap on enq_pos and
 * publishes the line with a release store: no lock, no waiting, a full
 * ring is seen at once. The sequence numbers live apart from the lines so
 * that readying the ring touches 16 KiB, not the 1 MiB of lines.
 */
static atomic_size_t seqs[NVTX_WRITER_CELLS];
static uint16_t lens[NVTX_WRITER_CELLS];
static char lines[NVTX_WRITER_CELLS][NVTX_LINE_MAX];
static atomic_size_t enq_pos, deq_pos;
static atomic_size_t done_pos;          /* lines before it are written or counted */

static atomic_int state = W_OFF;        /* W_OFF until nvtx_writer_init */
static int thread_allowed;
static sem_t wake;
static atomic_int sleeping;             /* the writer waits on wake */
static atomic_int exiting;
static atomic_int thread_up;            /* the writer thread runs its own code */

static void reset_ring(void)
{
    for (size_t i = 0; i < NVTX_WRITER_CELLS; i++)
        atomic_store_explicit(&seqs[i], i, memory_order_relaxed);
    atomic_store(&enq_pos, 0);
    atomic_store(&deq_pos, 0);
    atomic_store(&done_pos, 0);
    atomic_store(&sleeping, 0);
    atomic_store(&exiting, 0);
    atomic_store(&thread_up, 0);
    sem_init(&wake, 0, 0);
}

void nvtx_writer_init(void)
{
    const char *v = getenv("FLINCH_NVTX_THREAD");
    thread_allowed = !(v && strcmp(v, "0") == 0);
    reset_ring();
    atomic_store(&state, thread_allowed ? W_NONE : W_OFF);
}

/*
 * A forked child writes each mark itself, at once, for the rest of its
 * life. A child usually ends in exec (which kills every thread but the
 * caller, the writer with its queue) or _exit (multiprocessing's workers,
 * os._exit): neither runs the exit flush, and exec cannot be seen from
 * here without interposing execve, which a library NVTX dlopens cannot do.
 * A writer thread of the child's own lost the marks it had not written
 * yet (3 of 10 in issue 26); a write per mark loses none. The cost, a
 * system call per mark in the child, is the bridge's old behaviour.
 */
void nvtx_writer_after_fork(void)
{
    reset_ring();
    atomic_store(&state, W_OFF);
}

int nvtx_writer_running(void) { return atomic_load(&state) == W_RUNNING; }

/*
 * A fork() while the writer thread is still being set up by the C library
 * (or a sanitizer's runtime, which allocates for it) can leave the child
 * an allocator lock that thread held, and the child's first malloc then
 * waits for ever: glibc's own malloc is safe across fork, an older
 * AddressSanitizer's is not. The window is the thread's first
 * microseconds, so fork waits for them to pass: at most
 * NVTX_WRITER_FORK_WAIT_MS, and only when the first mark and a fork race.
 */
void nvtx_writer_before_fork(void)
{
    struct timespec nap_ts = { 0, 100000 };     /* 100 us */
    for (int i = 0; i < NVTX_WRITER_FORK_WAIT_MS * 10; i++) {
        int st = atomic_load(&state);
        if ((st != W_STARTING && st != W_RUNNING) || atomic_load(&thread_up))
            return;
        nanosleep(&nap_ts, NULL);
    }
}

/* Takes the next line off the ring into out (room for NVTX_LINE_MAX);
 * its length, or 0 when the ring is empty or its head is not published
 * yet. Any thread may call it (the writer; without one, the exit flush). */
static size_t take(char *out, size_t room)
{
    size_t pos = atomic_load_explicit(&deq_pos, memory_order_relaxed);
    for (;;) {
        size_t i = pos & MASK;
        size_t seq = atomic_load_explicit(&seqs[i], memory_order_acquire);
        intptr_t dif = (intptr_t)seq - (intptr_t)(pos + 1);
        if (dif < 0)
            return 0;
        if (dif > 0) {
            pos = atomic_load_explicit(&deq_pos, memory_order_relaxed);
            continue;
        }
        if (lens[i] > room)
            return 0;                   /* the caller's batch is full: leave it */
        if (atomic_compare_exchange_weak_explicit(&deq_pos, &pos, pos + 1, memory_order_relaxed,
                                                  memory_order_relaxed)) {
            size_t len = lens[i];
            memcpy(out, lines[i], len);
            atomic_store_explicit(&seqs[i], pos + NVTX_WRITER_CELLS, memory_order_release);
            return len;
        }
    }
}

struct batch {
    char buf[PIPE_BUF];
    size_t len;
    long long count;                    /* lines in buf */
    size_t upto;                        /* deq_pos after its last line */
};

/* Writes batches until the ring is empty or the pipe is full (the batch
 * then waits in b for the next try: a stopped reader costs the ring's
 * room, never the application's time). Lines that cannot be written
 * because nobody reads are counted as undelivered. Returns the lines
 * moved. */
static long long pump(struct batch *b)
{
    long long moved = 0;
    for (;;) {
        size_t n;
        while ((n = take(b->buf + b->len, sizeof b->buf - b->len)) > 0) {
            b->len += n;
            b->count++;
            b->upto = atomic_load(&deq_pos);
        }
        if (b->len == 0)
            return moved;
        if (nvtx_emit_send(b->buf, b->len, nvtx_now_ns()) != 0) {
            if (errno == EAGAIN)
                return moved;
            nvtx_emit_count(NVTX_DROP_UNDELIVERED, b->count);
        }
        moved += b->count;
        atomic_store(&done_pos, b->upto);
        b->len = 0;
        b->count = 0;
    }
}

static int ring_has_line(void)
{
    size_t pos = atomic_load(&deq_pos);
    return atomic_load(&seqs[pos & MASK]) == pos + 1;
}

static void nap(long ns)
{
    struct timespec ts = { 0, ns };
    nanosleep(&ts, NULL);
}

/*
 * The writer: drains every 5 ms while marks flow (so a burst becomes a
 * few writes; each wake-up of a thread costs some 10-20 us of CPU on a
 * VM), every 1 ms when the last drain found the ring an eighth full (the
 * ring then holds 2048 lines for 1 ms: about 2 million marks a second,
 * far more than a recorder takes), and after IDLE_POLLS empty polls sleeps on a
 * semaphore that the next mark posts. Lost wake-ups are impossible: the
 * writer announces `sleeping` and then looks at the ring, a producer
 * publishes its line and then looks at `sleeping` (both sequentially
 * consistent), so at least one of them sees the other. It wakes at least
 * once a second anyway to send the drop counts.
 */
static void *writer_main(void *arg)
{
    (void)arg;
    nvtx_emit_in_writer_thread();
    atomic_store(&thread_up, 1);
    struct batch b;                     /* 4 KiB of the 64 KiB stack */
    b.len = 0;
    b.count = 0;
    int idle = 0;
    for (;;) {
        long long moved = pump(&b);
        nvtx_emit_report_due(nvtx_now_ns());
        if (moved || b.len || atomic_load(&exiting) || ++idle < IDLE_POLLS) {
            if (moved)
                idle = 0;
            nap(moved >= FAST_LINES || atomic_load(&exiting) ? FAST_POLL_NS : POLL_NS);
            continue;
        }
        atomic_store(&sleeping, 1);
        if (ring_has_line()) {
            atomic_store(&sleeping, 0);
            continue;
        }
        struct timespec dl;
        clock_gettime(CLOCK_REALTIME, &dl);
        dl.tv_sec += 1;
        if (sem_timedwait(&wake, &dl) == 0)
            idle = 0;
        atomic_store(&sleeping, 0);
    }
    return NULL;
}

/* Writes what is in the ring from this thread (no writer thread). */
static void drain_here(void)
{
    struct batch b;
    b.len = 0;
    b.count = 0;
    if (pump(&b) == 0 && b.len)
        nvtx_emit_count(NVTX_DROP_UNDELIVERED, b.count);
}

/* Starts the writer with every signal blocked (it inherits the mask of
 * the thread that creates it, which is restored at once). */
static void start(void)
{
    int expect = W_NONE;
    if (!atomic_compare_exchange_strong(&state, &expect, W_STARTING))
        return;
    int saved_errno = errno;
    sigset_t all, old;
    sigfillset(&all);
    pthread_attr_t attr;
    pthread_t t;
    int rc = pthread_attr_init(&attr);
    if (rc == 0) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, STACK_BYTES);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        rc = pthread_create(&t, &attr, writer_main, NULL);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        pthread_attr_destroy(&attr);
    }
    atomic_store(&state, rc == 0 ? W_RUNNING : W_OFF);
    if (rc != 0)
        drain_here();                   /* lines queued while it was starting */
    errno = saved_errno;
}

enum nvtx_queue_result nvtx_writer_enqueue(const char *line, size_t len)
{
    int st = atomic_load_explicit(&state, memory_order_relaxed);
    if (st == W_NONE) {
        start();
        st = atomic_load(&state);
    }
    if (st == W_OFF || len > NVTX_LINE_MAX)
        return NVTX_QUEUE_OFF;
    size_t pos = atomic_load_explicit(&enq_pos, memory_order_relaxed);
    for (;;) {
        size_t i = pos & MASK;
        size_t seq = atomic_load_explicit(&seqs[i], memory_order_acquire);
        intptr_t dif = (intptr_t)seq - (intptr_t)pos;
        if (dif < 0)
            return NVTX_QUEUE_FULL;
        if (dif == 0 && atomic_compare_exchange_weak_explicit(&enq_pos, &pos, pos + 1,
                                                              memory_order_relaxed,
                                                              memory_order_relaxed)) {
            memcpy(lines[i], line, len);
            lens[i] = (uint16_t)len;
            atomic_store(&seqs[i], pos + 1);    /* seq_cst: see writer_main */
            break;
        }
        if (dif > 0)
            pos = atomic_load_explicit(&enq_pos, memory_order_relaxed);
    }
    if (atomic_load(&sleeping) && atomic_exchange(&sleeping, 0)) {
        int saved_errno = errno;
        sem_post(&wake);
        errno = saved_errno;
    }
    return NVTX_QUEUED;
}

static long long elapsed_ms(const struct timespec *since)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - since->tv_sec) * 1000LL + (now.tv_nsec - since->tv_nsec) / 1000000L;
}

void nvtx_writer_flush_at_exit(void)
{
    int saved_errno = errno;
    if (atomic_load(&state) == W_RUNNING) {
        size_t target = atomic_load(&enq_pos);
        atomic_store(&exiting, 1);
        if (atomic_exchange(&sleeping, 0))
            sem_post(&wake);
        struct timespec begin, progress;
        clock_gettime(CLOCK_MONOTONIC, &begin);
        progress = begin;
        size_t seen = atomic_load(&done_pos);
        while ((intptr_t)(target - seen) > 0 && elapsed_ms(&begin) < NVTX_WRITER_EXIT_MAX_MS &&
               elapsed_ms(&progress) < NVTX_WRITER_EXIT_STALL_MS) {
            nap(POLL_NS);
            size_t now = atomic_load(&done_pos);
            if (now != seen)
                clock_gettime(CLOCK_MONOTONIC, &progress);
            seen = now;
        }
        if ((intptr_t)(target - seen) > 0)    /* given up on: reported, not silent */
            nvtx_emit_count(NVTX_DROP_UNDELIVERED, (long long)(target - seen));
    } else {
        drain_here();
    }
    nvtx_emit_flush_drops();
    errno = saved_errno;
}
