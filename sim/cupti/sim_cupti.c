/*
 * sim_cupti.c — build/sim-cupti/libcupti.so.13: a simulated CUPTI for
 * tests without a GPU (README, "Kernel timeline"; sim/SCENARIO.md, "CUPTI").
 *
 * Exports CUPTI's real entry points with its record layouts
 * (CUpti_ActivityKernel10, CUpti_ActivityMemcpy6, CUpti_ActivityMemset4,
 * graphId and graphNodeId included), its buffer protocol (a buffer asked
 * for with the request callback, handed back full or at a flush through
 * the complete callback, on the thread that filled or flushed it), its
 * one-subscriber rule (a second subscribe: error 39, naming the first)
 * and its timestamp callback (records are stamped with it once
 * registered, else with CLOCK_REALTIME, as CUPTI's default).
 *
 * The application plays a timeline through sim_cupti_kernel/_copy
 * (stamps given in the sim's clock: sim_cupti_now). Faults, from the
 * environment:
 *   SIM_CUPTI_VERSION=N        cuptiGetVersion's answer (default 130001)
 *   SIM_CUPTI_SUBSCRIBE=E      cuptiSubscribe returns E (39 names "CUPTI for Kineto")
 *   SIM_CUPTI_NO_TIMESTAMP=1   cuptiActivityRegisterTimestampCallback: NOT_SUPPORTED
 *   SIM_CUPTI_DROPPED=N        N records reported dropped (once, at the first flush)
 *   SIM_CUPTI_LOG=PATH         one line per call that matters (appended)
 */
#include <fcntl.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

typedef int CUptiResult;
typedef void (*request_fn)(uint8_t **, size_t *, size_t *);
typedef void (*complete_fn)(void *, uint32_t, uint8_t *, size_t, size_t);
typedef uint64_t (*stamp_fn)(void);
typedef void (*callback_fn)(void *, int, uint32_t, const void *);

struct sub_params {
    size_t structSize;
    const char *subscriberName;
    char *oldSubscriberName;
    size_t oldSubscriberSize;
};

enum { KERNEL_SIZE = 216, MEMCPY_SIZE = 96, MEMSET_SIZE = 88 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int subscribed;
static char first_name[64];
static request_fn on_request;
static complete_fn on_complete;
static stamp_fn stamp;
static int enabled[64];
static uint8_t *buf;                    /* the buffer being filled */
static size_t buf_size, buf_used;
static unsigned long long dropped;
static int dropped_fault_done;
static uint32_t correlation;

static void log_call(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void log_call(const char *fmt, ...)
{
    const char *path = getenv("SIM_CUPTI_LOG");
    if (!path || !*path)
        return;
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (n > (int)sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) {
        if (write(fd, line, (size_t)n) < 0) {
        }
        close(fd);
    }
}

static long env_long(const char *name, long def)
{
    const char *v = getenv(name);
    return v && *v ? strtol(v, NULL, 10) : def;
}

EXPORT CUptiResult cuptiGetVersion(uint32_t *version)
{
    if (!version)
        return 1;
    *version = (uint32_t)env_long("SIM_CUPTI_VERSION", 130001);
    return 0;
}

EXPORT CUptiResult cuptiGetResultString(CUptiResult r, const char **str)
{
    *str = r == 0 ? "CUPTI_SUCCESS" : r == 39 ? "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"
                                            : "CUPTI_ERROR_UNKNOWN";
    return 0;
}

static CUptiResult subscribe(void **sub, const char *name, char *old, size_t old_size)
{
    long fault = env_long("SIM_CUPTI_SUBSCRIBE", 0);
    pthread_mutex_lock(&lock);
    CUptiResult rc = 0;
    const char *other = NULL;
    if (fault) {
        rc = (CUptiResult)fault;
        other = fault == 39 ? "CUPTI for Kineto" : NULL;
    } else if (subscribed) {
        rc = 39;
        other = first_name;
    } else {
        subscribed = 1;
        snprintf(first_name, sizeof first_name, "CUPTI for %s", name ? name : "(unnamed)");
        *sub = &subscribed;
    }
    if (rc && other && old && old_size)
        snprintf(old, old_size, "%s", other);
    pthread_mutex_unlock(&lock);
    log_call("subscribe %d", rc);
    return rc;
}

EXPORT CUptiResult cuptiSubscribe(void **sub, callback_fn cb, void *ud)
{
    (void)cb, (void)ud;
    return subscribe(sub, NULL, NULL, 0);
}

EXPORT CUptiResult cuptiSubscribe_v2(void **sub, callback_fn cb, void *ud, struct sub_params *p)
{
    (void)cb, (void)ud;
    if (p && p->structSize != sizeof *p)
        return 1;
    return subscribe(sub, p ? p->subscriberName : NULL, p ? p->oldSubscriberName : NULL,
                     p ? p->oldSubscriberSize : 0);
}

EXPORT CUptiResult cuptiUnsubscribe(void *sub)
{
    (void)sub;
    pthread_mutex_lock(&lock);
    subscribed = 0;
    pthread_mutex_unlock(&lock);
    log_call("unsubscribe");
    return 0;
}

EXPORT CUptiResult cuptiActivityRegisterTimestampCallback(stamp_fn fn)
{
    if (env_long("SIM_CUPTI_NO_TIMESTAMP", 0))
        return 27;
    for (int k = 0; k < 64; k++)
        if (enabled[k]) {
            log_call("timestamp_after_enable");
            return 1;
        }
    stamp = fn;
    log_call("timestamp");
    return 0;
}

EXPORT CUptiResult cuptiActivityRegisterCallbacks(request_fn req, complete_fn done)
{
    on_request = req;
    on_complete = done;
    log_call("callbacks");
    return 0;
}

EXPORT CUptiResult cuptiActivityEnable(int kind)
{
    if (kind < 0 || kind >= 64)
        return 21;
    enabled[kind] = 1;
    log_call("enable %d", kind);
    return 0;
}

EXPORT CUptiResult cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid, void **record)
{
    uint8_t *r = *record;
    size_t off = 0;
    if (r) {
        uint32_t kind;
        memcpy(&kind, r, 4);
        size_t sz = kind == 10 || kind == 3 ? KERNEL_SIZE : kind == 1 ? MEMCPY_SIZE : MEMSET_SIZE;
        off = (size_t)(r - buffer) + sz;
    }
    if (off >= valid)
        return 12;                      /* CUPTI_ERROR_MAX_LIMIT_REACHED: no more records */
    *record = buffer + off;
    return 0;
}

EXPORT CUptiResult cuptiActivityGetNumDroppedRecords(void *ctx, uint32_t stream, size_t *n)
{
    (void)ctx, (void)stream;
    pthread_mutex_lock(&lock);
    if (!dropped_fault_done) {
        dropped += (unsigned long long)env_long("SIM_CUPTI_DROPPED", 0);
        dropped_fault_done = 1;
    }
    *n = (size_t)dropped;
    dropped = 0;
    pthread_mutex_unlock(&lock);
    return 0;
}

/* Hands the buffer being filled to the client (lock held; released around the call). */
static void complete_locked(void)
{
    if (!buf)
        return;
    uint8_t *b = buf;
    size_t size = buf_size, used = buf_used;
    buf = NULL;
    buf_size = buf_used = 0;
    complete_fn fn = on_complete;
    pthread_mutex_unlock(&lock);
    if (fn)
        fn(NULL, 0, b, size, used);
    pthread_mutex_lock(&lock);
}

EXPORT CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
    pthread_mutex_lock(&lock);
    complete_locked();
    pthread_mutex_unlock(&lock);
    log_call("flush %u", flag);
    return 0;
}

EXPORT CUptiResult cuptiFinalize(void)
{
    pthread_mutex_lock(&lock);
    complete_locked();
    subscribed = 0;
    on_request = NULL;
    on_complete = NULL;
    stamp = NULL;
    memset(enabled, 0, sizeof enabled);
    pthread_mutex_unlock(&lock);
    log_call("finalize");
    return 0;
}

/* --- the timeline the application plays (not CUPTI's) --- */

EXPORT uint64_t sim_cupti_now(void)
{
    if (stamp)
        return stamp();
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Room for one record of sz bytes (lock held): 0, or -1 (dropped, counted). */
static int room(size_t sz)
{
    if (buf && buf_used + sz > buf_size)
        complete_locked();
    if (!buf) {
        request_fn fn = on_request;
        uint8_t *b = NULL;
        size_t size = 0, max = 0;
        if (fn) {
            pthread_mutex_unlock(&lock);
            fn(&b, &size, &max);
            pthread_mutex_lock(&lock);
        }
        if (!b || size < sz) {
            dropped++;
            return -1;
        }
        buf = b;
        buf_size = size;
        buf_used = 0;
    }
    return 0;
}

static void put32(uint8_t *r, size_t off, uint32_t v) { memcpy(r + off, &v, 4); }
static void put64(uint8_t *r, size_t off, uint64_t v) { memcpy(r + off, &v, 8); }

/* A kernel on device dev, stream, [start, end) in the sim's clock; a
 * graph's when graph_id != 0. The name must outlive the process's
 * records (as CUPTI's does). Returns 0, or -1 when not recorded. */
EXPORT int sim_cupti_kernel(uint32_t dev, uint32_t stream, uint64_t start, uint64_t end,
                            const char *name, uint32_t graph_id)
{
    pthread_mutex_lock(&lock);
    int rc = -1;
    if (enabled[10] && room(KERNEL_SIZE) == 0) {
        uint8_t *r = buf + buf_used;
        memset(r, 0, KERNEL_SIZE);
        put32(r, 0, 10);
        put64(r, 16, start);
        put64(r, 24, end);
        put64(r, 32, end);
        put32(r, 40, dev);
        put32(r, 44, 1 + dev);
        put32(r, 48, stream);
        put32(r, 92, ++correlation);
        memcpy(r + 104, &name, sizeof name);
        put64(r, 144, graph_id ? correlation : 0);
        put32(r, 156, graph_id);
        buf_used += KERNEL_SIZE;
        rc = 0;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

/* A memcpy (memset=0) or memset of bytes on dev, [start, end). */
EXPORT int sim_cupti_copy(uint32_t dev, uint64_t start, uint64_t end, uint64_t bytes, int memset_)
{
    int kind = memset_ ? 2 : 1;
    size_t sz = memset_ ? MEMSET_SIZE : MEMCPY_SIZE;
    pthread_mutex_lock(&lock);
    int rc = -1;
    if (enabled[kind] && room(sz) == 0) {
        uint8_t *r = buf + buf_used;
        memset(r, 0, sz);
        put32(r, 0, (uint32_t)kind);
        put64(r, 8, bytes);
        put64(r, 16, start);
        put64(r, 24, end);
        put32(r, 32, dev);
        put32(r, 36, 1 + dev);
        put32(r, 40, 7);
        put32(r, 44, ++correlation);
        buf_used += sz;
        rc = 0;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}
