/* store_codec.c — see store_codec.h. */
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define CODEC_AVX512 1
#endif

#include "store_codec.h"

#define NW_MAX 16

static int force_portable;

void codec_force_portable(int on)
{
    force_portable = on;
}

int codec_simd(void)
{
#ifdef CODEC_AVX512
    /* reads what libgcc or compiler-rt learned from cpuid and xgetbv at start */
    return !force_portable && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")
           && __builtin_cpu_supports("popcnt");
#else
    return 0;
#endif
}

int codec_flag_bytes(int nw)
{
    return nw > 8 ? 2 : 1;
}

static inline unsigned flags_at(const unsigned char *flags, long slot, int nw)
{
    if (nw > 8)
        return flags[2 * slot] | (unsigned)flags[2 * slot + 1] << 8;
    return flags[slot];
}

/* Bit j set where the 4-byte word j of the record r differs, bit for
 * bit, from prev[j], for nw words (an even number); prev becomes the
 * record's words. Which word changes from sample to sample is
 * unpredictable, so they are compared all at once (four to an SSE2
 * comparison where there is one) rather than one branch each. prev is
 * written as it is read, 16 bytes at a time: a 16-byte load of words
 * stored one by one cannot be forwarded from the stores and waits for
 * them (most of pack()'s time, by perf, when it did). */
static unsigned changed_words(const unsigned char *r, uint32_t *prev, int nw)
{
    unsigned same = 0;
    int j = 0;
#ifdef __SSE2__
    for (; j + 4 <= nw; j += 4) {
        __m128i now = _mm_loadu_si128((const __m128i *)(const void *)(r + 4 * (size_t)j));
        __m128i was = _mm_loadu_si128((const __m128i *)(void *)(prev + j));
        same |= (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(now, was))) << j;
        _mm_storeu_si128((__m128i *)(void *)(prev + j), now);
    }
#endif
    for (; j < nw; j++) {
        uint32_t x;
        memcpy(&x, r + 4 * (size_t)j, 4);
        same |= (unsigned)(x == prev[j]) << j;
        prev[j] = x;
    }
    return ~same & ((1u << nw) - 1);
}

static inline unsigned char *pack_portable(const unsigned char *data, int count, int nw,
                                           unsigned char *flags, unsigned char *p)
{
    uint32_t prev[NW_MAX] = { 0 };
    size_t rec = 8 + 4 * (size_t)nw;
    for (int slot = 0; slot < count; slot++) {
        const unsigned char *r = data + (size_t)slot * rec + 8;
        unsigned f = changed_words(r, prev, nw);
        flags[0] = (unsigned char)(f & 0xff);
        if (nw > 8)
            flags[1] = (unsigned char)(f >> 8);
        flags += codec_flag_bytes(nw);
        for (; f; f &= f - 1) {                      /* the changed words, lowest first */
            memcpy(p, r + 4 * (size_t)__builtin_ctz(f), 4);
            p += 4;
        }
    }
    return p;
}

/* Samples [slot, from + cnt) from p, the words so far in state. */
static inline void unpack_portable(const unsigned char *flags, const unsigned char *p, long slot, long from,
                                   long cnt, int nw, uint32_t *state, unsigned char *o)
{
    size_t rec = 8 + 4 * (size_t)nw;
    for (; slot < from + cnt; slot++) {
        for (unsigned f = flags_at(flags, slot, nw); f; f &= f - 1) {   /* the set bits, lowest first */
            memcpy(&state[__builtin_ctz(f)], p, 4);
            p += 4;
        }
        if (slot >= from)
            memcpy(o + (size_t)(slot - from) * rec + 8, state, 4 * (size_t)nw);
    }
}

#ifdef CODEC_AVX512
/* The changed words of a record pass through a register: compressed there
 * and stored whole (2 + 4 * nw bytes a sample leaves room for it), and
 * loaded whole then expanded, while a whole load stays inside the block;
 * the last few samples go the portable way. The compilers fold a load
 * into the expand that uses it, and Zen 4 runs that form as microcode
 * (half of unpacking's time, by perf annotate): the empty asm keeps the
 * load a load. */
#define IN_REGISTER(v) __asm__("" : "+v"(v))

__attribute__((target("avx512f,avx512vl,popcnt")))
static unsigned char *pack16_avx512(const unsigned char *data, int count, unsigned char *flags,
                                    unsigned char *p)
{
    __m512i prev = _mm512_setzero_si512();
    for (int slot = 0; slot < count; slot++) {
        __m512i now = _mm512_loadu_si512((const void *)(data + (size_t)slot * 72 + 8));
        __mmask16 m = _mm512_cmpneq_epi32_mask(now, prev);
        prev = now;
        flags[2 * slot] = (unsigned char)(m & 0xff);
        flags[2 * slot + 1] = (unsigned char)(m >> 8);
        _mm512_storeu_si512((void *)p, _mm512_maskz_compress_epi32(m, now));
        p += 4 * _mm_popcnt_u32(m);
    }
    return p;
}

__attribute__((target("avx512f,avx512vl,popcnt")))
static unsigned char *pack8_avx512(const unsigned char *data, int count, unsigned char *flags,
                                   unsigned char *p)
{
    __m256i prev = _mm256_setzero_si256();
    for (int slot = 0; slot < count; slot++) {
        __m256i now = _mm256_loadu_si256((const __m256i *)(const void *)(data + (size_t)slot * 40 + 8));
        __mmask8 m = _mm256_cmpneq_epi32_mask(now, prev);
        prev = now;
        flags[slot] = (unsigned char)m;
        _mm256_storeu_si256((__m256i *)(void *)p, _mm256_maskz_compress_epi32(m, now));
        p += 4 * _mm_popcnt_u32(m);
    }
    return p;
}

__attribute__((target("avx512f,avx512vl,popcnt")))
static void unpack16_avx512(const unsigned char *flags, const unsigned char *p, const unsigned char *end,
                            long from, long cnt, unsigned char *o)
{
    __m512i state = _mm512_setzero_si512();
    long slot = 0;
    for (; slot < from + cnt && end - p >= 64; slot++) {
        unsigned m = flags_at(flags, slot, 16);
        __m512i words = _mm512_loadu_si512((const void *)p);
        IN_REGISTER(words);
        state = _mm512_mask_expand_epi32(state, (__mmask16)m, words);
        p += 4 * _mm_popcnt_u32(m);
        if (slot >= from)
            _mm512_storeu_si512((void *)(o + (size_t)(slot - from) * 72 + 8), state);
    }
    uint32_t words[16];
    _mm512_storeu_si512((void *)words, state);
    unpack_portable(flags, p, slot, from, cnt, 16, words, o);
}

__attribute__((target("avx512f,avx512vl,popcnt")))
static void unpack8_avx512(const unsigned char *flags, const unsigned char *p, const unsigned char *end,
                           long from, long cnt, unsigned char *o)
{
    __m256i state = _mm256_setzero_si256();
    long slot = 0;
    for (; slot < from + cnt && end - p >= 32; slot++) {
        unsigned m = flags[slot];
        __m256i words = _mm256_loadu_si256((const __m256i *)(const void *)p);
        IN_REGISTER(words);
        state = _mm256_mask_expand_epi32(state, (__mmask8)m, words);
        p += 4 * _mm_popcnt_u32(m);
        if (slot >= from)
            _mm256_storeu_si256((__m256i *)(void *)(o + (size_t)(slot - from) * 40 + 8), state);
    }
    uint32_t words[8];
    _mm256_storeu_si256((__m256i *)(void *)words, state);
    unpack_portable(flags, p, slot, from, cnt, 8, words, o);
}
#endif

unsigned char *codec_pack(const unsigned char *data, int count, int nw, unsigned char *flags,
                          unsigned char *p)
{
#ifdef CODEC_AVX512
    if ((nw == 16 || nw == 8) && codec_simd())
        return nw == 16 ? pack16_avx512(data, count, flags, p) : pack8_avx512(data, count, flags, p);
#endif
    /* a GPU sample's 16 words, a host sample's 8: each with its count known
     * to the compiler (the loops unrolled: a sixth fewer instructions, by
     * callgrind) */
    return nw == 16 ? pack_portable(data, count, 16, flags, p)
           : nw == 8 ? pack_portable(data, count, 8, flags, p) : pack_portable(data, count, nw, flags, p);
}

void codec_unpack(const unsigned char *flags, const unsigned char *p, const unsigned char *end, long from,
                  long cnt, int nw, unsigned char *o)
{
#ifdef CODEC_AVX512
    if ((nw == 16 || nw == 8) && codec_simd()) {
        if (nw == 16)
            unpack16_avx512(flags, p, end, from, cnt, o);
        else
            unpack8_avx512(flags, p, end, from, cnt, o);
        return;
    }
#else
    (void)end;
#endif
    uint32_t state[NW_MAX] = { 0 };
    if (nw == 16)
        unpack_portable(flags, p, 0, from, cnt, 16, state, o);
    else if (nw == 8)
        unpack_portable(flags, p, 0, from, cnt, 8, state, o);
    else
        unpack_portable(flags, p, 0, from, cnt, nw, state, o);
}
