/*
 * nvtx_names.h — the bridge's domains, registered strings, message labels
 * and filter (nvtx_names.c), for its callbacks (nvtx_bridge.c). Private to
 * the bridge.
 */
#ifndef FLINCH_NVTX_NAMES_H
#define FLINCH_NVTX_NAMES_H

#include <stdint.h>
#include <wchar.h>

#include "nvtx_abi.h"
#include "nvtx_attrs.h"

struct fnvtx_domain {
    char name[MARK_DOMAIN_MAX + 1];     /* "" : the default domain */
    int pass;                           /* the filter's answer, when names don't matter */
};

struct fnvtx_string {
    struct fnvtx_string *next;          /* registered_strings: every one, for life */
    const struct fnvtx_domain *domain;
    int pass;
    char label[MARK_LABEL_MAX + 1];
};

extern struct fnvtx_domain default_domain;
extern int filter_by_name;              /* some term of the filter looks at names */
extern int nocat_pass;                  /* the filter's category answer for no category
                                           (calls without attributes) */

/* Reads $FLINCH_NVTX_FILTER; -1 (said on stderr) when it is bad. */
int nvtx_names_init(void);
void nvtx_names_after_fork(void);

/* A handle's domain (NULL: the default one). */
const struct fnvtx_domain *dom(fnvtx_domain_handle d);
/* The filter's answer for a name in a domain. */
int passes(const struct fnvtx_domain *d, const char *name);
/* 1 while this second's starts and marks are under the filter's rate cap. */
int under_rate(int64_t now);
/* The label, the filter's answer and, for a mark that passes, what its
 * attributes add (category, payload: nvtx_attrs.c). */
void message_label(const struct fnvtx_domain *d, const struct fnvtx_event_attributes *a,
                   char *label, int *pass, struct nvtx_extra *x);

/* NVTX callbacks: domains, category names, registered strings. */
fnvtx_domain_handle cb_domain_create_a(const char *name);
fnvtx_domain_handle cb_domain_create_w(const wchar_t *name);
void cb_domain_destroy(fnvtx_domain_handle h);
void cb_name_category_a(uint32_t id, const char *name);
void cb_name_category_w(uint32_t id, const wchar_t *name);
void cb_domain_name_category_a(fnvtx_domain_handle h, uint32_t id, const char *name);
void cb_domain_name_category_w(fnvtx_domain_handle h, uint32_t id, const wchar_t *name);
fnvtx_string_handle cb_register_string_a(fnvtx_domain_handle h, const char *str);
fnvtx_string_handle cb_register_string_w(fnvtx_domain_handle h, const wchar_t *str);

#endif
