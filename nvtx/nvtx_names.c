/*
 * nvtx_names.c — what an NVTX call is called and whether it is recorded:
 * the domains and registered strings (created rarely, kept for the life of
 * the process), category names, the label of a call's message, the
 * $FLINCH_NVTX_FILTER filter and its rate cap. The callbacks that record
 * marks and ranges are nvtx_bridge.c's.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvtx_attrs.h"
#include "nvtx_emit.h"
#include "nvtx_filter.h"
#include "nvtx_names.h"

#define DOMAINS_MAX 4096
#define STRINGS_MAX 65536

struct fnvtx_domain default_domain = { "", 1 };
static struct nvtx_filter filter;
int filter_by_name;                     /* some term looks at names */
static int filter_by_category;          /* some term looks at categories */
int nocat_pass = 1;                     /* the category terms' answer for no category */
static atomic_llong rate_second, rate_count;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fnvtx_domain *domains[DOMAINS_MAX];
static int ndomains;
static atomic_int nstrings;
static struct fnvtx_string *registered_strings; /* under registry_lock */

const struct fnvtx_domain *dom(fnvtx_domain_handle d)
{
    return d ? d : &default_domain;
}

/* The filter's answer for a name in a domain. */
int passes(const struct fnvtx_domain *d, const char *name)
{
    if (!filter_by_name)
        return d->pass;
    return nvtx_filter_pass(&filter, d->name, name ? name : "");
}

/* The rate cap: at most filter.rate starts and marks in each second of
 * CLOCK_MONOTONIC, per process (approximate at the second's edge when
 * threads race; never more than a few over). */
int under_rate(int64_t now)
{
    if (!filter.rate)
        return 1;
    long long sec = now / 1000000000LL, seen = atomic_load(&rate_second);
    if (seen != sec && atomic_compare_exchange_strong(&rate_second, &seen, sec))
        atomic_store(&rate_count, 0);
    return atomic_fetch_add(&rate_count, 1) < filter.rate;
}

/* The label of a call's message; *pass: the filter's answer. */
static void message_label_only(const struct fnvtx_domain *d, const struct fnvtx_event_attributes *a,
                               char *label, int *pass)
{
    if (!a || a->size < sizeof *a) {
        nvtx_label(label, NULL);
        *pass = passes(d, label);
        return;
    }
    switch (a->message_type) {
    case FNVTX_MESSAGE_REGISTERED:
        if (a->message.registered) {
            memcpy(label, a->message.registered->label, sizeof a->message.registered->label);
            *pass = a->message.registered->pass;
            return;
        }
        nvtx_label(label, NULL);
        break;
    case FNVTX_MESSAGE_UNICODE:
        nvtx_label_w(label, a->message.unicode);
        break;
    case FNVTX_MESSAGE_ASCII:              /* the filter sees the name as given */
        *pass = passes(d, a->message.ascii);
        if (*pass)
            nvtx_label(label, a->message.ascii);
        return;
    default:
        nvtx_label(label, NULL);
        break;
    }
    *pass = passes(d, label);
}

/* The category terms' answer for an event's attributes: looked up only
 * when the filter has such terms, and after the name and domain passed. */
static int category_passes(const struct fnvtx_domain *d, const struct fnvtx_event_attributes *a)
{
    if (!filter_by_category)
        return 1;
    if (!a || a->size < sizeof *a || a->category == 0)
        return nocat_pass;
    char name[MARK_CATEGORY_MAX + 1], number[16];
    nvtx_category_text(d, a->category, name);
    snprintf(number, sizeof number, "%lu", (unsigned long)a->category);
    return nvtx_filter_pass_category(&filter, name, number);
}

/* The label, the filter's answer and, for a mark that passes, what its
 * attributes add (category, payload: nvtx_attrs.c). */
void message_label(const struct fnvtx_domain *d, const struct fnvtx_event_attributes *a,
                   char *label, int *pass, struct nvtx_extra *x)
{
    message_label_only(d, a, label, pass);
    if (*pass && !category_passes(d, a))
        *pass = 0;
    if (*pass)
        nvtx_extra_from(d, a, x);
}

/* --- domains and registered strings: created rarely, kept for the life of
 * the process (a range may still name them); one domain per name. --- */

static fnvtx_domain_handle domain_create(const char *name)
{
    char clean[MARK_DOMAIN_MAX + 1];
    nvtx_domain_name(clean, name);
    struct fnvtx_domain *d = NULL;
    pthread_mutex_lock(&registry_lock);
    for (int i = 0; i < ndomains && !d; i++)
        if (strcmp(domains[i]->name, clean) == 0)
            d = domains[i];
    if (!d && ndomains < DOMAINS_MAX && (d = calloc(1, sizeof *d)) != NULL) {
        memcpy(d->name, clean, sizeof clean);
        d->pass = nvtx_filter_pass(&filter, d->name, "");
        domains[ndomains++] = d;
    }
    pthread_mutex_unlock(&registry_lock);
    return d;                           /* NULL: the default domain, to NVTX */
}

fnvtx_domain_handle cb_domain_create_a(const char *name) { return domain_create(name); }

fnvtx_domain_handle cb_domain_create_w(const wchar_t *name)
{
    char utf8[MARK_LABEL_MAX + 1];
    nvtx_label_w(utf8, name);
    return domain_create(utf8);
}

void cb_domain_destroy(fnvtx_domain_handle h) { (void)h; }

void cb_name_category_a(uint32_t id, const char *name)
{
    nvtx_category_name(&default_domain, id, name);
}

void cb_name_category_w(uint32_t id, const wchar_t *name)
{
    char utf8[MARK_LABEL_MAX + 1];
    nvtx_label_w(utf8, name);
    nvtx_category_name(&default_domain, id, utf8);
}

void cb_domain_name_category_a(fnvtx_domain_handle h, uint32_t id, const char *name)
{
    nvtx_category_name(dom(h), id, name);
}

void cb_domain_name_category_w(fnvtx_domain_handle h, uint32_t id, const wchar_t *name)
{
    char utf8[MARK_LABEL_MAX + 1];
    nvtx_label_w(utf8, name);
    nvtx_category_name(dom(h), id, utf8);
}

static fnvtx_string_handle register_string(fnvtx_domain_handle h, const char *label)
{
    if (atomic_fetch_add(&nstrings, 1) >= STRINGS_MAX)
        return NULL;                    /* its ranges arrive "(unnamed)" */
    struct fnvtx_string *s = malloc(sizeof *s);
    if (!s)
        return NULL;
    s->domain = dom(h);
    memcpy(s->label, label, sizeof s->label);
    s->pass = passes(s->domain, s->label);
    /* NVTX has no unregister: the handle lives as long as the process, and
     * the bridge holds it too, so that it is never a leak to a checker. */
    pthread_mutex_lock(&registry_lock);
    s->next = registered_strings;
    registered_strings = s;
    pthread_mutex_unlock(&registry_lock);
    return s;
}

fnvtx_string_handle cb_register_string_a(fnvtx_domain_handle h, const char *str)
{
    char label[MARK_LABEL_MAX + 1];
    nvtx_label(label, str);
    return register_string(h, label);
}

fnvtx_string_handle cb_register_string_w(fnvtx_domain_handle h, const wchar_t *str)
{
    char label[MARK_LABEL_MAX + 1];
    nvtx_label_w(label, str);
    return register_string(h, label);
}

/* Reads $FLINCH_NVTX_FILTER once; -1 (said on stderr) when it is bad. */
int nvtx_names_init(void)
{
    char err[NVTX_FILTER_ERROR_MAX];
    const char *text = getenv("FLINCH_NVTX_FILTER");
    if (nvtx_filter_parse(&filter, text, err, sizeof err) != 0) {
        fprintf(stderr, "flinch nvtx: FLINCH_NVTX_FILTER: %s; NVTX calls are not recorded\n", err);
        return -1;
    }
    filter_by_name = nvtx_filter_has_name_terms(&filter);
    filter_by_category = nvtx_filter_has_category_terms(&filter);
    nocat_pass = nvtx_filter_pass_category(&filter, "", "");
    default_domain.pass = nvtx_filter_pass(&filter, "", "");
    return 0;
}

void nvtx_names_after_fork(void)
{
    pthread_mutex_init(&registry_lock, NULL);
}
