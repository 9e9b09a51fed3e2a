/*
 * store_words.h — the inner loops of a packed block (sample_store.h): per
 * record, flags saying which of its 4-byte words after t differ, bit for
 * bit, from the record before's (one byte up to 8 words, else two), then
 * those words, lowest first; and the records back from them.
 *
 * Owns: those two loops, in plain C and, where the processor has SSSE3
 * (every x86-64 server since 2006), four words to an instruction.
 *
 * Why: packing a block when a window pins it and unpacking it for the
 * window's breakdown were a fifth of what 10,000 windows cost, most of it
 * in a branch per changed word whose count from record to record no
 * predictor guesses. With SSSE3 a group of four words is compared, then
 * gathered to the front (packing) or spread back (unpacking) by one byte
 * shuffle chosen by the group's four flag bits: no branch per word. Both
 * loops write the same bytes (test_sample_store.c compares them).
 */
#ifndef FLINCH_STORE_WORDS_H
#define FLINCH_STORE_WORDS_H

/* What store_pack_words may write, and store_unpack_words read, past the
 * end of the packed words: a buffer or block holding them has this much
 * more room. */
#define STORE_WORDS_SLACK 16

/* The words of STORE_BLOCK records of 8 + 4 * nw bytes (nw even, at most
 * 16) at data, packed at p; returns their end. The first record is
 * compared with all-zero words. */
unsigned char *store_pack_words(const unsigned char *data, unsigned char *p, int nw);
/* From words packed at p: records [from, from + cnt) of the block, their
 * 4 * nw bytes after t written at o + 8, o + 8 + rec, ... (rec = 8 + 4 *
 * nw; t is left to the caller). */
void store_unpack_words(const unsigned char *p, long from, long cnt, unsigned char *o, int nw);

/* The plain loops alone, whatever the processor has (for the tests). */
unsigned char *store_pack_words_plain(const unsigned char *data, unsigned char *p, int nw);
void store_unpack_words_plain(const unsigned char *p, long from, long cnt, unsigned char *o, int nw);
/* 1 when store_pack_words and store_unpack_words take the SSSE3 loops. */
int store_words_simd(void);

#endif
