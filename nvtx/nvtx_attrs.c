/* nvtx_attrs.c — category names and payloads of NVTX events; see nvtx_attrs.h. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvtx_attrs.h"

/*
 * Category names are registered rarely and looked up on every event that
 * carries a category, from any thread: entries are written once under a
 * lock and published by bumping the count, so a lookup reads without a
 * lock. Renaming a category appends a newer entry; lookups scan from the
 * newest.
 */
struct category_name {
    const void *domain;
    uint32_t id;
    char name[MARK_CATEGORY_MAX + 1];
};

static struct category_name names[NVTX_CATEGORY_NAMES_MAX];
static atomic_int nnames;
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;

void nvtx_category_name(const void *domain, uint32_t id, const char *name)
{
    pthread_mutex_lock(&names_lock);
    int n = atomic_load(&nnames);
    if (id != 0 && n < NVTX_CATEGORY_NAMES_MAX) {
        names[n].domain = domain;
        names[n].id = id;
        nvtx_domain_name(names[n].name, name);  /* same rules: no spaces, 64 bytes */
        atomic_store(&nnames, n + 1);
    }
    pthread_mutex_unlock(&names_lock);
}

void nvtx_attrs_after_fork(void) { pthread_mutex_init(&names_lock, NULL); }

void nvtx_category_text(const void *domain, uint32_t id, char *out)
{
    for (int i = atomic_load(&nnames) - 1; i >= 0; i--)
        if (names[i].id == id && names[i].domain == domain) {
            memcpy(out, names[i].name, sizeof names[i].name);
            return;
        }
    snprintf(out, MARK_CATEGORY_MAX + 1, "%lu", (unsigned long)id);
}

/* The shortest of %.15g/%.17g that reads back as v (a float: %.9g). */
static void double_text(double v, int digits, char *out)
{
    snprintf(out, MARK_PAYLOAD_MAX + 1, "%.*g", digits == 9 ? 9 : 15, v);
    if (digits != 9 && strtod(out, NULL) != v)
        snprintf(out, MARK_PAYLOAD_MAX + 1, "%.17g", v);
}

void nvtx_extra_from(const void *domain, const struct fnvtx_event_attributes *a,
                     struct nvtx_extra *x)
{
    x->category[0] = x->payload[0] = '\0';
    if (!a || a->size < sizeof *a)
        return;
    if (a->category)
        nvtx_category_text(domain, a->category, x->category);
    switch (a->payload_type) {
    case FNVTX_PAYLOAD_U64:
        snprintf(x->payload, sizeof x->payload, "%llu", (unsigned long long)a->payload.u64);
        break;
    case FNVTX_PAYLOAD_I64:
        snprintf(x->payload, sizeof x->payload, "%lld", (long long)a->payload.i64);
        break;
    case FNVTX_PAYLOAD_U32:
        snprintf(x->payload, sizeof x->payload, "%lu", (unsigned long)a->payload.u32);
        break;
    case FNVTX_PAYLOAD_I32:
        snprintf(x->payload, sizeof x->payload, "%ld", (long)a->payload.i32);
        break;
    case FNVTX_PAYLOAD_DOUBLE:
        if (isfinite(a->payload.d))     /* inf and NaN are not JSON numbers: left out */
            double_text(a->payload.d, 17, x->payload);
        break;
    case FNVTX_PAYLOAD_FLOAT:
        if (isfinite(a->payload.f))
            double_text(a->payload.f, 9, x->payload);
        break;
    default:
        break;
    }
}
