/*
 * nvtx_filter.h — which NVTX marks and ranges the bridge records: the
 * FILTER of `flinch record --nvtx=FILTER` (passed to the bridge in
 * $FLINCH_NVTX_FILTER). Compiled into both the bridge and flinch itself, so
 * `flinch record` rejects a bad filter before it starts anything.
 *
 * FILTER is a comma-separated list of terms (no comma inside a pattern):
 *   name=GLOB   name!=GLOB    include / exclude by name (fnmatch: * ? [..])
 *   name~RE     name!~RE      the same with a POSIX extended regex (search)
 *   domain=GLOB domain!=GLOB domain~RE domain!~RE   by NVTX domain; the
 *               default domain is the empty name (`domain=` selects it)
 *   category=GLOB category!=GLOB category~RE category!~RE   by NVTX
 *               category: a term matches when it matches the category's
 *               registered name (as recorded: spaces made '_') or its
 *               number; an event with no category (0, or no attributes)
 *               has the empty name (`category=` selects it)
 *   rate=N      at most N marks and range starts per second per process
 * A mark or range passes when, for names, domains and categories alike, it
 * matches at least one include term (if there are any) and no exclude
 * term. An empty FILTER passes everything.
 */
#ifndef FLINCH_NVTX_FILTER_H
#define FLINCH_NVTX_FILTER_H

#include <regex.h>
#include <stddef.h>

#define NVTX_FILTER_MAX_TERMS 32
#define NVTX_FILTER_ERROR_MAX 256

enum nvtx_filter_field { NVTX_FIELD_NAME, NVTX_FIELD_DOMAIN, NVTX_FIELD_CATEGORY, NVTX_FIELDS };

struct nvtx_filter_term {
    enum nvtx_filter_field field;
    int exclude;
    int is_regex;
    char *pattern;          /* glob */
    regex_t re;
};

struct nvtx_filter {
    int nterms;
    struct nvtx_filter_term term[NVTX_FILTER_MAX_TERMS];
    int has_include[NVTX_FIELDS];   /* per field */
    long rate;              /* 0: no cap */
};

/* Parses text (NULL or "" : pass everything). 0, or -1 with a one-line
 * reason in err ("term 2 'name~(': bad regex: ..."). */
int nvtx_filter_parse(struct nvtx_filter *f, const char *text, char *err, size_t errlen);

/* 1 when a mark or range named name in domain (the default: "") passes
 * the name and domain terms (category terms: nvtx_filter_pass_category). */
int nvtx_filter_pass(const struct nvtx_filter *f, const char *domain, const char *name);

/* 1 when a category passes the category terms: name is its registered
 * name, else its number, number its number in decimal ("" and "" for no
 * category). The fields are independent, so an event passes the filter
 * when both answers are 1. */
int nvtx_filter_pass_category(const struct nvtx_filter *f, const char *name, const char *number);

/* 1 when some term looks at names (a decision then needs each name). */
int nvtx_filter_has_name_terms(const struct nvtx_filter *f);
/* 1 when some term looks at categories. */
int nvtx_filter_has_category_terms(const struct nvtx_filter *f);

void nvtx_filter_free(struct nvtx_filter *f);

#endif
