/*
 * cuda_inject.c — build/libflinch_cuda.so: the CUDA injection library
 * (`flinch record --cuda`; README, "Kernel timeline"). The CUDA driver
 * calls InitializeInjection when the process initialises CUDA, because
 * CUDA_INJECTION64_PATH names this library.
 *
 * Owns the entry point, the CUPTI subscription, the activity buffer pool
 * and the flush thread. CUPTI's buffer callbacks run on whatever thread
 * fills or flushes a buffer, an application thread included: they take a
 * buffer from a preallocated pool or hand one back with one atomic
 * operation each, no lock, no allocation, no system call. The flush
 * thread calls cuptiActivityFlushAll(0) every CUDA_FLUSH_MS (100 ms),
 * parses the completed buffers, merges them into busy intervals
 * (cuda_merge.c) and queues the lines on the NVTX bridge's channel
 * (nvtx_writer.c: a bounded lock-free ring drained by a writer thread into
 * the marks FIFO; a full ring drops and counts). At exit(): a forced
 * flush, the last lines, cuptiFinalize. After _exit or a fatal signal up
 * to one flush period of records is lost.
 *
 * When CUPTI cannot be used (not found, a version outside 12.x-13.x,
 * subscribe refused: another tool subscribed first, error 39; no driver,
 * 999) one line `O pid=P reason=R subscriber=S` is sent (the recorder
 * writes an EVENT row cuda_off) and the library does nothing more.
 * Nothing here exits, aborts or blocks the application.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuda_cupti.h"
#include "cuda_merge.h"
#include "nvtx_emit.h"
#include "nvtx_writer.h"

#define EXPORT __attribute__((visibility("default")))
#define CUDA_FLUSH_MS 100               /* the flush thread's period */
#define POOL_BUFS 64                    /* buffers in the pool (one bit each) */
#define BUF_BYTES (128 * 1024)          /* one buffer: some 600 kernel records */
#define REPORT_NS 1000000000LL          /* counts (D lines) at most once a second */
#define PREFIX "\n\tcuda\t"             /* a line the recorder routes to TRACE.kernels */

enum { ST_OFF, ST_ON, ST_FORKED };

static pthread_once_t once = PTHREAD_ONCE_INIT;
static atomic_int state = ST_OFF;
static struct cupti_api api;
static fcupti_subscriber_handle subscriber;
static long long my_pid;
static int64_t clock_shift;             /* added to CUPTI's stamps (0: they are ours) */
static int flush_ms = CUDA_FLUSH_MS;

static uint8_t *pool;
static atomic_uint_fast64_t free_mask, done_mask;
static atomic_size_t valid[POOL_BUFS];
static atomic_llong pool_empty;         /* buffer requests the pool could not serve */
static atomic_llong lines_lost;         /* lines the ring or the FIFO did not take */
static long long records_dropped;       /* CUPTI's own count (flush thread) */
static long long kernels_seen, copies_seen;
static int64_t last_report_ns;
static long long last_reported[5];

static pthread_t flusher;
static sem_t wake_sem;                  /* the period's end, a low pool, or the stop */
static atomic_int stopping;
static atomic_int low_signalled;        /* a low-pool wake-up is pending */
static int flusher_running;
static pthread_mutex_t merge_lock = PTHREAD_MUTEX_INITIALIZER;

/* --- lines --- */

static int send_payload(const char *payload, size_t len)
{
    char line[NVTX_LINE_MAX];
    size_t plen = sizeof PREFIX - 1;
    if (plen + len + 1 > sizeof line) {
        atomic_fetch_add(&lines_lost, 1);
        return -1;
    }
    memcpy(line, PREFIX, plen);
    memcpy(line + plen, payload, len);
    line[plen + len] = '\n';
    size_t n = plen + len + 1;
    switch (nvtx_writer_enqueue(line, n)) {
    case NVTX_QUEUED:
        return 0;
    case NVTX_QUEUE_FULL:
        atomic_fetch_add(&lines_lost, 1);
        return -1;
    case NVTX_QUEUE_OFF:
        break;
    }
    if (nvtx_emit_send(line, n, nvtx_now_ns()) != 0) {
        atomic_fetch_add(&lines_lost, 1);
        return -1;
    }
    return 0;
}

/* The counts, cumulative (a reader keeps the last D line of a pid), when
 * one changed and a second passed since the last (force: now). */
static void report_counts(int force)
{
    int64_t now = nvtx_now_ns();
    long long c[5] = { records_dropped, cuda_merge_zero_stamps(), atomic_load(&pool_empty),
                       atomic_load(&lines_lost), kernels_seen };
    if (memcmp(c, last_reported, sizeof c) == 0 || (!force && now - last_report_ns < REPORT_NS))
        return;
    char line[256];
    int n = snprintf(line, sizeof line, "D pid=%lld kernels=%lld copies=%lld dropped=%lld "
                     "zero_stamps=%lld pool_empty=%lld lines_lost=%lld", my_pid, kernels_seen,
                     copies_seen, c[0], c[1], c[2], c[3]);
    if (send_payload(line, (size_t)n) == 0) {
        memcpy(last_reported, c, sizeof c);
        last_report_ns = now;
    }
}

/* Only spaces and control bytes are changed ('_'): a field's value. */
static void field_value(char *dst, size_t size, const char *src)
{
    size_t n = 0;
    for (; src && src[n] && n + 1 < size; n++) {
        unsigned char c = (unsigned char)src[n];
        dst[n] = c <= 0x20 || c == 0x7f ? '_' : (char)c;
    }
    if (n == 0 && size > 1)
        dst[n++] = '-';
    dst[n] = '\0';
}

static void turn_off(const char *reason, const char *other)
{
    char who[FCUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1], line[256];
    field_value(who, sizeof who, other);
    int n = snprintf(line, sizeof line, PREFIX "O pid=%lld reason=%s subscriber=%s\n", my_pid,
                     reason, who);
    /* written here, once: no writer thread is started for a library that is off */
    if (n > 0 && n < (int)sizeof line)
        nvtx_emit_send(line, (size_t)n, nvtx_now_ns());
}

/* --- CUPTI's callbacks (any thread; lock-free) --- */

static void on_callback(void *userdata, int domain, uint32_t cbid, const void *cbdata)
{
    (void)userdata, (void)domain, (void)cbid, (void)cbdata;
}

static uint64_t monotonic_stamp(void) { return (uint64_t)nvtx_now_ns(); }

static void on_buffer_request(uint8_t **buffer, size_t *size, size_t *max_records)
{
    uint_fast64_t m = atomic_load(&free_mask);
    *max_records = 0;
    while (m) {
        int b = __builtin_ctzll((unsigned long long)m);
        uint_fast64_t left = m & ~((uint_fast64_t)1 << b);
        if (atomic_compare_exchange_weak(&free_mask, &m, left)) {
            *buffer = pool + (size_t)b * BUF_BYTES;
            *size = BUF_BYTES;
            /* a quarter of the pool left: the flush thread drains now, not
             * at the period's end (one sem_post, once per drain) */
            if (__builtin_popcountll((unsigned long long)left) < POOL_BUFS / 4 && flusher_running &&
                !atomic_exchange(&low_signalled, 1))
                sem_post(&wake_sem);
            return;
        }
    }
    *buffer = NULL;                     /* CUPTI drops records and counts them */
    *size = 0;
    atomic_fetch_add(&pool_empty, 1);
}

static void on_buffer_complete(void *ctx, uint32_t stream, uint8_t *buffer, size_t size,
                               size_t valid_size)
{
    (void)ctx, (void)stream, (void)size;
    if (!buffer || buffer < pool || buffer >= pool + (size_t)POOL_BUFS * BUF_BYTES)
        return;                         /* not ours */
    size_t b = (size_t)(buffer - pool) / BUF_BYTES;
    atomic_store(&valid[b], valid_size);
    atomic_fetch_or(&done_mask, (uint_fast64_t)1 << b);
}

/* --- the flush thread's work --- */

static uint64_t ours(uint64_t t)
{
    return t == 0 ? 0 : (uint64_t)((int64_t)t + clock_shift);
}

static void parse_buffer(uint8_t *buf, size_t len)
{
    void *rec = NULL;
    while (api.next_record(buf, len, &rec) == FCUPTI_SUCCESS && rec) {
        const uint8_t *r = rec;
        uint32_t kind = fcupti_u32(r, FCUPTI_REC_KIND);
        int full = 0;
        if (kind == FCUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || kind == FCUPTI_ACTIVITY_KIND_KERNEL) {
            kernels_seen++;
            full = cuda_merge_kernel(fcupti_u32(r, FCUPTI_KERNEL_DEVICE_ID),
                                     ours(fcupti_u64(r, FCUPTI_KERNEL_START)),
                                     ours(fcupti_u64(r, FCUPTI_KERNEL_END)),
                                     fcupti_ptr(r, FCUPTI_KERNEL_NAME));
        } else if (kind == FCUPTI_ACTIVITY_KIND_MEMCPY || kind == FCUPTI_ACTIVITY_KIND_MEMSET) {
            copies_seen++;
            full = cuda_merge_copy(fcupti_u32(r, FCUPTI_COPY_DEVICE_ID),
                                   ours(fcupti_u64(r, FCUPTI_COPY_START)),
                                   ours(fcupti_u64(r, FCUPTI_COPY_END)),
                                   fcupti_u64(r, FCUPTI_COPY_BYTES));
        }
        if (full)
            cuda_merge_emit();
    }
}

/* Parses every completed buffer, hands them back, sends the lines. */
static void drain(int force_report)
{
    pthread_mutex_lock(&merge_lock);
    uint_fast64_t d = atomic_exchange(&done_mask, 0);
    while (d) {
        int b = __builtin_ctzll((unsigned long long)d);
        d &= d - 1;
        parse_buffer(pool + (size_t)b * BUF_BYTES, atomic_load(&valid[b]));
        atomic_fetch_or(&free_mask, (uint_fast64_t)1 << b);
    }
    cuda_merge_emit();
    size_t dropped = 0;
    if (api.num_dropped && api.num_dropped(NULL, 0, &dropped) == FCUPTI_SUCCESS)
        records_dropped += (long long)dropped;
    report_counts(force_report);
    pthread_mutex_unlock(&merge_lock);
}

static void *flush_main(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "flinch-cupti");   /* seen in top, read by the bench */
    for (;;) {
        struct timespec dl;
        clock_gettime(CLOCK_REALTIME, &dl);
        dl.tv_nsec += (long)flush_ms * 1000000L;
        dl.tv_sec += dl.tv_nsec / 1000000000L;
        dl.tv_nsec %= 1000000000L;
        int woken = sem_timedwait(&wake_sem, &dl) == 0;
        if (atomic_load(&stopping) || atomic_load(&state) != ST_ON)
            return NULL;
        if (!woken)
            api.flush_all(0);           /* the period's end; a low pool: drain what is complete */
        drain(0);
        atomic_store(&low_signalled, 0);
    }
}

/* exit(): the last records, then CUPTI is let go. Not in a forked child
 * (the subscription is the parent's) and never twice. */
static void at_exit(void)
{
    int expect = ST_ON;
    if (getpid() != my_pid || !atomic_compare_exchange_strong(&state, &expect, ST_OFF))
        return;
    if (flusher_running) {
        atomic_store(&stopping, 1);
        sem_post(&wake_sem);
        pthread_join(flusher, NULL);
        flusher_running = 0;
    }
    api.flush_all(FCUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    drain(1);
    if (api.finalize)
        api.finalize();
    nvtx_writer_flush_at_exit();
}

static void in_child(void)
{
    int expect = ST_ON;
    if (atomic_compare_exchange_strong(&state, &expect, ST_FORKED)) {
        flusher_running = 0;            /* the thread stayed in the parent */
        nvtx_emit_after_fork();
    }
}

static int start_flusher(void)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_attr_t attr;
    if (sem_init(&wake_sem, 0, 0) != 0 || pthread_attr_init(&attr) != 0)
        return -1;
    pthread_attr_setstacksize(&attr, 256 * 1024);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&flusher, &attr, flush_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    flusher_running = rc == 0;
    return rc == 0 ? 0 : -1;
}

static void read_flush_ms(void)
{
    const char *v = getenv("FLINCH_CUDA_FLUSH_MS");
    char *end;
    long ms = v ? strtol(v, &end, 10) : 0;
    if (v && *v && !*end && ms >= 10 && ms <= 10000)
        flush_ms = (int)ms;
}

static void setup(void)
{
    int saved_errno = errno;
    my_pid = getpid();
    read_flush_ms();
    nvtx_emit_init();
    const char *reason = NULL;
    char why[64];
    char other[FCUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = "";
    fcupti_result rc;
    uint32_t version = 0;
    if (cupti_load(&api, &reason) != 0)
        goto off;
    if ((rc = api.get_version(&version)) != FCUPTI_SUCCESS) {
        snprintf(why, sizeof why, "version:error_%d", rc);
        reason = why;
        goto off;
    }
    if (!fcupti_version_supported(version)) {
        snprintf(why, sizeof why, "version:%u", version);
        reason = why;
        goto off;
    }
    if (api.subscribe_v2) {
        struct fcupti_subscriber_params p = { sizeof p, "flinch", other, sizeof other - 1 };
        rc = api.subscribe_v2(&subscriber, on_callback, NULL, &p);
    } else {
        rc = api.subscribe(&subscriber, on_callback, NULL);
    }
    other[sizeof other - 1] = '\0';
    if (rc != FCUPTI_SUCCESS) {
        snprintf(why, sizeof why, "subscribe:%d", rc);
        reason = why;
        goto off;
    }
    /* the clock first: records stamped before it would be on CUPTI's */
    struct timespec mono, real;
    if (!api.register_timestamp || api.register_timestamp(monotonic_stamp) != FCUPTI_SUCCESS) {
        clock_gettime(CLOCK_MONOTONIC, &mono);
        clock_gettime(CLOCK_REALTIME, &real);
        clock_shift = (mono.tv_sec - real.tv_sec) * 1000000000LL + (mono.tv_nsec - real.tv_nsec);
    }
    pool = malloc((size_t)POOL_BUFS * BUF_BYTES);
    if (!pool || cuda_merge_init(my_pid, send_payload) != 0) {
        free(pool);
        pool = NULL;
        api.unsubscribe(subscriber);
        reason = "memory";
        goto off;
    }
    atomic_store(&free_mask, ~(uint_fast64_t)0);
    const int kinds[] = { FCUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, FCUPTI_ACTIVITY_KIND_MEMCPY,
                          FCUPTI_ACTIVITY_KIND_MEMSET };
    if ((rc = api.register_callbacks(on_buffer_request, on_buffer_complete)) != FCUPTI_SUCCESS) {
        snprintf(why, sizeof why, "callbacks:%d", rc);
        reason = why;
        api.unsubscribe(subscriber);
        goto off;
    }
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if ((rc = api.enable(kinds[i])) != FCUPTI_SUCCESS && i == 0) {
            snprintf(why, sizeof why, "enable:%d", rc);
            reason = why;
            api.unsubscribe(subscriber);
            goto off;
        }
    atomic_store(&state, ST_ON);
    char line[PATH_MAX + 128];
    int n = snprintf(line, sizeof line, "S pid=%lld cupti=%u clock=%s flush_ms=%d lib=", my_pid,
                     version, clock_shift ? "converted" : "monotonic", flush_ms);
    field_value(line + n, sizeof line - (size_t)n, api.path);
    send_payload(line, strlen(line));
    pthread_atfork(NULL, NULL, in_child);
    atexit(at_exit);
    if (start_flusher() != 0) {
        /* no thread: records still come at exit's forced flush */
    }
    errno = saved_errno;
    return;
off:
    turn_off(reason, other);
    errno = saved_errno;
}

/* The CUDA driver's entry point: called when the process initialises
 * CUDA (more than once is harmless; concurrent calls wait for the first). */
EXPORT int InitializeInjection(void)
{
    pthread_once(&once, setup);
    return 1;
}
