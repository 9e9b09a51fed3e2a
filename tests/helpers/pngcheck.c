/*
 * pngcheck.c — checks a PNG from a headless browser screenshot, for the
 * plot tests: prints "WIDTH HEIGHT COLOURS", COLOURS being the number of
 * distinct pixel values seen (counting stops at 1000), so a test can tell
 * a rendered plot from a blank page without image libraries.
 *
 *   pngcheck FILE.png
 *
 * Handles what Chromium writes: 8-bit RGB/RGBA/grey, non-interlaced, any
 * filter, zlib/deflate with stored, fixed and dynamic Huffman blocks (a
 * small inflate after Mark Adler's puff.c). Exit 1 with a message on
 * anything else.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *m) { fprintf(stderr, "pngcheck: %s\n", m); exit(1); }

struct in { const uint8_t *p; size_t n, pos; unsigned bitbuf, bitcnt; };
struct out { uint8_t *p; size_t n, cap; };

static unsigned bits(struct in *s, int need)
{
    unsigned v = s->bitbuf;
    while (s->bitcnt < (unsigned)need) {
        if (s->pos >= s->n) die("deflate data ends early");
        v |= (unsigned)s->p[s->pos++] << s->bitcnt;
        s->bitcnt += 8;
    }
    s->bitbuf = v >> need;
    s->bitcnt -= (unsigned)need;
    return v & ((1u << need) - 1);
}

static void put(struct out *o, uint8_t b)
{
    if (o->n == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 1 << 16;
        o->p = realloc(o->p, o->cap);
        if (!o->p) die("out of memory");
    }
    o->p[o->n++] = b;
}

struct huff { short count[16], symbol[320]; };

static int decode(struct in *s, const struct huff *h)
{
    int code = 0, first = 0, index = 0;
    for (int len = 1; len < 16; len++) {
        code |= (int)bits(s, 1);
        int count = h->count[len];
        if (code - count < first) return h->symbol[index + (code - first)];
        index += count; first += count; first <<= 1; code <<= 1;
    }
    die("bad Huffman code");
    return 0;
}

static void build(struct huff *h, const short *length, int n)
{
    short offs[16];
    memset(h->count, 0, sizeof h->count);
    for (int i = 0; i < n; i++) h->count[length[i]]++;
    offs[1] = 0;
    for (int len = 1; len < 15; len++) offs[len + 1] = (short)(offs[len] + h->count[len]);
    for (int i = 0; i < n; i++)
        if (length[i]) h->symbol[offs[length[i]]++] = (short)i;
}

static const short lbase[29] = { 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43,
                                 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258 };
static const short lext[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4,
                                4, 4, 5, 5, 5, 5, 0 };
static const short dbase[30] = { 1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257,
                                 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289,
                                 16385, 24577 };
static const short dext[30] = { 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9,
                                10, 10, 11, 11, 12, 12, 13, 13 };

static void codes(struct in *s, struct out *o, const struct huff *lh, const struct huff *dh)
{
    for (;;) {
        int sym = decode(s, lh);
        if (sym < 256) { put(o, (uint8_t)sym); continue; }
        if (sym == 256) return;
        sym -= 257;
        if (sym >= 29) die("bad length symbol");
        size_t len = (size_t)lbase[sym] + bits(s, lext[sym]);
        int ds = decode(s, dh);
        if (ds >= 30) die("bad distance symbol");
        size_t dist = (size_t)dbase[ds] + bits(s, dext[ds]);
        if (dist > o->n) die("distance too far back");
        while (len--) put(o, o->p[o->n - dist]);
    }
}

static void inflate_all(struct in *s, struct out *o)
{
    static const short order[19] = { 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15 };
    int last;
    do {
        last = (int)bits(s, 1);
        int type = (int)bits(s, 2);
        struct huff lh, dh;
        short len[320];
        if (type == 0) {
            s->bitbuf = s->bitcnt = 0;
            if (s->pos + 4 > s->n) die("stored block ends early");
            size_t n = s->p[s->pos] | (size_t)s->p[s->pos + 1] << 8;
            s->pos += 4;
            if (s->pos + n > s->n) die("stored block ends early");
            while (n--) put(o, s->p[s->pos++]);
        } else if (type == 1) {
            int i = 0;
            for (; i < 144; i++) len[i] = 8;
            for (; i < 256; i++) len[i] = 9;
            for (; i < 280; i++) len[i] = 7;
            for (; i < 288; i++) len[i] = 8;
            build(&lh, len, 288);
            for (i = 0; i < 30; i++) len[i] = 5;
            build(&dh, len, 30);
            codes(s, o, &lh, &dh);
        } else if (type == 2) {
            int nlen = (int)bits(s, 5) + 257, ndist = (int)bits(s, 5) + 1, ncode = (int)bits(s, 4) + 4;
            int i = 0;
            for (; i < ncode; i++) len[order[i]] = (short)bits(s, 3);
            for (; i < 19; i++) len[order[i]] = 0;
            build(&lh, len, 19);
            for (i = 0; i < nlen + ndist;) {
                int sym = decode(s, &lh), rep;
                short v = 0;
                if (sym < 16) { len[i++] = (short)sym; continue; }
                if (sym == 16) { if (!i) die("repeat with no length"); v = len[i - 1]; rep = 3 + (int)bits(s, 2); }
                else if (sym == 17) rep = 3 + (int)bits(s, 3);
                else rep = 11 + (int)bits(s, 7);
                if (i + rep > nlen + ndist) die("too many lengths");
                while (rep--) len[i++] = v;
            }
            build(&lh, len, nlen);
            build(&dh, len + nlen, ndist);
            codes(s, o, &lh, &dh);
        } else {
            die("bad block type");
        }
    } while (!last);
}

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]; }

static int paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

int main(int argc, char **argv)
{
    if (argc != 2) die("usage: pngcheck FILE.png");
    FILE *f = fopen(argv[1], "rb");
    if (!f) die("cannot open the file");
    static uint8_t buf[64 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    if (n < 33 || memcmp(buf, "\x89PNG\r\n\x1a\n", 8) != 0 || memcmp(buf + 12, "IHDR", 4) != 0)
        die("not a PNG");
    uint32_t w = be32(buf + 16), h = be32(buf + 20);
    int depth = buf[24], ctype = buf[25], interlace = buf[28];
    int bpp = ctype == 6 ? 4 : ctype == 2 ? 3 : ctype == 0 ? 1 : ctype == 4 ? 2 : 0;
    if (depth != 8 || !bpp || interlace) die("only 8-bit non-interlaced grey/RGB/RGBA");
    /* gather the IDAT chunks */
    uint8_t *z = malloc(n);
    if (!z) die("out of memory");
    size_t zn = 0;
    for (size_t pos = 8; pos + 12 <= n;) {
        uint32_t len = be32(buf + pos);
        if (pos + 12 + len > n) die("chunk runs past the end");
        if (memcmp(buf + pos + 4, "IDAT", 4) == 0) { memcpy(z + zn, buf + pos + 8, len); zn += len; }
        pos += 12 + len;
    }
    if (zn < 2) die("no image data");
    struct in s = { z + 2, zn - 2, 0, 0, 0 };   /* skip the zlib header */
    struct out o = { NULL, 0, 0 };
    inflate_all(&s, &o);
    size_t stride = (size_t)w * (size_t)bpp;
    if (o.n < (stride + 1) * h) die("image data too short");
    uint8_t *zero = calloc(stride, 1), *prev = zero, *cur;
    if (!zero) die("out of memory");
    uint32_t seen[1000];
    int nseen = 0;
    for (uint32_t y = 0; y < h; y++) {
        uint8_t *row = o.p + y * (stride + 1);
        int ft = row[0];
        cur = row + 1;
        for (size_t i = 0; i < stride; i++) {
            int a = i >= (size_t)bpp ? cur[i - (size_t)bpp] : 0, b = prev[i];
            int c = i >= (size_t)bpp ? prev[i - (size_t)bpp] : 0;
            int add = ft == 0 ? 0 : ft == 1 ? a : ft == 2 ? b : ft == 3 ? (a + b) / 2 : ft == 4 ? paeth(a, b, c) : -1;
            if (add < 0) die("bad filter type");
            cur[i] = (uint8_t)(cur[i] + add);
        }
        for (uint32_t x = 0; x < w && nseen < 1000; x++) {
            uint32_t px = 0;
            for (int k = 0; k < bpp; k++) px = px << 8 | cur[x * (uint32_t)bpp + (uint32_t)k];
            int known = 0;
            for (int k = 0; k < nseen && !known; k++) known = seen[k] == px;
            if (!known) seen[nseen++] = px;
        }
        prev = cur;
    }
    printf("%u %u %d\n", w, h, nseen);
    free(z);
    free(o.p);
    free(zero);
    return 0;
}
