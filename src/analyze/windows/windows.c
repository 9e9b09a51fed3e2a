/*
 * windows.c — the pairing rule for start and end MARKs; see windows.h.
 *
 * Time: linear in marks + windows. The open windows are a list in opening
 * order with a moving head (dropping the oldest is O(1), not a shift of the
 * whole list) and holes where a range closed out of order, squeezed out
 * once they outnumber the open windows. By range a close walks only the
 * chain of its ID's hash; 100,000 open ranges made every close walk them
 * all (21 s). Memory: one slot (~80 bytes) per open window.
 */
#include <stdint.h>
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
    free(p->slot);
    free(p->bucket);
    free(p->bucket_tail);
    free(p->heap);
    free(p->closed_names);
    free(p->closed);
    memset(p, 0, sizeof *p);
}

long pairing_open_count(const struct pairing *p) { return p->nopen; }

long pairing_oldest_id(const struct pairing *p)
{
    for (long i = p->head; i < p->nslot; i++)
        if (p->slot[i].id >= 0)
            return p->slot[i].id;
    return -1;
}

static unsigned long hash_key(const char *k)
{
    unsigned long h = 2166136261u;          /* FNV-1a */
    for (; *k; k++)
        h = (h ^ (unsigned char)*k) * 16777619u;
    return h;
}

static long bucket_of(const struct pairing *p, const char *key)
{
    return (long)(hash_key(key) & (unsigned long)(p->nbucket - 1));
}

/* Appends open slot i to its key's chain (slots are chained in order). */
static void chain_append(struct pairing *p, long i)
{
    long b = bucket_of(p, p->slot[i].key);
    p->slot[i].next = -1;
    if (p->bucket_tail[b] >= 0)
        p->slot[p->bucket_tail[b]].next = i;
    else
        p->bucket[b] = i;
    p->bucket_tail[b] = i;
}

/* By label: the heap of slot indices by start time (ties: opening order). */
static int heap_less(const struct pairing *p, long a, long b)
{
    return p->slot[a].t < p->slot[b].t || (p->slot[a].t == p->slot[b].t && a < b);
}

static void heap_push(struct pairing *p, long i)
{
    long k = p->nheap++;
    while (k > 0 && heap_less(p, i, p->heap[(k - 1) / 2])) {
        p->heap[k] = p->heap[(k - 1) / 2];
        k = (k - 1) / 2;
    }
    p->heap[k] = i;
}

static long heap_pop(struct pairing *p)
{
    long top = p->heap[0], last = p->heap[--p->nheap], k = 0;
    for (;;) {
        long c = 2 * k + 1;
        if (c >= p->nheap)
            break;
        if (c + 1 < p->nheap && heap_less(p, p->heap[c + 1], p->heap[c]))
            c++;
        if (!heap_less(p, p->heap[c], last))
            break;
        p->heap[k] = p->heap[c];
        k = c;
    }
    if (p->nheap > 0)
        p->heap[k] = last;
    return top;
}

/* Squeezes out closed slots and the ones before head, and chains the open
 * ones again (by range). Linear in the slots; done when holes outnumber
 * open windows, so amortized O(1) per window. */
static void squeeze(struct pairing *p)
{
    long k = 0;
    for (long i = p->head; i < p->nslot; i++)
        if (p->slot[i].id >= 0)
            p->slot[k++] = p->slot[i];
    p->head = 0;
    p->nslot = k;
    if (!p->by_range) {
        p->nheap = 0;                   /* slot indices moved: heap them again */
        for (long i = 0; i < p->nslot; i++)
            heap_push(p, i);
        return;
    }
    for (long b = 0; b < p->nbucket; b++)
        p->bucket[b] = p->bucket_tail[b] = -1;
    for (long i = 0; i < p->nslot; i++)
        chain_append(p, i);
}

void pairing_forget_open(struct pairing *p)
{
    p->head = p->nslot = p->nopen = p->nheap = 0;
    for (long b = 0; b < p->nbucket; b++)
        p->bucket[b] = p->bucket_tail[b] = -1;
}

/* Room for one more open slot. 0, or -1 when out of memory. */
static int grow_open(struct pairing *p)
{
    if (!p->closed) {
        p->closed = malloc(sizeof *p->closed);
        if (!p->closed)
            return -1;
        p->ncap_closed = 1;
    }
    if (p->nslot < p->cap)
        return 0;
    if (p->nslot - p->nopen >= p->cap / 2 && p->cap) {
        squeeze(p);                     /* half of it holes: room without growing */
        return 0;
    }
    long ncap = p->cap ? p->cap * 2 : 16;
    struct open_slot *ns = realloc(p->slot, sizeof *ns * (size_t)ncap);
    if (!ns)
        return -1;
    p->slot = ns;
    p->cap = ncap;
    if (!p->by_range) {
        long *nh = realloc(p->heap, sizeof *nh * (size_t)ncap);
        if (!nh)
            return -1;
        p->heap = nh;
    } else {
        long *nb = realloc(p->bucket, sizeof *nb * (size_t)ncap);
        if (!nb)
            return -1;
        p->bucket = nb;
        long *nt = realloc(p->bucket_tail, sizeof *nt * (size_t)ncap);
        if (!nt)
            return -1;
        p->bucket_tail = nt;
        p->nbucket = ncap;
    }
    squeeze(p);                         /* rehash for the new table size */
    return 0;
}

static int add_open(struct pairing *p, long id, int64_t t, const char *name, const char *key)
{
    if (grow_open(p) != 0)
        return -1;
    struct open_slot *s = &p->slot[p->nslot];
    s->id = id;
    s->t = t;
    s->name = name;
    s->next = -1;
    s->key[0] = '\0';
    if (key)
        memcpy(s->key, key, sizeof s->key);
    if (p->by_range)
        chain_append(p, p->nslot);
    else
        heap_push(p, p->nslot);
    p->nslot++;
    p->nopen++;
    return 0;
}

/* Room in closed[] for n ids. */
static int room_to_close(struct pairing *p, long n, struct pairing_step *step)
{
    if (p->ncap_closed < n) {
        long *c = realloc(p->closed, sizeof *c * (size_t)n);
        if (!c)
            return -1;
        p->closed = c;
        p->ncap_closed = n;
        step->closed = c;
    }
    return 0;
}

/* Closes slot i of bucket b whose predecessor in the chain is prev (-1:
 * it is the first): a hole from now on. */
static void unchain(struct pairing *p, long b, long prev, long i)
{
    long next = p->slot[i].next;
    if (prev >= 0)
        p->slot[prev].next = next;
    else
        p->bucket[b] = next;
    if (p->bucket_tail[b] == i)
        p->bucket_tail[b] = prev;
    p->slot[i].id = -1;
    p->nopen--;
    while (p->head < p->nslot && p->slot[p->head].id < 0)
        p->head++;
}

long pairing_drop_oldest(struct pairing *p)
{
    if (p->nopen == 0)
        return -1;
    while (p->slot[p->head].id < 0)
        p->head++;
    long i = p->head, id = p->slot[i].id;
    if (p->by_range)     /* the oldest open window is the first of its chain */
        unchain(p, bucket_of(p, p->slot[i].key), -1, i);
    else {
        p->slot[i].id = -1;
        p->nopen--;
        p->head++;
    }
    return id;
}

void pairing_remap_ids(struct pairing *p, long (*map)(void *arg, long id), void *arg)
{
    for (long i = p->head; i < p->nslot; i++)
        if (p->slot[i].id >= 0)
            p->slot[i].id = map(arg, p->slot[i].id);
}

/* Any range: an end=ID closes the first open window of each name with that
 * ID (the one a per-name pairing would close), unless that one starts after
 * the end (then, as there, that name closes nothing). The chain is in
 * opening order, so "first" is the first met; a name is decided once. */
static int close_any(struct pairing *p, const struct mark_attrs *a, int64_t t,
                     struct pairing_step *step)
{
    if (room_to_close(p, p->nopen, step) != 0)
        return -1;
    if (p->ncap_names < p->nopen) {
        const char **n = realloc(p->closed_names, sizeof *n * (size_t)p->nopen);
        if (!n)
            return -1;
        p->closed_names = n;
        p->ncap_names = p->nopen;
    }
    long ndecided = 0;
    long b = p->nbucket ? bucket_of(p, a->range_id) : 0;
    for (long prev = -1, i = p->nbucket ? p->bucket[b] : -1; i >= 0;) {
        struct open_slot *s = &p->slot[i];
        long next = s->next;
        int decided = strcmp(s->key, a->range_id) != 0;
        for (long k = 0; k < ndecided && !decided; k++)
            decided = p->closed_names[k] == s->name;
        if (!decided) {
            p->closed_names[ndecided++] = s->name;
            if (s->t <= t) {
                step->closed = p->closed;
                p->closed[step->nclosed++] = s->id;
                unchain(p, b, prev, i);
                i = next;
                continue;
            }
        }
        prev = i;
        i = next;
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
        if (add_open(p, new_id, t, name, a->range_id) != 0)
            return -1;
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
        if (add_open(p, new_id, t, NULL, a->range_id) != 0)
            return -1;
        step->opens = 1;
        return 0;
    }
    long b = p->nbucket ? bucket_of(p, a->range_id) : 0;
    for (long prev = -1, i = p->nbucket ? p->bucket[b] : -1; i >= 0; prev = i, i = p->slot[i].next) {
        if (strcmp(p->slot[i].key, a->range_id) != 0)
            continue;
        if (p->slot[i].t > t)
            break;                      /* ends before it starts: not a pair */
        step->closed = p->closed;
        p->closed[step->nclosed++] = p->slot[i].id;
        unchain(p, b, prev, i);
        return 0;
    }
    if (named && !p->category)
        p->unmatched_ends++;
    return 0;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* By label: an end closes every open window that starts at or before it,
 * in opening order: the heap gives them (closed slots met on the way are
 * dropped from it), sorted back into slot order. The ones left open are
 * not looked at, so ends that close a few among many open cost O(log n)
 * each. */
static int close_by_label(struct pairing *p, int64_t t, struct pairing_step *step)
{
    if (p->nopen == 0)
        return 0;
    long n = 0;
    while (p->nheap > 0 && p->slot[p->heap[0]].t <= t) {
        long i = heap_pop(p);
        if (p->slot[i].id < 0)
            continue;
        if (room_to_close(p, n + 1 > p->nopen ? n + 1 : p->nopen, step) != 0)
            return -1;
        p->closed[n++] = i;
    }
    qsort(p->closed, (size_t)n, sizeof *p->closed, cmp_long);
    for (long k = 0; k < n; k++) {
        struct open_slot *s = &p->slot[p->closed[k]];
        p->closed[k] = s->id;
        s->id = -1;
    }
    step->nclosed = n;
    p->nopen -= n;
    while (p->head < p->nslot && p->slot[p->head].id < 0)
        p->head++;
    if (p->nopen == 0)
        p->head = p->nslot = p->nheap = 0;   /* all closed: start over at slot 0 */
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
        if (close_by_label(p, t, step) != 0)
            return -1;
        if (step->nclosed == 0 && strcmp(label, p->start_label) != 0)
            p->unmatched_ends++;
    }
    if (strcmp(label, p->start_label) == 0) {
        if (add_open(p, new_id, t, NULL, NULL) != 0)
            return -1;
        step->opens = 1;
    }
    return 0;
}
