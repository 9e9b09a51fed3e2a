/* sample_store.c — see sample_store.h. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "sample_store.h"
#include "store_codec.h"

void store_init(struct sample_store *s, size_t rec)
{
    memset(s, 0, sizeof *s);
    s->rec = rec;
    /* packed blocks only come with windows that hold samples back, and then
     * many: start on huge pages rather than with the arena's small chunks
     * (~500 faults of 4 KiB before it reaches REGION_HUGE) */
    s->packed_mem.next_bytes = REGION_HUGE;
}

void store_free(struct sample_store *s)
{
    for (long i = 0; i < s->nblk; i++)
        if (s->e[i].blk && !s->e[i].packed)
            free(s->e[i].blk);
    for (int i = 0; i < s->nspare; i++)
        free(s->spare[i]);
    free(s->e);
    region_done(&s->packed_mem);          /* every packed block at once */
    store_init(s, s->rec);
}

/* 4-byte words after t. A packed sample's flags, which say which of them
 * it holds, take one byte up to 8 words, else two (store_codec.h). */
static int words(const struct sample_store *s)
{
    return (int)((s->rec - 8) / 4);
}

/* A packed block's data: the first sample's time, whether the times are
 * kept whole (some sample lies 2^31 ns or more from the first), the times
 * (as int32_t offsets from the first, or whole), then the samples' flags
 * and words (store_codec.h). */
struct packed_head {
    int64_t t0;
    int64_t wide;
};

static size_t packed_time_size(const struct packed_head *h)
{
    return h->wide ? sizeof(int64_t) : sizeof(int32_t);
}

static int64_t packed_time(const struct store_block *b, long slot)
{
    struct packed_head h;
    memcpy(&h, b->data, sizeof h);
    const unsigned char *p = b->data + sizeof h + (size_t)slot * packed_time_size(&h);
    if (h.wide) {
        int64_t t;
        memcpy(&t, p, sizeof t);
        return t;
    }
    int32_t d;
    memcpy(&d, p, sizeof d);
    return h.t0 + d;
}

static const unsigned char *packed_samples(const struct store_block *b)
{
    struct packed_head h;
    memcpy(&h, b->data, sizeof h);
    return b->data + sizeof h + STORE_BLOCK * packed_time_size(&h);
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
    long i = s->nblk - 1 - (s->e[s->nblk - 1].num - b);
    if (i >= 0 && i < s->nblk && s->e[i].num == b)
        return s->e[i].blk ? i : -1;
    long lo = 0, hi = s->nblk;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (s->e[mid].num < b)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->nblk && s->e[lo].num == b && s->e[lo].blk ? lo : -1;
}

/* Drops the entries of the blocks let go, once they are half of them. */
static void compact(struct sample_store *s)
{
    if (s->nfreed < 16 || s->nfreed * 2 < s->nblk)
        return;
    long k = 0;
    for (long i = 0; i < s->nblk; i++)
        if (s->e[i].blk)
            s->e[k++] = s->e[i];
    s->nblk = k;
    s->nfreed = 0;
}

static void recycle(struct sample_store *s, struct store_block *b, int packed)
{
    if (packed)
        region_free(&s->packed_mem, b);
    else if (s->nspare < STORE_SPARE)
        s->spare[s->nspare++] = b;
    else
        free(b);
}

static void let_go(struct sample_store *s, long i)
{
    recycle(s, s->e[i].blk, s->e[i].packed);
    s->e[i].blk = NULL;
    s->nfreed++;
}

int store_push(struct sample_store *s, const void *rec)
{
    long slot = s->end % STORE_BLOCK;
    if (slot == 0) {
        if (s->nblk == s->cap_blk) {
            long ncap = s->cap_blk ? s->cap_blk * 2 : 64;
            struct store_entry *ne = realloc(s->e, sizeof *ne * (size_t)ncap);
            if (!ne)
                return -1;
            s->e = ne;
            s->cap_blk = ncap;
        }
        struct store_block *b = s->nspare ? s->spare[--s->nspare]
                                          : malloc(block_size(STORE_BLOCK * s->rec));
        if (!b)
            return -1;
        b->nbytes = STORE_BLOCK * s->rec;
        s->e[s->nblk++] = (struct store_entry){ s->end / STORE_BLOCK, 0, b, 0 };
    }
    memcpy(s->e[s->nblk - 1].blk->data + (size_t)slot * s->rec, rec, s->rec);
    s->end++;
    return 0;
}

int64_t store_time(const struct sample_store *s, long i)
{
    const struct store_entry *e = &s->e[entry_of(s, i / STORE_BLOCK)];
    const struct store_block *b = e->blk;
    if (e->packed)
        return packed_time(b, i % STORE_BLOCK);
    int64_t t;
    memcpy(&t, b->data + (size_t)(i % STORE_BLOCK) * s->rec, sizeof t);
    return t;
}

long store_first_over(const struct sample_store *s, long from, long to, int64_t t)
{
    long i = from;
    while (i < to) {
        const struct store_entry *e = &s->e[entry_of(s, i / STORE_BLOCK)];
        const struct store_block *b = e->blk;
        long slot = i % STORE_BLOCK, stop = slot + (to - i) < STORE_BLOCK ? slot + (to - i) : STORE_BLOCK;
        if (e->packed) {
            for (; slot < stop; slot++, i++)
                if (packed_time(b, slot) > t)
                    return i;
            continue;
        }
        for (const unsigned char *p = b->data + (size_t)slot * s->rec; slot < stop; slot++, i++, p += s->rec) {
            int64_t ti;
            memcpy(&ti, p, sizeof ti);
            if (ti > t)
                return i;
        }
    }
    return to;
}

/* n bytes (a multiple of 16) from src to dst (aligned to 16), past the
 * cache where SSE2 can: a packed block is written once here and read once
 * when its window is decoded at the end of the trace, long after it has
 * left the cache, and a plain store first reads each line of that fresh
 * memory in (a third of packing's time went to the copy). */
static void copy_streaming(void *dst, const unsigned char *src, size_t n)
{
#ifdef __SSE2__
    for (size_t i = 0; i < n; i += 16)
        _mm_stream_si128((__m128i *)(void *)((unsigned char *)dst + i),
                         _mm_loadu_si128((const __m128i *)(const void *)(src + i)));
    _mm_sfence();            /* ordered before what follows, as plain stores are */
#else
    memcpy(dst, src, n);
#endif
}

/* The packed form of a full block that is kept as pushed; NULL when out
 * of memory. It is made in img, laid out as the block it becomes, then
 * copied into the store's arena whole. */
static struct store_block *pack(struct sample_store *s, const struct store_block *b)
{
    _Alignas(16) unsigned char img[offsetof(struct store_block, data) + sizeof(struct packed_head)
                                   + STORE_BLOCK * (sizeof(int64_t) + 2 + STORE_REC_MAX) + 16];
    unsigned char *buf = img + offsetof(struct store_block, data);
    int nw = words(s);
    struct packed_head h = { 0, 0 };
    memcpy(&h.t0, b->data, sizeof h.t0);
    /* the times as 32-bit offsets, found wide or not on the way; whole
     * when one lies 2^31 ns or more from the first (rare: written again) */
    unsigned char *p = buf + sizeof h;
    int wide = 0;
    for (int slot = 0; slot < STORE_BLOCK; slot++) {
        int64_t t;
        memcpy(&t, b->data + (size_t)slot * s->rec, sizeof t);
        /* the difference in unsigned arithmetic: no overflow for far-apart
         * times; its low 32 bits are the int32_t offset when it fits */
        uint64_t d = (uint64_t)t - (uint64_t)h.t0;
        wide |= d + 0x80000000u > 0xffffffffu;
        uint32_t low = (uint32_t)d;
        memcpy(p + (size_t)slot * sizeof low, &low, sizeof low);
    }
    h.wide = wide;
    for (int slot = 0; wide && slot < STORE_BLOCK; slot++)
        memcpy(p + (size_t)slot * sizeof(int64_t), b->data + (size_t)slot * s->rec, sizeof(int64_t));
    memcpy(buf, &h, sizeof h);
    p = buf + sizeof h + STORE_BLOCK * packed_time_size(&h);
    unsigned char *flags = p;
    p = codec_pack(b->data, STORE_BLOCK, nw, flags, flags + STORE_BLOCK * codec_flag_bytes(nw));
    size_t n = (size_t)(p - buf);
    size_t whole = (block_size(n) + 15) & ~(size_t)15;    /* what region_alloc gives */
    struct store_block *pb = region_alloc(&s->packed_mem, block_size(n));
    if (!pb)
        return NULL;
    memset(img + block_size(n), 0, whole - block_size(n));
    memcpy(img, &n, sizeof n);                            /* the block's nbytes */
    copy_streaming(pb, img, whole);
    return pb;
}

/* Samples [from, from + cnt) of packed block blk (records of nw words
 * after t) into o; returns the end. */
static unsigned char *unpack(const struct store_block *blk, long from, long cnt, unsigned char *o, int nw)
{
    struct packed_head h;
    memcpy(&h, blk->data, sizeof h);
    const unsigned char *times = blk->data + sizeof h;
    size_t rec = 8 + 4 * (size_t)nw;
    for (long k = 0; k < cnt; k++) {
        int64_t t;
        if (h.wide) {
            memcpy(&t, times + (size_t)(from + k) * sizeof t, sizeof t);
        } else {
            int32_t d;
            memcpy(&d, times + (size_t)(from + k) * sizeof d, sizeof d);
            t = h.t0 + d;
        }
        memcpy(o + (size_t)k * rec, &t, sizeof t);
    }
    const unsigned char *flags = packed_samples(blk);
    codec_unpack(flags, flags + STORE_BLOCK * codec_flag_bytes(nw), blk->data + blk->nbytes, from, cnt, nw, o);
    return o + (size_t)cnt * rec;
}

/* Asks the cache for block b's packed bytes (when held and packed). */
static void prefetch_block(const struct sample_store *s, long b)
{
    long i = entry_of(s, b);
    if (i < 0 || !s->e[i].packed)
        return;
    const struct store_block *blk = s->e[i].blk;
    for (size_t k = 0; k < block_size(blk->nbytes); k += 64)
        __builtin_prefetch((const char *)blk + k);
}

/* The block after the last one decoded is fetched ahead: windows decode
 * their samples in order (analysis_tape.c), so the next window starts
 * there, after a breakdown that leaves the hardware's prefetcher nothing
 * to follow. Without it unpacking waited on memory: 5.5 ns a GPU sample
 * with a window every second, 2 ns from cache. */
void store_decode(const struct sample_store *s, long first, long n, void *out)
{
    unsigned char *o = out;
    int nw = words(s);
    if (n > 0)
        prefetch_block(s, (first + n - 1) / STORE_BLOCK + 1);
    for (long b = first / STORE_BLOCK; n > 0; b++) {
        const struct store_entry *e = &s->e[entry_of(s, b)];
        const struct store_block *blk = e->blk;
        long from = first > b * STORE_BLOCK ? first - b * STORE_BLOCK : 0;
        long cnt = STORE_BLOCK - from < n ? STORE_BLOCK - from : n;
        if (!e->packed) {
            memcpy(o, blk->data + (size_t)from * s->rec, (size_t)cnt * s->rec);
            o += (size_t)cnt * s->rec;
            n -= cnt;
            continue;
        }
        o = unpack(blk, from, cnt, o, nw);
        n -= cnt;
    }
}

/* Entry i's block, as pushed, replaced by its packed form; 0 or -1. */
static int pack_entry(struct sample_store *s, long i)
{
    struct store_block *pb = pack(s, s->e[i].blk);
    if (!pb)
        return -1;
    recycle(s, s->e[i].blk, 0);
    s->e[i].blk = pb;
    s->e[i].packed = 1;
    return 0;
}

/* A full block a window pins is packed at once: its samples were pushed a
 * moment ago and are still in cache, where packing it when it left the
 * tape, thousands of samples later, read it back from memory (most of
 * pack()'s time with a window every second). Out of memory, it stays as
 * pushed, and store_trim packs it or says so. */
void store_pin(struct sample_store *s, long first, long n)
{
    long full = s->end / STORE_BLOCK;    /* blocks before it are full */
    for (long b = first / STORE_BLOCK; b <= (first + n - 1) / STORE_BLOCK; b++) {
        long i = entry_of(s, b);
        if (i < 0)
            continue;
        s->e[i].pins++;
        if (!s->e[i].packed && b < full)
            (void)pack_entry(s, i);
    }
}

void store_unpin(struct sample_store *s, long first, long n)
{
    for (long b = first / STORE_BLOCK; b <= (first + n - 1) / STORE_BLOCK; b++) {
        long i = entry_of(s, b);
        if (i >= 0 && --s->e[i].pins == 0 && b < s->trim_block)
            let_go(s, i);
    }
    compact(s);
}

int store_pack_before(struct sample_store *s, long before)
{
    long kb = before / STORE_BLOCK;
    if (kb <= s->pack_block)
        return 0;                        /* the common case: called on every push */
    if (kb > s->end / STORE_BLOCK)
        kb = s->end / STORE_BLOCK;       /* full blocks only */
    for (; s->pack_block < kb; s->pack_block++) {
        long i = entry_of(s, s->pack_block);
        if (i >= 0 && !s->e[i].packed && pack_entry(s, i) != 0)
            return -1;
    }
    return 0;
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
        if (s->e[i].pins == 0)
            let_go(s, i);
        else if (!s->e[i].packed && pack_entry(s, i) != 0)
            return -1;
    }
    compact(s);
    return 0;
}
