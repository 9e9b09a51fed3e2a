/* nvtx_filter.c — parsing and matching --nvtx=FILTER; see nvtx_filter.h. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvtx_filter.h"

static int term_error(char *err, size_t errlen, int n, const char *tok, size_t len, const char *why)
{
    snprintf(err, errlen, "term %d '%.*s': %s", n, (int)(len > 60 ? 60 : len), tok, why);
    return -1;
}

static int parse_rate(const char *s, size_t len, long *out)
{
    long v = 0;
    if (len == 0 || len > 9)
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    if (v < 1)
        return -1;
    *out = v;
    return 0;
}

static int parse_term(struct nvtx_filter *f, const char *tok, size_t len, int n, char *err,
                      size_t errlen)
{
    if (len > 5 && memcmp(tok, "rate=", 5) == 0) {
        if (parse_rate(tok + 5, len - 5, &f->rate) != 0)
            return term_error(err, errlen, n, tok, len, "rate must be 1..999999999 per second");
        return 0;
    }
    struct nvtx_filter_term t;
    memset(&t, 0, sizeof t);
    size_t klen;
    if (len >= 4 && memcmp(tok, "name", 4) == 0) {
        t.field = NVTX_FIELD_NAME;
        klen = 4;
    } else if (len >= 6 && memcmp(tok, "domain", 6) == 0) {
        t.field = NVTX_FIELD_DOMAIN;
        klen = 6;
    } else if (len >= 8 && memcmp(tok, "category", 8) == 0) {
        t.field = NVTX_FIELD_CATEGORY;
        klen = 8;
    } else {
        return term_error(err, errlen, n, tok, len,
                          "expected name=, name!=, name~, name!~, domain=..., category=..., or rate=N");
    }
    const char *op = tok + klen;
    size_t rest = len - klen;
    if (rest >= 1 && op[0] == '!') {
        t.exclude = 1;
        op++;
        rest--;
    }
    if (rest >= 1 && op[0] == '~')
        t.is_regex = 1;
    else if (!(rest >= 1 && op[0] == '='))
        return term_error(err, errlen, n, tok, len, "expected = or ~ after the field");
    if (f->nterms == NVTX_FILTER_MAX_TERMS)
        return term_error(err, errlen, n, tok, len, "too many terms (at most 32)");
    t.pattern = malloc(rest);
    if (!t.pattern)
        return term_error(err, errlen, n, tok, len, "out of memory");
    memcpy(t.pattern, op + 1, rest - 1);
    t.pattern[rest - 1] = '\0';
    if (t.is_regex) {
        int rc = regcomp(&t.re, t.pattern, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char why[128] = "bad regex: ";
            regerror(rc, &t.re, why + strlen(why), sizeof why - strlen(why));
            free(t.pattern);
            return term_error(err, errlen, n, tok, len, why);
        }
    }
    if (!t.exclude)
        f->has_include[t.field] = 1;
    f->term[f->nterms++] = t;
    return 0;
}

int nvtx_filter_parse(struct nvtx_filter *f, const char *text, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    if (!text || !*text)
        return 0;
    int n = 1;
    for (const char *p = text;; n++) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0) {
            nvtx_filter_free(f);
            snprintf(err, errlen, "term %d is empty", n);
            return -1;
        }
        if (parse_term(f, p, len, n, err, errlen) != 0) {
            nvtx_filter_free(f);
            return -1;
        }
        if (!comma)
            break;
        p = comma + 1;
    }
    return 0;
}

static int term_matches(const struct nvtx_filter_term *t, const char *s)
{
    if (t->is_regex)
        return regexec(&t->re, s, 0, NULL, 0) == 0;
    return fnmatch(t->pattern, s, 0) == 0;
}

int nvtx_filter_pass(const struct nvtx_filter *f, const char *domain, const char *name)
{
    int included[2] = { !f->has_include[0], !f->has_include[1] };
    for (int i = 0; i < f->nterms; i++) {
        const struct nvtx_filter_term *t = &f->term[i];
        if (t->field == NVTX_FIELD_CATEGORY || (t->exclude ? 0 : included[t->field]))
            continue;                   /* this field is already in */
        if (!term_matches(t, t->field == NVTX_FIELD_NAME ? name : domain))
            continue;
        if (t->exclude)
            return 0;
        included[t->field] = 1;
    }
    return included[0] && included[1];
}

int nvtx_filter_pass_category(const struct nvtx_filter *f, const char *name, const char *number)
{
    int included = !f->has_include[NVTX_FIELD_CATEGORY];
    for (int i = 0; i < f->nterms; i++) {
        const struct nvtx_filter_term *t = &f->term[i];
        if (t->field != NVTX_FIELD_CATEGORY || (!t->exclude && included))
            continue;
        if (!term_matches(t, name) && !term_matches(t, number))
            continue;
        if (t->exclude)
            return 0;
        included = 1;
    }
    return included;
}

static int has_terms(const struct nvtx_filter *f, enum nvtx_filter_field field)
{
    for (int i = 0; i < f->nterms; i++)
        if (f->term[i].field == field)
            return 1;
    return 0;
}

int nvtx_filter_has_name_terms(const struct nvtx_filter *f) { return has_terms(f, NVTX_FIELD_NAME); }

int nvtx_filter_has_category_terms(const struct nvtx_filter *f)
{
    return has_terms(f, NVTX_FIELD_CATEGORY);
}

void nvtx_filter_free(struct nvtx_filter *f)
{
    for (int i = 0; i < f->nterms; i++) {
        if (f->term[i].is_regex)
            regfree(&f->term[i].re);
        free(f->term[i].pattern);
    }
    f->nterms = 0;
}
