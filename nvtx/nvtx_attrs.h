/*
 * nvtx_attrs.h — what an NVTX event's attributes add to its mark: the
 * category (by the name nvtxNameCategoryA/W or nvtxDomainNameCategoryA/W
 * gave it, else its number) and the payload (its value as a JSON number),
 * the category= and payload= keys of the line protocol (mark_line.h).
 * Colours are not recorded.
 */
#ifndef FLINCH_NVTX_ATTRS_H
#define FLINCH_NVTX_ATTRS_H

#include <stdint.h>

#include "nvtx_abi.h"
#include "nvtx_emit.h"

#define NVTX_CATEGORY_NAMES_MAX 1024    /* names kept; later ones: the number */

/* Fills x from a's category and payload (a may be NULL or too small: nothing). */
void nvtx_extra_from(const void *domain, const struct fnvtx_event_attributes *a,
                     struct nvtx_extra *x);

/* Names category id of domain (a domain handle; the default domain's own
 * pointer) for the marks that follow; name as a label (UTF-8). */
void nvtx_category_name(const void *domain, uint32_t id, const char *name);

/* The text of category id (not 0) of domain: its name, else its number;
 * out holds MARK_CATEGORY_MAX + 1 bytes. */
void nvtx_category_text(const void *domain, uint32_t id, char *out);

/* In a forked child: the registry's lock may have been held by another thread. */
void nvtx_attrs_after_fork(void);

#endif
