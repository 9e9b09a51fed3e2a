/* test_sample_store.c — the sample store (sample_store.h) gives back every
 * sample byte for byte, kept as pushed or packed (NaN payloads, -0.0,
 * infinities, repeats, random bits), lets go of the blocks no one holds and
 * keeps the pinned ones; the tape over it (tape.h) answers every slice as
 * the plain array it replaced did. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "sample_store.h"
#include "store_codec.h"
#include "tape.h"

static float float_bits(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static double double_bits(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

/* Values whose bits a lossy or value-comparing store would change. */
static float odd_float(int k)
{
    switch (k % 8) {
    case 0: return float_bits(0x7fc00001u);       /* a quiet NaN with a payload */
    case 1: return float_bits(0xffa00000u);       /* a signalling NaN, negative */
    case 2: return -0.0f;
    case 3: return 0.0f;
    case 4: return INFINITY;
    case 5: return -INFINITY;
    case 6: return NAN;
    default: return float_bits((uint32_t)check_rand());
    }
}

static double odd_double(int k)
{
    switch (k % 8) {
    case 0: return double_bits(0x7ff8000000000123ULL);
    case 1: return double_bits(0xfff4000000000000ULL);
    case 2: return -0.0;
    case 3: return 0.0;
    case 4: return INFINITY;
    case 5: return -INFINITY;
    case 6: return NAN;
    default: return double_bits(check_rand());
    }
}

/* Sample i: most members repeat for a while (as a trace's do), some change
 * on every sample, and every odd value comes round. */
static void make_gpu(struct gpu_sample *s, long i)
{
    memset(s, 0, sizeof *s);
    s->t = 1000000000LL + i * 10000000LL + (long)(check_rand() % 1000);
    /* times kept as offsets from a block's first (back in time too), and
     * whole where a block spans 2^31 ns or more, or the extremes */
    if (i >= 300 && i < 310)
        s->t = 5000000000LL - i * 1000;
    if (i >= 500)
        s->t += 10000000000LL;
    if (i == 700)
        s->t = INT64_MAX;
    if (i == 701)
        s->t = INT64_MIN;
    s->power_instant_w = i % 3 ? 60.5f + (float)(check_rand() % 100) : odd_float((int)i);
    s->power_average_w = odd_float((int)(i / 7));
    s->util_pct = (float)(i / 5 % 101);
    s->sm_clock_mhz = i / 5 % 2 ? 1980.0f : -0.0f;
    s->sm_active_pct = i % 20 == 0 ? odd_float((int)(i / 20)) : NAN;
    s->sm_occupancy_pct = i % 20 == 0 ? 33.25f : NAN;
    s->tensor_pct = odd_float((int)(i / 11));
    s->dram_bw_pct = i % 4 ? float_bits(0x7fc0abcdu) : NAN;
    s->gpm_span_ms = i % 20 == 0 ? 200.0f : NAN;
    s->pcie_bytes = i % 9 ? (double)i * 1e6 : odd_double((int)(i / 9));
    s->energy_mj = i % 2 ? odd_double((int)i) : (double)(1000000 + i * 607);
    s->idle_bit = (signed char)(i % 13 == 0 ? -1 : i / 6 % 2);
    s->medium_fresh = (unsigned char)(i % 5 == 0);
}

static void make_host(struct host_sample *h, long i)
{
    memset(h, 0, sizeof *h);
    h->t = 1000000000LL + i * 10000000LL;
    h->proc_cpu_s = i % 4 ? (double)(i / 4) * 0.01 : odd_double((int)i);
    h->runq_s = odd_double((int)(i / 3));
    h->host_cpu_pct = odd_float((int)i);
    h->top_thread_cores = (float)(i / 10);
    h->top_thread = (short)(i % 17 == 0 ? -1 : i / 30);
}

#define N 1000

/* Every range, kept as pushed and packed, comes back byte for byte. */
static void test_round_trip_gpu(void)
{
    static struct gpu_sample in[N], out[N];
    struct sample_store s;
    store_init(&s, sizeof(struct gpu_sample));
    for (long i = 0; i < N; i++) {
        make_gpu(&in[i], i);
        CHECK(store_push(&s, &in[i]) == 0);
    }
    CHECK(s.end == N);
    /* as pushed */
    store_decode(&s, 0, N, out);
    CHECK(memcmp(in, out, sizeof in) == 0);
    /* packed: pinned, then out of the tape */
    store_pin(&s, 0, N);
    CHECK(store_trim(&s, N) == 0);
    int packed = 0;
    for (long b = 0; b < s.nblk; b++)
        packed += s.e[b].blk && s.e[b].packed;
    CHECK(packed == N / STORE_BLOCK);              /* the full blocks; the last one is still filling */
    size_t bytes = 0;
    for (long b = 0; b < s.nblk; b++)
        bytes += s.e[b].blk->nbytes;
    CHECK(bytes < sizeof in / 2);
    int bad = 0;
    for (long first = 0; first < N; first += 37)
        for (long n = 1; first + n <= N; n = n * 2 + 3) {
            store_decode(&s, first, n, out);
            bad += memcmp(in + first, out, (size_t)n * sizeof *out) != 0;
            bad += store_time(&s, first + n - 1) != in[first + n - 1].t;
        }
    CHECK(bad == 0);
    store_decode(&s, 0, N, out);
    CHECK(memcmp(in, out, sizeof in) == 0);
    /* -0.0 and the NaN payloads by their bits, not their values */
    CHECK(signbit(out[2].power_average_w) == 0 && signbit(out[14].power_average_w) != 0);
    uint32_t b;
    memcpy(&b, &out[3].dram_bw_pct, sizeof b);
    CHECK(b == 0x7fc0abcdu);
    store_free(&s);
}

static void test_round_trip_host(void)
{
    static struct host_sample in[N], out[N];
    struct sample_store s;
    store_init(&s, sizeof(struct host_sample));
    for (long i = 0; i < N; i++) {
        make_host(&in[i], i);
        CHECK(store_push(&s, &in[i]) == 0);
    }
    store_pin(&s, 100, 800);
    CHECK(store_trim(&s, 960) == 0);
    store_decode(&s, 100, 800, out);
    CHECK(memcmp(in + 100, out, 800 * sizeof *out) == 0);
    store_decode(&s, 899, 1, out);
    CHECK(memcmp(&in[899], out, sizeof *out) == 0);
    store_free(&s);
}

static long held_blocks(const struct sample_store *s)
{
    long n = 0;
    for (long b = 0; b < s->nblk; b++)
        n += s->e[b].blk != NULL;
    return n;
}

/* A window early in a long trace keeps its own blocks, not those after it;
 * unpinned out of the tape, they go. */
static void test_pins_and_trim(void)
{
    struct sample_store s;
    struct host_sample h;
    store_init(&s, sizeof h);
    for (long i = 0; i < 10 * STORE_BLOCK; i++) {
        make_host(&h, i);
        store_push(&s, &h);
    }
    store_pin(&s, 70, 100);                        /* blocks 1 and 2 */
    CHECK(store_trim(&s, 9 * STORE_BLOCK + 5) == 0);
    CHECK(held_blocks(&s) == 3);                   /* 1, 2 and 9 */
    CHECK(store_trim(&s, 0) == 0);                 /* never back */
    for (long i = 10 * STORE_BLOCK; i < 100 * STORE_BLOCK; i++) {
        make_host(&h, i);
        store_push(&s, &h);
        store_trim(&s, i - 4 * STORE_BLOCK);
    }
    CHECK(held_blocks(&s) == 2 + 5);
    struct host_sample out[100];
    store_decode(&s, 70, 100, out);
    make_host(&h, 169);
    CHECK(memcmp(&out[99], &h, sizeof h) == 0);
    store_unpin(&s, 70, 100);
    CHECK(held_blocks(&s) == 5);
    CHECK(s.nblk < 100);                           /* the entries let go are dropped too */
    store_free(&s);
}

/* The first time over t, walking (times out of order stay out of order). */
static void test_first_over(void)
{
    struct sample_store s;
    struct host_sample h;
    store_init(&s, sizeof h);
    static const int64_t t[] = { 5, 7, 3, 9, 9, 2, 11 };
    for (int i = 0; i < 7; i++) {
        memset(&h, 0, sizeof h);
        h.t = t[i];
        store_push(&s, &h);
    }
    CHECK(store_first_over(&s, 0, 7, 6) == 1);
    CHECK(store_first_over(&s, 2, 7, 8) == 3);
    CHECK(store_first_over(&s, 5, 7, 2) == 6);
    CHECK(store_first_over(&s, 0, 7, 11) == 7);
    CHECK(store_first_over(&s, 3, 3, 0) == 3);
    store_free(&s);
}

/* The plain array the tape was: its push and slice, element for element. */
struct ref_tape {
    int64_t *t;
    long n, cap, base;     /* base: the index of t[0] among all pushed */
};

static void ref_push(struct ref_tape *r, int64_t t, int64_t keep_from_t, long keep_last)
{
    if (r->n == r->cap) {
        long drop = 0, limit = r->n - keep_last;
        while (drop + 1 < limit && r->t[drop + 1] <= keep_from_t)
            drop++;
        if (drop > 0) {
            memmove(r->t, r->t + drop, (size_t)(r->n - drop) * sizeof *r->t);
            r->n -= drop;
            r->base += drop;
        }
        if (r->cap == 0 || r->n * 2 > r->cap) {
            r->cap = r->cap ? r->cap * 2 : 1024;
            r->t = realloc(r->t, (size_t)r->cap * sizeof *r->t);
        }
    }
    r->t[r->n++] = t;
}

static void ref_slice(const struct ref_tape *r, int64_t t0, int64_t t1, long *first, long *n)
{
    *n = 0;
    long lo = 0, hi = r->n;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (r->t[mid] <= t0)
            lo = mid + 1;
        else
            hi = mid;
    }
    long f = lo > 0 ? lo - 1 : lo, last = lo;
    while (last < r->n && r->t[last] < t1)
        last++;
    if (last == r->n)
        last--;
    if (f > last || f >= r->n)
        return;
    *first = r->base + f;
    *n = last - f + 1;
}

static void test_tape_as_the_array(void)
{
    /* rounds 0 and 1 step back often, 2 never (the tape searches from its
     * newest end), 3 rarely (it does so once a step back has left it) */
    static const uint64_t back_one_in[] = { 16, 16, 0, 3000 };
    for (int round = 0; round < 4; round++) {
        struct tape tp;
        struct ref_tape ref = { 0 };
        tape_init_host(&tp);
        long keep_last = round == 1 ? 100 : 700;
        int bad = 0;
        int64_t now = 0;
        for (long i = 0; i < 60000; i++) {
            struct host_sample h;
            memset(&h, 0, sizeof h);
            /* mostly forward, often by nothing (equal times decide the
             * drops' and slices' edges), now and then a step back (rows out
             * of order); the oldest open window from 0 to ~3,000 samples back */
            uint64_t one_in = back_one_in[round];
            now += one_in && check_rand() % one_in == 0 ? -(int64_t)(check_rand() % 50) : (int64_t)(check_rand() % 4);
            h.t = now;
            int64_t keep = now - (int64_t)(check_rand() % 4500);
            if (ref.n > 0 && check_rand() % 2)      /* a time the tape holds */
                keep = ref.t[check_rand() % (uint64_t)ref.n];
            ref_push(&ref, h.t, keep, keep_last);
            CHECK(tape_push(&tp, &h, keep, keep_last) == 0);
            bad += tp.n != ref.n || tp.cap != ref.cap || tp.first != ref.base;
            if (i % 7 == 0) {
                int64_t t0 = now - (int64_t)(check_rand() % 4000), t1 = t0 + (int64_t)(check_rand() % 300);
                if (check_rand() % 2) {                /* edges on times the tape holds */
                    t0 = ref.t[check_rand() % (uint64_t)ref.n];
                    t1 = ref.t[check_rand() % (uint64_t)ref.n];
                }
                long f1 = -1, n1, f2 = -1, n2;
                ref_slice(&ref, t0, t1, &f1, &n1);
                tape_slice(&tp, t0, t1, &f2, &n2);
                bad += n1 != n2 || (n1 > 0 && f1 != f2);
                if (n2 > 0 && i % 49 == 0) {          /* a window holds it past the tape */
                    store_pin(&tp.store, f2, n2);
                    struct host_sample out[1];
                    store_decode(&tp.store, f2 + n2 - 1, 1, out);
                    bad += out[0].t != ref.t[f1 - ref.base + n1 - 1];
                }
            }
        }
        CHECK(bad == 0);
        CHECK(round == 2 ? tp.disorder_at == 0 : tp.disorder_at > 0);
        CHECK(tape_last_time(&tp) == now);
        tape_free(&tp);
        free(ref.t);
    }
}

static long packed_blocks(const struct sample_store *s)
{
    long n = 0;
    for (long b = 0; b < s->nblk; b++)
        n += s->e[b].blk && s->e[b].packed;
    return n;
}

/* A window open since the first sample holds the whole tape: what lies
 * further back than a tape ever reaches without one (its first capacity,
 * 1,024, with keep_last 100) is packed, and comes back byte for byte;
 * without a window nothing is packed. */
static void test_tape_packs_far_back(void)
{
    static struct host_sample in[10000], out[10000];
    for (int open = 0; open < 2; open++) {
        struct tape tp;
        tape_init_host(&tp);
        long packed_at_1024 = -1;
        for (long i = 0; i < 10000; i++) {
            make_host(&in[i], i);
            CHECK(tape_push(&tp, &in[i], open ? in[0].t : INT64_MAX, 100) == 0);
            if (i == 1024 + 2 * STORE_BLOCK)
                packed_at_1024 = packed_blocks(&tp.store);
        }
        if (!open) {
            CHECK(tp.n <= 1024);
            CHECK(packed_blocks(&tp.store) == 0);
        } else {
            CHECK(tp.first == 0 && tp.n == 10000);
            CHECK(packed_at_1024 == 2);                  /* blocks 0 and 1 */
            CHECK(packed_blocks(&tp.store) == (10000 - 1024) / STORE_BLOCK);
            store_decode(&tp.store, 0, 10000, out);
            CHECK(memcmp(in, out, sizeof in) == 0);
            long f, n;
            tape_slice(&tp, in[20].t, in[9000].t, &f, &n);
            CHECK(f == 20 && n == 8981);
        }
        tape_free(&tp);
    }
}

/* Records of nw words where each word changes with probability pct %,
 * some of them to odd bits. */
static void make_records(unsigned char *data, int count, int nw, int pct)
{
    size_t rec = 8 + 4 * (size_t)nw;
    for (int slot = 0; slot < count; slot++)
        for (int j = -2; j < nw; j++) {
            unsigned char *w = data + (size_t)slot * rec + 8 + 4 * (ptrdiff_t)j;
            if (j >= 0 && slot > 0 && (int)(check_rand() % 100) >= pct) {
                memcpy(w, w - rec, 4);
                continue;
            }
            float f = odd_float((int)(check_rand() % 16));
            memcpy(w, &f, 4);
        }
}

/* The AVX-512 code and the portable code write the same packed bytes and
 * read back the same records, for every range of a block (the ranges near
 * its end take the portable way in the middle of a block); where the CPU
 * lacks AVX-512 (and under valgrind) the portable code alone, against
 * the records. */
static void test_codec_both_ways(void)
{
    enum { COUNT = STORE_BLOCK };
    static const int nws[] = { 16, 8, 4 };
    static const int pcts[] = { 0, 5, 30, 100 };
    int bad = 0, runs = 0;
    for (size_t a = 0; a < sizeof nws / sizeof nws[0]; a++)
        for (size_t b = 0; b < sizeof pcts / sizeof pcts[0]; b++)
            for (int rep = 0; rep < 20; rep++) {
                int nw = nws[a];
                size_t rec = 8 + 4 * (size_t)nw;
                unsigned char data[COUNT * STORE_REC_MAX], out[2][COUNT * STORE_REC_MAX];
                unsigned char flags[2][2 * COUNT], words[2][COUNT * 64 + 64];
                unsigned char *end[2];
                make_records(data, COUNT, nw, rep ? pcts[b] : 100 - pcts[b]);
                for (int way = 0; way < 2; way++) {
                    codec_force_portable(way);
                    end[way] = codec_pack(data, COUNT, nw, flags[way], words[way]);
                }
                bad += end[0] - words[0] != end[1] - words[1];
                bad += memcmp(flags[0], flags[1], (size_t)(COUNT * codec_flag_bytes(nw))) != 0;
                bad += memcmp(words[0], words[1], (size_t)(end[1] - words[1])) != 0;
                for (long from = 0; from < COUNT; from += 1 + (long)(check_rand() % 7))
                    for (long cnt = 1; from + cnt <= COUNT; cnt += 1 + (long)(check_rand() % 9)) {
                        for (int way = 0; way < 2; way++) {
                            codec_force_portable(way);
                            memset(out[way], 0xa5, (size_t)cnt * rec);
                            codec_unpack(flags[0], words[0], end[0], from, cnt, nw, out[way]);
                        }
                        for (long k = 0; k < cnt; k++)
                            bad += memcmp(out[0] + k * rec + 8, data + (from + k) * rec + 8, rec - 8) != 0
                                   || memcmp(out[1] + k * rec + 8, data + (from + k) * rec + 8, rec - 8) != 0;
                        runs++;
                    }
            }
    codec_force_portable(0);
    CHECK(bad == 0);
    CHECK(runs > 10000);
}

/* The store's own tests again on the portable code (the first run takes
 * AVX-512 where the CPU has it). */
static void test_round_trips_portable(void)
{
    codec_force_portable(1);
    test_round_trip_gpu();
    test_round_trip_host();
    test_tape_packs_far_back();
    codec_force_portable(0);
}

int main(void)
{
    run_test("sample store: GPU samples back byte for byte, as pushed and packed", test_round_trip_gpu);
    run_test("sample store: host samples back byte for byte", test_round_trip_host);
    run_test("sample store: pinned blocks stay, the rest go", test_pins_and_trim);
    run_test("sample store: the first time over t, walking", test_first_over);
    run_test("tape: pushes and slices as the plain array did", test_tape_as_the_array);
    run_test("tape: held far back by an open window, packed", test_tape_packs_far_back);
    run_test("store codec: AVX-512 and the portable code, the same bytes", test_codec_both_ways);
    run_test("sample store: the round trips on the portable code", test_round_trips_portable);
    return check_exit_status();
}
