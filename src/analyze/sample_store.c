/* sample_store.c — see sample_store.h. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "sample_store.h"

void store_init(struct sample_store *s, size_t rec)
{
    memset(s, 0, sizeof *s);
    s->rec = rec;
}

void store_free(struct sample_store *s)
{
    for (long i = 0; i < s->nblk; i++)
        free(s->blk[i]);
    for (int i = 0; i < s->nspare; i++)
        free(s->spare[i]);
    free(s->blk);
    free(s->num);
    store_init(s, s->rec);
}

/* 8-byte words after t, and the flags that say which of them a packed
 * sample holds (one byte up to 8 words). */
static int words(const struct sample_store *s)
{
    return (int)((s->rec - 8) / 8);
}

static size_t flags_size(const struct sample_store *s)
{
    return words(s) <= 8 ? 1 : 2;
}

static size_t block_size(size_t nbytes)
{
    return offsetof(struct store_block, data) + nbytes;
}

/* The entry of block b, -1 when not held. The blocks from trim_block on
 * are all held and are the last entries, so most lookups need no search. */
static long entry_of(const struct sample_store *s, long b)
{
    if (s->nblk == 0)
        return -1;
    long i = s->nblk - 1 - (s->num[s->nblk - 1] - b);
    if (i >= 0 && i < s->nblk && s->num[i] == b)
        return s->blk[i] ? i : -1;
    long lo = 0, hi = s->nblk;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (s->num[mid] < b)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->nblk && s->num[lo] == b && s->blk[lo] ? lo : -1;
}

/* Drops the entries of the blocks let go, once they are half of them. */
static void compact(struct sample_store *s)
{
    if (s->nfreed < 16 || s->nfreed * 2 < s->nblk)
        return;
    long k = 0;
    for (long i = 0; i < s->nblk; i++)
        if (s->blk[i]) {
            s->blk[k] = s->blk[i];
            s->num[k++] = s->num[i];
        }
    s->nblk = k;
    s->nfreed = 0;
}

static void recycle(struct sample_store *s, struct store_block *b)
{
    if (!b->packed && s->nspare < STORE_SPARE)
        s->spare[s->nspare++] = b;
    else
        free(b);
}

static void let_go(struct sample_store *s, long i)
{
    recycle(s, s->blk[i]);
    s->blk[i] = NULL;
    s->nfreed++;
}

int store_push(struct sample_store *s, const void *rec)
{
    long slot = s->end % STORE_BLOCK;
    if (slot == 0) {
        if (s->nblk == s->cap_blk) {
            long ncap = s->cap_blk ? s->cap_blk * 2 : 64;
            long *nn = realloc(s->num, sizeof *nn * (size_t)ncap);
            if (!nn)
                return -1;
            s->num = nn;
            struct store_block **nb = realloc(s->blk, sizeof *nb * (size_t)ncap);
            if (!nb)
                return -1;
            s->blk = nb;
            s->cap_blk = ncap;
        }
        struct store_block *b = s->nspare ? s->spare[--s->nspare]
                                          : malloc(block_size(STORE_BLOCK * s->rec));
        if (!b)
            return -1;
        b->num = s->end / STORE_BLOCK;
        b->pins = 0;
        b->packed = 0;
        b->nbytes = STORE_BLOCK * s->rec;
        s->num[s->nblk] = b->num;
        s->blk[s->nblk++] = b;
    }
    memcpy(s->blk[s->nblk - 1]->data + (size_t)slot * s->rec, rec, s->rec);
    s->end++;
    return 0;
}

int64_t store_time(const struct sample_store *s, long i)
{
    const struct store_block *b = s->blk[entry_of(s, i / STORE_BLOCK)];
    size_t at = (size_t)(i % STORE_BLOCK) * (b->packed ? sizeof(int64_t) : s->rec);
    int64_t t;
    memcpy(&t, b->data + at, sizeof t);
    return t;
}

long store_first_over(const struct sample_store *s, long from, long to, int64_t t)
{
    long i = from;
    while (i < to) {
        const struct store_block *b = s->blk[entry_of(s, i / STORE_BLOCK)];
        size_t stride = b->packed ? sizeof(int64_t) : s->rec;
        long slot = i % STORE_BLOCK, stop = slot + (to - i) < STORE_BLOCK ? slot + (to - i) : STORE_BLOCK;
        for (const unsigned char *p = b->data + (size_t)slot * stride; slot < stop; slot++, i++, p += stride) {
            int64_t ti;
            memcpy(&ti, p, sizeof ti);
            if (ti > t)
                return i;
        }
    }
    return to;
}

/* The packed form of a full block that is kept as pushed; NULL when out
 * of memory. */
static struct store_block *pack(const struct sample_store *s, const struct store_block *b)
{
    unsigned char buf[STORE_BLOCK * (sizeof(int64_t) + 2 + STORE_REC_MAX)];
    uint64_t prev[STORE_REC_MAX / 8] = { 0 };
    int nw = words(s);
    unsigned char *p = buf + STORE_BLOCK * sizeof(int64_t);
    for (int slot = 0; slot < STORE_BLOCK; slot++) {
        const unsigned char *r = b->data + (size_t)slot * s->rec;
        memcpy(buf + (size_t)slot * sizeof(int64_t), r, sizeof(int64_t));
        unsigned char *flags_at = p;
        p += flags_size(s);
        unsigned flags = 0;
        for (int k = 0; k < nw; k++) {
            uint64_t x;
            memcpy(&x, r + 8 + 8 * (size_t)k, 8);
            if (x != prev[k]) {
                flags |= 1u << k;
                memcpy(p, &x, 8);
                p += 8;
                prev[k] = x;
            }
        }
        flags_at[0] = (unsigned char)(flags & 0xff);
        if (flags_size(s) == 2)
            flags_at[1] = (unsigned char)(flags >> 8);
    }
    size_t n = (size_t)(p - buf);
    struct store_block *pb = malloc(block_size(n));
    if (!pb)
        return NULL;
    pb->num = b->num;
    pb->pins = b->pins;
    pb->packed = 1;
    pb->nbytes = n;
    memcpy(pb->data, buf, n);
    return pb;
}

void store_decode(const struct sample_store *s, long first, long n, void *out)
{
    unsigned char *o = out;
    int nw = words(s);
    for (long b = first / STORE_BLOCK; n > 0; b++) {
        const struct store_block *blk = s->blk[entry_of(s, b)];
        long from = first > b * STORE_BLOCK ? first - b * STORE_BLOCK : 0;
        long cnt = STORE_BLOCK - from < n ? STORE_BLOCK - from : n;
        if (!blk->packed) {
            memcpy(o, blk->data + (size_t)from * s->rec, (size_t)cnt * s->rec);
            o += (size_t)cnt * s->rec;
            n -= cnt;
            continue;
        }
        uint64_t state[STORE_REC_MAX / 8] = { 0 };
        const unsigned char *p = blk->data + STORE_BLOCK * sizeof(int64_t);
        for (long slot = 0; slot < from + cnt; slot++) {
            unsigned flags = p[0];
            if (flags_size(s) == 2)
                flags |= (unsigned)p[1] << 8;
            p += flags_size(s);
            for (int k = 0; k < nw; k++)
                if (flags & (1u << k)) {
                    memcpy(&state[k], p, 8);
                    p += 8;
                }
            if (slot >= from) {
                memcpy(o, blk->data + (size_t)slot * sizeof(int64_t), sizeof(int64_t));
                memcpy(o + 8, state, (size_t)nw * 8);
                o += s->rec;
            }
        }
        n -= cnt;
    }
}

void store_pin(struct sample_store *s, long first, long n)
{
    for (long b = first / STORE_BLOCK; b <= (first + n - 1) / STORE_BLOCK; b++) {
        long i = entry_of(s, b);
        if (i >= 0)
            s->blk[i]->pins++;
    }
}

void store_unpin(struct sample_store *s, long first, long n)
{
    for (long b = first / STORE_BLOCK; b <= (first + n - 1) / STORE_BLOCK; b++) {
        long i = entry_of(s, b);
        if (i >= 0 && --s->blk[i]->pins == 0 && b < s->trim_block)
            let_go(s, i);
    }
    compact(s);
}

int store_trim(struct sample_store *s, long keep_from)
{
    long kb = keep_from / STORE_BLOCK;
    if (kb <= s->trim_block)
        return 0;                        /* the common case: called on every push */
    if (kb > s->end / STORE_BLOCK)
        kb = s->end / STORE_BLOCK;       /* full blocks only */
    for (; s->trim_block < kb; s->trim_block++) {
        long i = entry_of(s, s->trim_block);
        if (i < 0)
            continue;
        if (s->blk[i]->pins == 0) {
            let_go(s, i);
        } else if (!s->blk[i]->packed) {
            struct store_block *pb = pack(s, s->blk[i]);
            if (!pb)
                return -1;
            recycle(s, s->blk[i]);
            s->blk[i] = pb;
        }
    }
    compact(s);
    return 0;
}
