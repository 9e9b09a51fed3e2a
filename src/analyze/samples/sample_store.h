/*
 * sample_store.h — one stream's samples (a struct gpu_sample or struct
 * host_sample per row, tape.h), held once for the stream's tape and for
 * every window whose breakdown is still to be made, packed once only
 * windows still need them.
 *
 * Owns: the blocks of samples, their packed form and the pins on them.
 *
 * Why: a window's breakdown can only be made at the end of the trace (it
 * needs the idle and busy levels learned over all of it), so its samples
 * must be kept until then. Copying them per window covered the trace 1.2
 * times over with a window every second. Here every sample is held once,
 * however many windows reach it: a window keeps only an index range
 * (tape.h) and pins the blocks it covers, and its samples are decoded into
 * the usual structs just before its breakdown.
 *
 * Samples go in blocks of STORE_BLOCK, each its own allocation, so that a
 * block goes as soon as neither the tape (the samples from keep_from on,
 * store_trim) nor a window's pin holds it: a window early in a long trace
 * keeps its own blocks, not all those after it. While the tape holds a
 * block it is kept as pushed (a copy per sample, the cheapest thing for a
 * trace with few windows); once full and pinned by a window (store_pin),
 * when it leaves the tape still pinned, or when the tape holds it far back
 * (a window open for long, store_pack_before), it is packed: the times as
 * 32-bit offsets from the block's first (whole where a block spans 2^31 ns
 * or more), then per sample a flags word (a bit per 4 bytes of the record
 * after t), then the 4-byte words that differ from the previous sample's,
 * bit for bit (store_codec.h: NaN payloads, -0.0, infinities and the
 * padding come back as pushed). Most words repeat from row to row
 * (utilization and clock change every ~50 ms, GPM is NaN on most rows,
 * the host's cells repeat on every GPU's row), so a GPU sample takes ~18
 * bytes for 72 and a host sample ~9 for 40. The first sample of a block
 * is compared with all-zero bytes, so a block decodes on its own. Packed
 * blocks come from the store's region arena (region_arena.h), on huge
 * pages once they are many: their memory goes back to the system a chunk
 * at a time, once every block in the chunk has gone.
 */
#ifndef FLINCH_SAMPLE_STORE_H
#define FLINCH_SAMPLE_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "region_arena.h"

#define STORE_BLOCK 64           /* samples per block */
#define STORE_REC_MAX 72         /* the largest record: t and 16 4-byte words, a flags bit each */

/* STORE_BLOCK samples: block `num` holds samples num * STORE_BLOCK + [0, STORE_BLOCK). */
struct store_block {
    size_t nbytes;                     /* of data */
    unsigned char data[];              /* as pushed: STORE_BLOCK records; packed: int64_t
                                          t[STORE_BLOCK], then the encoded samples */
};

/* A held block and what the store decides by: kept here rather than in the
 * block, so that trimming and packing, which look at every block once it
 * is far back, read this array and not blocks long out of cache (a miss on
 * each, by perf, with a window every second). */
struct store_entry {
    long num;
    long pins;                         /* windows whose range covers it */
    struct store_block *blk;           /* NULL where let go (until the entries are compacted) */
    int packed;
};

#define STORE_SPARE 32                 /* blocks kept for reuse: a tape drops ~64 at a time */

/* Sample indices count the stream's samples from its first one. */
struct sample_store {
    size_t rec;                        /* sizeof the record: a multiple of 8 up to STORE_REC_MAX, from int64_t t */
    long end;                          /* samples pushed */
    long trim_block;                   /* blocks before it are held only while pinned */
    long pack_block;                   /* blocks before it are packed */
    struct store_entry *e;             /* held blocks, ascending by number */
    long nblk, cap_blk, nfreed;
    struct store_block *spare[STORE_SPARE];  /* unpacked blocks to reuse */
    int nspare;
    struct region_arena packed_mem;    /* the packed blocks: most of an analysis's
                                          memory with many windows (region_arena.h) */
};

void store_init(struct sample_store *s, size_t rec);
void store_free(struct sample_store *s);
/* Appends a copy of *rec as sample `end`; 0, or -1 when out of memory. */
int store_push(struct sample_store *s, const void *rec);
/* The time of sample i (held). */
int64_t store_time(const struct sample_store *s, long i);
/* The first sample i in [from, to) (all held) whose time is over t; to
 * when none. A walk, not a search: times need not be in order. */
long store_first_over(const struct sample_store *s, long from, long to, int64_t t);
/* Samples [first, first + n) (all held) into out[0 .. n), byte for byte as
 * pushed. */
void store_decode(const struct sample_store *s, long first, long n, void *out);
/* A window will read samples [first, first + n) (held, n > 0): they stay
 * held until the matching store_unpin; the full blocks among them are
 * packed now. */
void store_pin(struct sample_store *s, long first, long n);
void store_unpin(struct sample_store *s, long first, long n);
/* Packs the blocks wholly before sample `before` (which never moves
 * back) still as pushed, held or not; 0, or -1 when out of memory. */
int store_pack_before(struct sample_store *s, long before);
/* Lets go of the blocks wholly before sample keep_from that no pin holds
 * and packs those a pin holds (keep_from never moves back); 0, or -1 when
 * out of memory. */
int store_trim(struct sample_store *s, long keep_from);

#endif
