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
 *   rate=N      at most N marks and range starts per second per process
 * A mark or range passes when, for names and for domains alike, it matches
 * at least one include term (if there are any) and no exclude term. An
 * empty FILTER passes everything.
 */
#ifndef FLINCH_NVTX_FILTER_H
#define FLINCH_NVTX_FILTER_H

#include <regex.h>
#include <stddef.h>

#define NVTX_FILTER_MAX_TERMS 32
#define NVTX_FILTER_ERROR_MAX 256

enum nvtx_filter_field { NVTX_FIELD_NAME, NVTX_FIELD_DOMAIN };

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
    int has_include[2];     /* per field */
    long rate;              /* 0: no cap */
};

/* Parses text (NULL or "" : pass everything). 0, or -1 with a one-line
 * reason in err ("term 2 'name~(': bad regex: ..."). */
int nvtx_filter_parse(struct nvtx_filter *f, const char *text, char *err, size_t errlen);

/* 1 when a mark or range named name in domain (the default: "") passes. */
int nvtx_filter_pass(const struct nvtx_filter *f, const char *domain, const char *name);

/* 1 when some term looks at names (a decision then needs each name). */
int nvtx_filter_has_name_terms(const struct nvtx_filter *f);

void nvtx_filter_free(struct nvtx_filter *f);

#endif
