/*
 * gen_trace.c — writes a synthetic trace CSV fast, for the analyzer
 * benchmark (bench/analyze_bench.sh) and for tests that need big inputs.
 *
 *   gen_trace [--rows N] [--windows K] [--interval-ms MS] [--original]
 *             [--start-label L] [--end-label L] [--seed S] [--no-rapl]
 *             [--out FILE]
 *
 * N SAMPLE rows (default 1000), one every MS ms (default 10) with 20..99 us
 * of scheduling lateness, plus a `begin` MARK first, an `end` MARK last and
 * K start/end MARK pairs (default 1) spread evenly over the trace. Each
 * window lasts 72.4 samples (724 ms at 10 ms) or half the spacing between
 * windows, whichever is shorter; marks fall between samples. Windows cycle
 * through three kinds so a verdict has something to find: compute (612 W,
 * util 97%), waiting (63 W, util 0%, CPU 3%), host-cpu (62 W, util 0%,
 * CPU 95%); outside windows the GPU idles at 60 W.
 *
 * The header is trace_schema.c's column names in order (plus one
 * rapl_cum_uj_package_0 column unless --no-rapl); --original writes the
 * ten columns nvml_trace.py wrote. gpu_power_W is the trailing 1-second
 * average of the instantaneous power, as Ampere-and-newer drivers report
 * it; gpu_energy_mJ is the trapezoid integral of the instantaneous power.
 * Values come from a seeded xorshift generator: same flags, same bytes.
 *
 * Numbers are formatted by hand (no printf per cell) so a million rows take
 * well under a second; the generator must not be the slow part of a bench.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The helper is built standalone (helpers link nothing of
 * libflinch.a), so the column names are compiled in from their one source. */
#include "trace_schema.c"

struct gen_options {
    uint64_t rows;
    uint64_t windows;
    uint64_t interval_ms;
    uint64_t seed;
    int original;
    int rapl;
    const char *start_label;
    const char *end_label;
    const char *out_path;
};

/* Output buffer: rows are appended here and written out in big chunks. */
static char out_buf[1 << 20];
static size_t out_len;
static FILE *out_file;

static void flush_out(void)
{
    if (out_len && fwrite(out_buf, 1, out_len, out_file) != out_len) {
        fprintf(stderr, "gen_trace: write: %s\n", strerror(errno));
        exit(1);
    }
    out_len = 0;
}

static void put_str(const char *s)
{
    size_t n = strlen(s);
    if (out_len + n > sizeof out_buf)
        flush_out();
    memcpy(out_buf + out_len, s, n);
    out_len += n;
}

static void put_char(char c)
{
    if (out_len + 1 > sizeof out_buf)
        flush_out();
    out_buf[out_len++] = c;
}

static void put_u64(uint64_t v)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        put_char(tmp[--n]);
}

/* v thousandths, printed as a decimal with three places: 612345 -> 612.345 */
static void put_milli(uint64_t v)
{
    put_u64(v / 1000);
    put_char('.');
    put_char((char)('0' + v / 100 % 10));
    put_char((char)('0' + v / 10 % 10));
    put_char((char)('0' + v % 10));
}

/* v tenths: 953 -> 95.3 */
static void put_deci(uint64_t v)
{
    put_u64(v / 10);
    put_char('.');
    put_char((char)('0' + v % 10));
}

static void put_hex16(uint64_t v)
{
    static const char digits[] = "0123456789abcdef";
    put_str("0x");
    for (int shift = 60; shift >= 0; shift -= 4)
        put_char(digits[(v >> shift) & 0xf]);
}

/* A label quoted as RFC 4180 wants when it holds a comma, quote or space. */
static void put_label(const char *label)
{
    if (!strpbrk(label, ",\" ")) {
        put_str(label);
        return;
    }
    put_char('"');
    for (const char *p = label; *p; p++) {
        if (*p == '"')
            put_char('"');
        put_char(*p);
    }
    put_char('"');
}

static void put_commas(int n)
{
    while (n-- > 0)
        put_char(',');
}

static uint64_t rng_state;

static uint64_t rng_next(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}

/* Uniform in [0, n). */
static uint64_t rng_below(uint64_t n)
{
    return rng_next() % n;
}

enum window_kind { KIND_IDLE, KIND_COMPUTE, KIND_WAITING, KIND_HOST_CPU };

struct reading {
    uint64_t power_mw;        /* instantaneous */
    uint64_t util, mem_util, clock_mhz, temp_c, mem_used_mib, cpu_deci;
};

/* The random draws are made one per statement, in a fixed order, so the
 * output does not depend on a compiler's order of evaluating initializers. */
static struct reading reading_for(enum window_kind kind)
{
    uint64_t jitter_mw = rng_below(2000);
    uint64_t jitter_pct = rng_below(3);
    uint64_t jitter_cpu = rng_below(40);
    struct reading r = { 60000 + jitter_mw * 3 / 4, 0, 0, 345, 35, 512, 30 + jitter_cpu };
    switch (kind) {
    case KIND_COMPUTE:
        r = (struct reading){ 611000 + jitter_mw, 96 + jitter_pct, 40 + jitter_pct,
                              1980, 71, 61440, 100 + jitter_cpu };
        break;
    case KIND_WAITING:
        r.power_mw = 62500 + jitter_mw / 2;
        r.mem_used_mib = 61440;
        r.cpu_deci = 20 + jitter_cpu / 2;
        break;
    case KIND_HOST_CPU:
        r.power_mw = 61500 + jitter_mw / 2;
        r.mem_used_mib = 61440;
        r.cpu_deci = 940 + jitter_cpu / 2;
        break;
    case KIND_IDLE:
        break;
    }
    return r;
}

#define T0_MONO_NS 1000000000000ULL
#define T0_WALL_NS 1700000000000000000ULL
#define ENERGY_BASE_MJ 1000000ULL
#define RAPL_MAX_UJ 262143328850ULL

static void write_header(const struct gen_options *o)
{
    int ncol = o->original ? TRACE_ORIGINAL_COLUMNS : COL_COUNT;
    for (int i = 0; i < ncol; i++) {
        if (i)
            put_char(',');
        put_str(trace_column_names[i]);
    }
    if (!o->original && o->rapl)
        put_str("," RAPL_CUM_PREFIX "package_0");
    put_char('\n');
}

/* A MARK row: times, label; every reading empty; arrival a little later. */
static void write_mark(const struct gen_options *o, uint64_t t_ns, const char *label)
{
    put_u64(T0_MONO_NS + t_ns);
    put_char(',');
    put_u64(T0_WALL_NS + t_ns);
    put_str("," ROW_MARK ",");
    put_label(label);
    if (o->original) {
        put_commas(TRACE_ORIGINAL_COLUMNS - 4);
    } else {
        put_commas(COL_ARRIVAL_MONO_NS - COL_LABEL);
        put_u64(T0_MONO_NS + t_ns + 15000 + rng_below(30000));
        put_commas(COL_COUNT - 1 - COL_ARRIVAL_MONO_NS);
        if (o->rapl)
            put_char(',');
    }
    put_char('\n');
}

struct sampler {
    uint64_t *ring;           /* last second of instantaneous mW, for the average */
    uint64_t ring_len, ring_sum;
    uint64_t energy_uj;       /* integral of instantaneous power, uJ */
    uint64_t prev_mw, prev_t_ns;
    uint64_t rapl_cum_uj;
};

static void write_sample(const struct gen_options *o, struct sampler *s, uint64_t tick,
                         uint64_t t_ns, uint64_t late_ns, struct reading r)
{
    if (tick) {
        s->energy_uj += (s->prev_mw + r.power_mw) * (t_ns - s->prev_t_ns) / 2000000;
        s->rapl_cum_uj += (45000 + rng_below(10000)) * (t_ns - s->prev_t_ns) / 1000000;
    }
    s->prev_mw = r.power_mw;
    s->prev_t_ns = t_ns;
    uint64_t slot = tick % s->ring_len;
    s->ring_sum += r.power_mw - s->ring[slot];
    s->ring[slot] = r.power_mw;
    uint64_t avg_mw = tick + 1 < s->ring_len ? s->ring_sum / (tick + 1) : s->ring_sum / s->ring_len;

    put_u64(T0_MONO_NS + t_ns);
    put_char(',');
    put_u64(T0_WALL_NS + t_ns);
    put_str("," ROW_SAMPLE ",,");
    put_milli(avg_mw);
    put_char(',');
    put_u64(r.util);
    put_char(',');
    put_u64(r.mem_util);
    put_char(',');
    put_u64(r.clock_mhz);
    put_char(',');
    put_u64(r.temp_c);
    put_char(',');
    if (o->rapl)
        put_u64((123456789ULL + s->rapl_cum_uj) % RAPL_MAX_UJ);
    if (o->original) {
        put_char('\n');
        return;
    }
    put_str(",0,");
    put_u64(ENERGY_BASE_MJ + s->energy_uj / 1000);
    put_char(',');
    put_milli(r.power_mw);
    put_char(',');
    put_u64(r.mem_used_mib);
    put_char(',');
    put_hex16(r.power_mw > 100000 ? 0 : 1);
    put_str(",700.000,");
    put_deci(r.cpu_deci);
    put_char(',');
    put_u64(tick);
    put_char(',');
    put_u64(late_ns);
    put_commas(COL_COUNT - 1 - COL_LATE_NS);
    if (o->rapl) {
        put_char(',');
        put_u64(s->rapl_cum_uj);
    }
    put_char('\n');
}

static int parse_u64(const char *text, const char *flag, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text || *end || text[0] == '-') {
        fprintf(stderr, "gen_trace: %s: not a non-negative integer: '%s'\n", flag, text);
        return -1;
    }
    *out = v;
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: gen_trace [--rows N] [--windows K] [--interval-ms MS] [--original]\n"
               "                 [--start-label L] [--end-label L] [--seed S] [--no-rapl] [--out FILE]\n");
}

static int parse_options(int argc, char **argv, struct gen_options *o)
{
    static const struct option longopts[] = {
        { "rows", required_argument, 0, 'n' },
        { "windows", required_argument, 0, 'k' },
        { "interval-ms", required_argument, 0, 'i' },
        { "seed", required_argument, 0, 's' },
        { "original", no_argument, 0, 'O' },
        { "no-rapl", no_argument, 0, 'R' },
        { "start-label", required_argument, 0, 'a' },
        { "end-label", required_argument, 0, 'b' },
        { "out", required_argument, 0, 'o' },
        { "help", no_argument, 0, 'h' },
        { 0, 0, 0, 0 },
    };
    *o = (struct gen_options){ 1000, 1, 10, 1, 0, 1, "infer_start", "first_token", NULL };
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        int rc = 0;
        switch (c) {
        case 'n': rc = parse_u64(optarg, "--rows", &o->rows); break;
        case 'k': rc = parse_u64(optarg, "--windows", &o->windows); break;
        case 'i': rc = parse_u64(optarg, "--interval-ms", &o->interval_ms); break;
        case 's': rc = parse_u64(optarg, "--seed", &o->seed); break;
        case 'O': o->original = 1; break;
        case 'R': o->rapl = 0; break;
        case 'a': o->start_label = optarg; break;
        case 'b': o->end_label = optarg; break;
        case 'o': o->out_path = optarg; break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); return -1;
        }
        if (rc)
            return -1;
    }
    if (optind != argc) {
        usage(stderr);
        return -1;
    }
    if (o->interval_ms == 0 || o->interval_ms > 1000) {
        fprintf(stderr, "gen_trace: --interval-ms must be 1..1000\n");
        return -1;
    }
    if (o->windows && o->rows / o->windows < 4) {
        fprintf(stderr, "gen_trace: %" PRIu64 " windows need at least %" PRIu64 " rows\n",
                o->windows, o->windows * 4);
        return -1;
    }
    return 0;
}

/*
 * Window j starts 0.3 of a sample after sample floor(j*P + P/4), P being the
 * spacing in samples, and ends len + 0.4 samples later (len whole samples),
 * so both marks sit strictly between two samples and each MARK row can be
 * written right after the sample before it.
 */
int main(int argc, char **argv)
{
    struct gen_options o;
    if (parse_options(argc, argv, &o))
        return 2;
    out_file = o.out_path ? fopen(o.out_path, "w") : stdout;
    if (!out_file) {
        fprintf(stderr, "gen_trace: %s: %s\n", o.out_path, strerror(errno));
        return 1;
    }
    rng_state = o.seed * 0x9E3779B97F4A7C15ULL + 1;

    struct sampler s = { 0 };
    s.ring_len = 1000 / o.interval_ms;
    if (s.ring_len == 0)
        s.ring_len = 1;
    s.ring = calloc(s.ring_len, sizeof *s.ring);
    if (!s.ring)
        return 1;

    const uint64_t interval_ns = o.interval_ms * 1000000ULL;
    const double spacing = o.windows ? (double)o.rows / (double)o.windows : 0;
    uint64_t win_len = (uint64_t)(spacing / 2);
    if (win_len > 72)
        win_len = 72;
    if (win_len < 1)
        win_len = 1;

    write_header(&o);
    write_mark(&o, 0, "begin");
    uint64_t win = 0, win_start = 0;
    int in_window = 0;
    if (o.windows)
        win_start = (uint64_t)(spacing / 4);
    for (uint64_t tick = 0; tick < o.rows; tick++) {
        enum window_kind kind = in_window ? (enum window_kind)(KIND_COMPUTE + win % 3) : KIND_IDLE;
        uint64_t late_ns = 20000 + rng_below(80000);
        write_sample(&o, &s, tick, tick * interval_ns + late_ns, late_ns, reading_for(kind));
        if (win < o.windows && !in_window && tick == win_start) {
            write_mark(&o, tick * interval_ns + interval_ns * 3 / 10, o.start_label);
            in_window = 1;
        } else if (in_window && tick == win_start + win_len) {
            write_mark(&o, tick * interval_ns + interval_ns * 7 / 10, o.end_label);
            in_window = 0;
            win++;
            win_start = (uint64_t)((double)win * spacing + spacing / 4);
        }
    }
    write_mark(&o, o.rows * interval_ns, "end");
    flush_out();
    free(s.ring);
    if (o.out_path && fclose(out_file) != 0) {
        fprintf(stderr, "gen_trace: %s: %s\n", o.out_path, strerror(errno));
        return 1;
    }
    return 0;
}
