/*
 * store_codec.h — the packed form of a store block's samples
 * (sample_store.h): the samples' flags, a bit per 4-byte word of the
 * record after t, set where the word differs from the previous sample's,
 * bit for bit (a byte per sample up to 8 words, else two); then, sample
 * after sample, the words whose bits are set, lowest first. The first
 * sample is compared with all-zero words, so a block decodes on its own.
 *
 * Owns: packing and unpacking those words, and the choice between the
 * portable code and AVX-512's compress and expand where the CPU has them.
 *
 * Why two ways: with a window every second most of a trace's samples are
 * packed once and decoded once, and the portable code's loop over the
 * changed words, whose count varies from sample to sample, mispredicts a
 * branch on most of them. AVX-512 packs a GPU sample's 16 words with one
 * comparison and one compress, and unpacks them with one expand (to and
 * from registers: Zen 4 microcodes the forms that store or load by mask).
 * Both give the same bytes; tests/unit/test_sample_store.c checks each
 * against the other where the CPU has both, and valgrind, which hides
 * AVX-512, runs the portable one.
 *
 * Why the flags first: where they lay before each sample's words, the
 * place of a sample's flags was known only once the last sample's had
 * been loaded and counted, a chain of loads that set the pace of
 * unpacking (~20 cycles a sample); apart, they are read in order and the
 * words' places are a running sum.
 */
#ifndef FLINCH_STORE_CODEC_H
#define FLINCH_STORE_CODEC_H

#include <stdint.h>

/* Packs `count` records of nw 4-byte words (nw <= 16; each record 8 bytes
 * of t, then the words: rec = 8 + 4 * nw bytes apart) from data: their
 * flags at flags (count * codec_flag_bytes(nw) bytes), their words at p,
 * which must have room for count * 4 * nw bytes. Returns the words' end. */
unsigned char *codec_pack(const unsigned char *data, int count, int nw, unsigned char *flags,
                          unsigned char *p);

/* Unpacks the words of samples [0, from + cnt) (flags at flags, words
 * from p to end), writing those of samples [from, from + cnt) into the
 * records at o (rec bytes apart, the words after each record's 8 bytes of
 * t, which it leaves as they are). */
void codec_unpack(const unsigned char *flags, const unsigned char *p, const unsigned char *end, long from,
                  long cnt, int nw, unsigned char *o);

/* A sample's flags: 1 byte up to 8 words, else 2. */
int codec_flag_bytes(int nw);

/* Tests: 1 to use the portable code only, 0 to choose as usual. */
void codec_force_portable(int on);
/* Whether the AVX-512 code runs (the CPU has it and it is not forced off). */
int codec_simd(void);

#endif
