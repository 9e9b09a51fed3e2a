/*
 * nvtx_bridge.c — build/libflinch_nvtx.so: NVTX marks and ranges of an
 * unmodified application become flinch MARKs (README, "NVTX ranges").
 *
 * Owns the injection entry point and the callbacks: marks, push/pop ranges
 * (a stack per thread), start/end ranges (any thread may end them), domains
 * and registered strings (what they are called and whether the filter lets
 * them through is nvtx_names.c's). Each recorded call is stamped with CLOCK_MONOTONIC
 * in the calling thread and formatted there (nvtx_emit.c); a range's start
 * and end carry the same id, PID.N, so analyze pairs them exactly. The
 * line goes to the bridge's writer thread (nvtx_writer.c), which writes
 * batches of them: no system call in the application's threads.
 *
 * NVTX may call InitializeInjectionNvtx2 several times: each library that
 * embeds the NVTX headers (libtorch, a CUDA library, the application) has
 * its own copy of the slots and initialises it on its first call. Every
 * call fills that copy's slots; the shared state is set up once.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvtx_abi.h"
#include "nvtx_attrs.h"
#include "nvtx_emit.h"
#include "nvtx_filter.h"
#include "nvtx_names.h"
#include "nvtx_writer.h"

#define EXPORT __attribute__((visibility("default")))
#define STACK_MAX 64                    /* push levels remembered per thread */
#define NAMES_MAX 8192                  /* bytes of their names */
#define NO_NAME 0xFFFF
#define OPEN_SLOTS 256                  /* start/end ranges whose name an end can find */

struct level {
    uint64_t n;                         /* range number (id PID.n) */
    const struct fnvtx_domain *domain;
    uint16_t name;                      /* offset in names, or NO_NAME */
    uint8_t recorded;                   /* its start was written: write its end */
};

struct thread_stack {
    int depth;                          /* levels in e[] */
    long overflow;                      /* levels beyond STACK_MAX (not recorded) */
    size_t used;
    struct level e[STACK_MAX];
    char names[NAMES_MAX];
};

struct open_range {
    atomic_ullong n;                    /* 0: free */
    char label[MARK_LABEL_MAX + 1];
};

static int disabled;                    /* bad $FLINCH_NVTX_FILTER */
static atomic_ullong next_range = 1;
static struct open_range open_ranges[OPEN_SLOTS];
static _Thread_local struct thread_stack stack;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* --- marks --- */

static void mark(const struct fnvtx_domain *d, const char *label, int pass, const struct nvtx_extra *x)
{
    if (!pass) {
        nvtx_emit_drop(NVTX_DROP_FILTER);
        return;
    }
    int64_t now = nvtx_now_ns();
    if (!under_rate(now)) {
        nvtx_emit_drop(NVTX_DROP_RATE);
        return;
    }
    nvtx_emit_mark(label, now, MARK_EDGE_NONE, 0, d->name, x);
}

static void cb_mark_ex(const struct fnvtx_event_attributes *a)
{
    char label[MARK_LABEL_MAX + 1];
    int pass;
    struct nvtx_extra x;
    message_label(&default_domain, a, label, &pass, &x);
    mark(&default_domain, label, pass, &x);
}

static void cb_mark_a(const char *msg)
{
    char label[MARK_LABEL_MAX + 1];
    if (filter_by_name && !passes(&default_domain, msg)) {
        nvtx_emit_drop(NVTX_DROP_FILTER);
        return;
    }
    nvtx_label(label, msg);
    mark(&default_domain, label, (filter_by_name || default_domain.pass) && nocat_pass, NULL);
}

static void cb_mark_w(const wchar_t *msg)
{
    char label[MARK_LABEL_MAX + 1];
    nvtx_label_w(label, msg);
    mark(&default_domain, label, passes(&default_domain, label) && nocat_pass, NULL);
}

static void cb_domain_mark_ex(fnvtx_domain_handle h, const struct fnvtx_event_attributes *a)
{
    char label[MARK_LABEL_MAX + 1];
    int pass;
    struct nvtx_extra x;
    message_label(dom(h), a, label, &pass, &x);
    mark(dom(h), label, pass, &x);
}

/* --- push / pop: one stack per thread, levels tagged with their domain --- */

static int push(const struct fnvtx_domain *d, const char *label, int pass, const struct nvtx_extra *x)
{
    struct thread_stack *s = &stack;
    if (s->depth == STACK_MAX) {
        s->overflow++;
        nvtx_emit_drop(NVTX_DROP_DEPTH);
        return (int)(STACK_MAX + s->overflow - 1);
    }
    struct level *l = &s->e[s->depth++];
    l->domain = d;
    l->recorded = 0;
    l->name = NO_NAME;
    if (!pass) {
        nvtx_emit_drop(NVTX_DROP_FILTER);
        return s->depth - 1;
    }
    int64_t now = nvtx_now_ns();
    if (!under_rate(now)) {
        nvtx_emit_drop(NVTX_DROP_RATE);
        return s->depth - 1;
    }
    l->n = atomic_fetch_add(&next_range, 1);
    l->recorded = 1;
    size_t len = strlen(label) + 1;
    if (s->used + len <= NAMES_MAX) {
        memcpy(s->names + s->used, label, len);
        l->name = (uint16_t)s->used;
        s->used += len;
    }
    nvtx_emit_mark(label, now, MARK_EDGE_START, l->n, d->name, x);
    return s->depth - 1;
}

static int pop(const struct fnvtx_domain *d)
{
    struct thread_stack *s = &stack;
    if (s->overflow > 0) {
        s->overflow--;
        return (int)(STACK_MAX + s->overflow);
    }
    int i = s->depth - 1;
    while (i >= 0 && s->e[i].domain != d)
        i--;
    if (i < 0)
        return -1;                      /* nothing of this domain pushed on this thread */
    struct level l = s->e[i];
    memmove(&s->e[i], &s->e[i + 1], sizeof s->e[0] * (size_t)(s->depth - 1 - i));
    s->depth--;
    if (l.recorded)
        nvtx_emit_mark(l.name == NO_NAME ? "(nvtx range)" : s->names + l.name, nvtx_now_ns(),
                       MARK_EDGE_END, l.n, d->name, NULL);
    if (l.name != NO_NAME && i == s->depth)
        s->used = l.name;               /* the top's name: its bytes are free again */
    if (s->depth == 0)
        s->used = 0;
    return s->depth;
}

static int cb_push_ex(const struct fnvtx_event_attributes *a)
{
    char label[MARK_LABEL_MAX + 1];
    int pass;
    struct nvtx_extra x;
    message_label(&default_domain, a, label, &pass, &x);
    return push(&default_domain, label, pass, &x);
}

static int cb_push_a(const char *msg)
{
    char label[MARK_LABEL_MAX + 1];
    if (filter_by_name && !passes(&default_domain, msg))
        return push(&default_domain, NULL, 0, NULL);
    nvtx_label(label, msg);
    return push(&default_domain, label, (filter_by_name || default_domain.pass) && nocat_pass, NULL);
}

static int cb_push_w(const wchar_t *msg)
{
    char label[MARK_LABEL_MAX + 1];
    nvtx_label_w(label, msg);
    return push(&default_domain, label, passes(&default_domain, label) && nocat_pass, NULL);
}

static int cb_pop(void) { return pop(&default_domain); }

static int cb_domain_push_ex(fnvtx_domain_handle h, const struct fnvtx_event_attributes *a)
{
    char label[MARK_LABEL_MAX + 1];
    int pass;
    struct nvtx_extra x;
    message_label(dom(h), a, label, &pass, &x);
    return push(dom(h), label, pass, &x);
}

static int cb_domain_pop(fnvtx_domain_handle h) { return pop(dom(h)); }

/* --- start / end: any thread may end a range. The id handed back is
 * n << 1 | 1 for a recorded range and n << 1 for a filtered one, so an end
 * knows without a lookup whether to write anything. The name of a recorded
 * range waits in open_ranges[n % OPEN_SLOTS] for its end; an end whose
 * slot was taken by a newer range writes "(nvtx range)": the id, not the
 * label, pairs it. --- */

static fnvtx_range_id start(const struct fnvtx_domain *d, const char *label, int pass,
                            const struct nvtx_extra *x)
{
    uint64_t n = atomic_fetch_add(&next_range, 1);
    if (!pass) {
        nvtx_emit_drop(NVTX_DROP_FILTER);
        return n << 1;
    }
    int64_t now = nvtx_now_ns();
    if (!under_rate(now)) {
        nvtx_emit_drop(NVTX_DROP_RATE);
        return n << 1;
    }
    struct open_range *o = &open_ranges[n % OPEN_SLOTS];
    atomic_store(&o->n, 0);
    snprintf(o->label, sizeof o->label, "%s", label);
    atomic_store(&o->n, n);
    nvtx_emit_mark(label, now, MARK_EDGE_START, n, d->name, x);
    return n << 1 | 1;
}

static void end(const struct fnvtx_domain *d, fnvtx_range_id id)
{
    if (!(id & 1))
        return;                         /* 0, or a range that was not recorded */
    int64_t now = nvtx_now_ns();
    uint64_t n = id >> 1;
    struct open_range *o = &open_ranges[n % OPEN_SLOTS];
    char label[MARK_LABEL_MAX + 1] = "(nvtx range)";
    if (atomic_load(&o->n) == n) {
        memcpy(label, o->label, sizeof label);
        unsigned long long expect = n;
        if (!atomic_compare_exchange_strong(&o->n, &expect, 0))
            strcpy(label, "(nvtx range)");  /* reused while we copied */
    }
    nvtx_emit_mark(label, now, MARK_EDGE_END, n, d->name, NULL);
}

static fnvtx_range_id cb_start_ex(const struct fnvtx_event_attributes *a)
{
    char label[MARK_LABEL_MAX + 1];
    int pass;
    struct nvtx_extra x;
    message_label(&default_domain, a, label, &pass, &x);
    return start(&default_domain, label, pass, &x);
}

static fnvtx_range_id cb_start_a(const char *msg)
{
    char label[MARK_LABEL_MAX + 1];
    nvtx_label(label, msg);
    return start(&default_domain, label, passes(&default_domain, msg) && nocat_pass, NULL);
}

static fnvtx_range_id cb_start_w(const wchar_t *msg)
{
    char label[MARK_LABEL_MAX + 1];
    nvtx_label_w(label, msg);
    return start(&default_domain, label, passes(&default_domain, label) && nocat_pass, NULL);
}

static void cb_end(fnvtx_range_id id) { end(&default_domain, id); }

static fnvtx_range_id cb_domain_start_ex(fnvtx_domain_handle h, const struct fnvtx_event_attributes *a)
{
    char label[MARK_LABEL_MAX + 1];
    int pass;
    struct nvtx_extra x;
    message_label(dom(h), a, label, &pass, &x);
    return start(dom(h), label, pass, &x);
}

static void cb_domain_end(fnvtx_domain_handle h, fnvtx_range_id id) { end(dom(h), id); }
/* --- init --- */

static void child_after_fork(void)
{
    nvtx_emit_after_fork();
    nvtx_names_after_fork();
    nvtx_attrs_after_fork();
    /* the ranges open in the forking thread are the parent's to end */
    for (int i = 0; i < stack.depth; i++)
        stack.e[i].recorded = 0;
}

/* At exit, after the application's own atexit handlers (a library's
 * destructors run after them), the writer thread gets a bounded time to
 * write what is queued; then the drop counts go out. The library is
 * linked -z nodelete: it is never unloaded under its running thread. */
static atomic_int initialised;

__attribute__((destructor)) static void at_exit(void)
{
    if (atomic_load(&initialised))
        nvtx_writer_flush_at_exit();
}
static void init_once(void)
{
    if (nvtx_names_init() != 0) {
        disabled = 1;
        return;
    }
    nvtx_emit_init();
    pthread_atfork(nvtx_writer_before_fork, NULL, child_after_fork);
    atomic_store(&initialised, 1);
}

static void fill(fnvtx_function_table table, unsigned size, unsigned id, fnvtx_function fn)
{
    if (id < size && table[id])
        *table[id] = fn;
}

#define FN(f) ((fnvtx_function)(void (*)(void))(f))

EXPORT int InitializeInjectionNvtx2(fnvtx_get_export_table get_export_table)
{
    pthread_once(&once, init_once);
    if (disabled || !get_export_table)
        return 0;
    const struct fnvtx_export_callbacks *cb = get_export_table(FNVTX_ETID_CALLBACKS);
    if (!cb || cb->struct_size < sizeof *cb || !cb->get_module_function_table)
        return 0;
    fnvtx_function_table t;
    unsigned size;
    if (cb->get_module_function_table(FNVTX_CB_MODULE_CORE, &t, &size) && t) {
        fill(t, size, FNVTX_CBID_CORE_MarkEx, FN(cb_mark_ex));
        fill(t, size, FNVTX_CBID_CORE_MarkA, FN(cb_mark_a));
        fill(t, size, FNVTX_CBID_CORE_MarkW, FN(cb_mark_w));
        fill(t, size, FNVTX_CBID_CORE_RangeStartEx, FN(cb_start_ex));
        fill(t, size, FNVTX_CBID_CORE_RangeStartA, FN(cb_start_a));
        fill(t, size, FNVTX_CBID_CORE_RangeStartW, FN(cb_start_w));
        fill(t, size, FNVTX_CBID_CORE_RangeEnd, FN(cb_end));
        fill(t, size, FNVTX_CBID_CORE_RangePushEx, FN(cb_push_ex));
        fill(t, size, FNVTX_CBID_CORE_RangePushA, FN(cb_push_a));
        fill(t, size, FNVTX_CBID_CORE_RangePushW, FN(cb_push_w));
        fill(t, size, FNVTX_CBID_CORE_RangePop, FN(cb_pop));
        fill(t, size, FNVTX_CBID_CORE_NameCategoryA, FN(cb_name_category_a));
        fill(t, size, FNVTX_CBID_CORE_NameCategoryW, FN(cb_name_category_w));
    }
    if (cb->get_module_function_table(FNVTX_CB_MODULE_CORE2, &t, &size) && t) {
        fill(t, size, FNVTX_CBID_CORE2_DomainMarkEx, FN(cb_domain_mark_ex));
        fill(t, size, FNVTX_CBID_CORE2_DomainRangeStartEx, FN(cb_domain_start_ex));
        fill(t, size, FNVTX_CBID_CORE2_DomainRangeEnd, FN(cb_domain_end));
        fill(t, size, FNVTX_CBID_CORE2_DomainRangePushEx, FN(cb_domain_push_ex));
        fill(t, size, FNVTX_CBID_CORE2_DomainRangePop, FN(cb_domain_pop));
        fill(t, size, FNVTX_CBID_CORE2_DomainNameCategoryA, FN(cb_domain_name_category_a));
        fill(t, size, FNVTX_CBID_CORE2_DomainNameCategoryW, FN(cb_domain_name_category_w));
        fill(t, size, FNVTX_CBID_CORE2_DomainRegisterStringA, FN(cb_register_string_a));
        fill(t, size, FNVTX_CBID_CORE2_DomainRegisterStringW, FN(cb_register_string_w));
        fill(t, size, FNVTX_CBID_CORE2_DomainCreateA, FN(cb_domain_create_a));
        fill(t, size, FNVTX_CBID_CORE2_DomainCreateW, FN(cb_domain_create_w));
        fill(t, size, FNVTX_CBID_CORE2_DomainDestroy, FN(cb_domain_destroy));
    }
    return 1;
}
