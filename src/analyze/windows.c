/* windows.c — the pairing rule for start and end MARKs; see windows.h. */
#include <stdlib.h>
#include <string.h>

#include "windows.h"

void pairing_init(struct pairing *p, const char *start_label, const char *end_label)
{
    memset(p, 0, sizeof *p);
    p->start_label = start_label;
    p->end_label = end_label;
}

void pairing_init_range(struct pairing *p, const char *name, const char *domain)
{
    pairing_init(p, name, name);
    p->by_range = 1;
    p->domain = domain;
}

void pairing_init_any(struct pairing *p, range_namer_fn namer, void *arg)
{
    pairing_init(p, "", "");
    p->by_range = 1;
    p->namer = namer;
    p->namer_arg = arg;
}

void pairing_free(struct pairing *p)
{
    free(p->open_name);
    free(p->closed_names);
    free(p->open_key);
    free(p->open_id);
    free(p->open_t);
    free(p->closed);
    memset(p, 0, sizeof *p);
}

long pairing_open_count(const struct pairing *p) { return p->nopen; }

void pairing_forget_open(struct pairing *p)
{
    p->nopen = 0;
}
const long *pairing_open_ids(const struct pairing *p) { return p->open_id; }

/* Room for one more open window (and, by range, its key). */
static int grow_open(struct pairing *p)
{
    if (p->nopen < p->cap)
        return 0;
    long ncap = p->cap ? p->cap * 2 : 16;
    long *ni = realloc(p->open_id, sizeof *ni * (size_t)ncap);
    if (!ni)
        return -1;
    p->open_id = ni;
    int64_t *nt = realloc(p->open_t, sizeof *nt * (size_t)ncap);
    if (!nt)
        return -1;
    p->open_t = nt;
    if (p->by_range) {
        char (*nk)[MARK_RANGE_ID_MAX + 1] = realloc(p->open_key, sizeof *nk * (size_t)ncap);
        if (!nk)
            return -1;
        p->open_key = nk;
    }
    if (p->namer) {
        const char **nn = realloc(p->open_name, sizeof *nn * (size_t)ncap);
        if (!nn)
            return -1;
        p->open_name = nn;
    }
    if (!p->closed) {
        p->closed = malloc(sizeof *p->closed);
        if (!p->closed)
            return -1;
        p->ncap_closed = 1;
    }
    p->cap = ncap;
    return 0;
}

/* Room in closed[] for every open window at once. */
static int room_to_close_all(struct pairing *p, struct pairing_step *step)
{
    if (p->ncap_closed < p->nopen) {
        long *n = realloc(p->closed, sizeof *n * (size_t)p->nopen);
        if (!n)
            return -1;
        p->closed = n;
        p->ncap_closed = p->nopen;
        step->closed = n;
    }
    return 0;
}

static void remove_open(struct pairing *p, long i)
{
    p->nopen--;
    memmove(p->open_id + i, p->open_id + i + 1, sizeof *p->open_id * (size_t)(p->nopen - i));
    memmove(p->open_t + i, p->open_t + i + 1, sizeof *p->open_t * (size_t)(p->nopen - i));
    memmove(p->open_key + i, p->open_key + i + 1, sizeof *p->open_key * (size_t)(p->nopen - i));
    if (p->open_name)
        memmove(p->open_name + i, p->open_name + i + 1,
                sizeof *p->open_name * (size_t)(p->nopen - i));
}

static void close_open(struct pairing *p, long i, struct pairing_step *step)
{
    step->closed = p->closed;
    p->closed[step->nclosed++] = p->open_id[i];
    remove_open(p, i);
}

long pairing_drop_oldest(struct pairing *p)
{
    if (p->nopen == 0)
        return -1;
    long id = p->open_id[0];
    remove_open(p, 0);
    return id;
}

/* Any range: an end=ID closes the first open window of each name with that
 * ID (the one a per-name pairing would close), unless that one starts after
 * the end (then, as there, that name closes nothing). Windows stay in
 * opening order, so "first" is the first met; a name is decided once. */
static int close_any(struct pairing *p, const struct mark_attrs *a, int64_t t,
                     struct pairing_step *step)
{
    if (room_to_close_all(p, step) != 0)
        return -1;
    if (p->ncap_names < p->nopen) {
        const char **n = realloc(p->closed_names, sizeof *n * (size_t)p->nopen);
        if (!n)
            return -1;
        p->closed_names = n;
        p->ncap_names = p->nopen;
    }
    long ndecided = 0;
    for (long i = 0; i < p->nopen;) {
        int decided = strcmp(p->open_key[i], a->range_id) != 0;
        for (long k = 0; k < ndecided && !decided; k++)
            decided = p->closed_names[k] == p->open_name[i];
        if (decided) {
            i++;
            continue;
        }
        p->closed_names[ndecided++] = p->open_name[i];
        if (p->open_t[i] > t) {
            i++;
            continue;
        }
        close_open(p, i, step);
    }
    if (ndecided == 0)
        p->unmatched_ends++;
    return 0;
}

static int on_range_mark(struct pairing *p, const char *label, const struct mark_attrs *a,
                         int64_t t, long new_id, struct pairing_step *step)
{
    if (!a || a->edge == MARK_EDGE_NONE)
        return 0;
    if (p->namer && a->edge == MARK_EDGE_START) {
        const char *name = p->namer(p->namer_arg, label);
        if (!name)
            return 0;
        if (grow_open(p) != 0)
            return -1;
        p->open_id[p->nopen] = new_id;
        p->open_t[p->nopen] = t;
        p->open_name[p->nopen] = name;
        memcpy(p->open_key[p->nopen++], a->range_id, sizeof p->open_key[0]);
        step->opens = 1;
        step->name = name;
        return 0;
    }
    if (p->namer)
        return close_any(p, a, t, step);
    int named = strcmp(label, p->start_label) == 0 &&
                (!p->domain || strcmp(a->domain, p->domain) == 0);
    if (a->edge == MARK_EDGE_START) {
        if (!named || (p->category && strcmp(a->category, p->category) != 0))
            return 0;
        if (grow_open(p) != 0)
            return -1;
        p->open_id[p->nopen] = new_id;
        p->open_t[p->nopen] = t;
        memcpy(p->open_key[p->nopen++], a->range_id, sizeof p->open_key[0]);
        step->opens = 1;
        return 0;
    }
    for (long i = 0; i < p->nopen; i++) {
        if (strcmp(p->open_key[i], a->range_id) != 0)
            continue;
        if (p->open_t[i] > t)
            break;                      /* ends before it starts: not a pair */
        close_open(p, i, step);
        return 0;
    }
    if (named && !p->category)
        p->unmatched_ends++;
    return 0;
}

int pairing_on_mark(struct pairing *p, const char *label, const struct mark_attrs *attrs,
                    int64_t t, long new_id, struct pairing_step *step)
{
    step->closed = p->closed;
    step->nclosed = 0;
    step->opens = 0;
    step->name = NULL;
    if (p->by_range)
        return on_range_mark(p, label, attrs, t, new_id, step);
    if (strcmp(label, p->end_label) == 0) {
        if (room_to_close_all(p, step) != 0)
            return -1;
        long kept = 0;
        for (long i = 0; i < p->nopen; i++) {
            if (p->open_t[i] <= t) {
                p->closed[step->nclosed++] = p->open_id[i];
            } else {
                p->open_id[kept] = p->open_id[i];
                p->open_t[kept++] = p->open_t[i];
            }
        }
        p->nopen = kept;
        if (step->nclosed == 0 && strcmp(label, p->start_label) != 0)
            p->unmatched_ends++;
    }
    if (strcmp(label, p->start_label) == 0) {
        if (grow_open(p) != 0)
            return -1;
        p->open_id[p->nopen] = new_id;
        p->open_t[p->nopen++] = t;
        step->opens = 1;
    }
    return 0;
}
