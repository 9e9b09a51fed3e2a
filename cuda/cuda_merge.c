/* cuda_merge.c — one batch of activity records to busy-interval lines; see cuda_merge.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_merge.h"

enum rec_class { CLS_KERNEL, CLS_COLLECTIVE, CLS_COPY };

struct rec {
    uint64_t start, end;
    uint64_t bytes;                     /* copies */
    uint32_t dev;
    uint16_t name;                      /* kernels: name number (0: table full) */
    uint8_t cls;
};

struct name_entry {
    uint64_t hash;
    uint16_t id;                        /* 0: free slot */
    uint8_t sent;
    uint8_t collective;
    char text[CUDA_MERGE_NAME_MAX + 1];
};

struct name_time {
    uint16_t name;
    uint64_t ns;
};

#define SLOTS (2 * CUDA_MERGE_NAMES)    /* open addressing, at most half full */
#define PTR_CACHE 1024
#define LINE_MAX_BYTES 600

static struct rec *recs;
static size_t nrecs;
static struct name_entry *names;        /* SLOTS entries */
static uint16_t slot_of[CUDA_MERGE_NAMES];
static uint16_t next_id = 1;
static struct { const char *p; uint16_t id; } ptr_cache[PTR_CACHE];
static struct name_time *scratch;
static long long my_pid;
static long long zero_stamps;
static cuda_line_fn send_line;

int cuda_merge_init(long long pid, cuda_line_fn out)
{
    recs = calloc(CUDA_MERGE_RECORDS, sizeof *recs);
    names = calloc(SLOTS, sizeof *names);
    scratch = calloc(CUDA_MERGE_RECORDS, sizeof *scratch);
    if (!recs || !names || !scratch) {
        free(recs);
        free(names);
        free(scratch);
        recs = NULL;
        names = NULL;
        scratch = NULL;
        return -1;
    }
    my_pid = pid;
    send_line = out;
    return 0;
}

void cuda_merge_after_fork(long long pid)
{
    my_pid = pid;
    nrecs = 0;
    zero_stamps = 0;
    for (size_t i = 0; i < SLOTS; i++)
        names[i].sent = 0;
}

long long cuda_merge_zero_stamps(void) { return zero_stamps; }

int cuda_is_collective(const char *name)
{
    return name && (strstr(name, "ncclDevKernel_") || strstr(name, "ncclKernel_"));
}

static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* The name as kept: at most CUDA_MERGE_NAME_MAX bytes, cut on a UTF-8
 * character boundary, control bytes and spaces made '_' (a line's fields
 * are space-separated; the name is its last one). */
static size_t clean_name(const char *src, char *dst)
{
    size_t n = 0;
    while (n < CUDA_MERGE_NAME_MAX && src[n])
        n++;
    if (src[n])
        while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80)
            n--;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)src[i];
        dst[i] = c <= 0x20 || c == 0x7f ? '_' : (char)c;
    }
    if (n == 0)
        memcpy(dst, "(unnamed)", n = 9);
    dst[n] = '\0';
    return n;
}

/* The number of a kernel name, 1..CUDA_MERGE_NAMES-1; 0 once the table is
 * full. CUPTI shares one name string among all records of a kernel, so
 * its address is looked up first. */
static uint16_t name_id(const char *name, int *collective)
{
    size_t c = ((uintptr_t)name >> 4) % PTR_CACHE;
    if (ptr_cache[c].p == name && ptr_cache[c].id) {
        *collective = names[slot_of[ptr_cache[c].id]].collective;
        return ptr_cache[c].id;
    }
    char text[CUDA_MERGE_NAME_MAX + 1];
    size_t n = clean_name(name, text);
    uint64_t h = fnv1a(text, n);
    size_t s = h % SLOTS;
    while (names[s].id && (names[s].hash != h || strcmp(names[s].text, text) != 0))
        s = (s + 1) % SLOTS;
    if (!names[s].id) {
        if (next_id >= CUDA_MERGE_NAMES) {
            *collective = cuda_is_collective(name);
            return 0;
        }
        names[s].id = next_id++;
        names[s].hash = h;
        names[s].collective = (uint8_t)cuda_is_collective(name);
        memcpy(names[s].text, text, n + 1);
        slot_of[names[s].id] = (uint16_t)s;
    }
    ptr_cache[c].p = name;
    ptr_cache[c].id = names[s].id;
    *collective = names[s].collective;
    return names[s].id;
}

static int add(uint32_t dev, uint64_t start, uint64_t end, uint64_t bytes, uint16_t name, int cls)
{
    if (start == 0 || end == 0 || end < start) {
        zero_stamps++;
        return 0;
    }
    if (nrecs < CUDA_MERGE_RECORDS)
        recs[nrecs++] = (struct rec){ start, end, bytes, dev, name, (uint8_t)cls };
    return nrecs == CUDA_MERGE_RECORDS;
}

int cuda_merge_kernel(uint32_t device, uint64_t start, uint64_t end, const char *name)
{
    int coll = 0;
    uint16_t id = name_id(name ? name : "", &coll);
    return add(device, start, end, 0, id, coll ? CLS_COLLECTIVE : CLS_KERNEL);
}

int cuda_merge_copy(uint32_t device, uint64_t start, uint64_t end, uint64_t bytes)
{
    return add(device, start, end, bytes, 0, CLS_COPY);
}

/* Sorted by GPU, then kernels (of either class) before copies, then start. */
static int group(const struct rec *r) { return r->cls == CLS_COPY; }

static int cmp_rec(const void *a, const void *b)
{
    const struct rec *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    if (group(x) != group(y))
        return group(x) - group(y);
    return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_name(const void *a, const void *b)
{
    const struct name_time *x = a, *y = b;
    return (x->name > y->name) - (x->name < y->name);
}

static int cmp_ns_desc(const void *a, const void *b)
{
    const struct name_time *x = a, *y = b;
    if (x->ns != y->ns)
        return x->ns < y->ns ? 1 : -1;
    return (x->name > y->name) - (x->name < y->name);
}

static void put(const char *line, int n)
{
    if (n > 0 && n < LINE_MAX_BYTES)
        send_line(line, (size_t)n);
}

/* Sends N lines for the names of recs[lo..hi) not sent yet. */
static void send_names(size_t lo, size_t hi)
{
    char line[LINE_MAX_BYTES];
    for (size_t i = lo; i < hi; i++) {
        struct name_entry *e = recs[i].name ? &names[slot_of[recs[i].name]] : NULL;
        if (!e || e->sent)
            continue;
        int n = snprintf(line, sizeof line, "N pid=%lld id=%u %s", my_pid, (unsigned)e->id, e->text);
        if (n > 0 && n < (int)sizeof line && send_line(line, (size_t)n) == 0)
            e->sent = 1;
    }
}

/* Up to GAPS_MAX gaps shorter than GROUP_GAP_NS go on one line: a GPU
 * running short kernels with microsecond gaps would otherwise cost a line
 * per kernel. */
#define GAPS_MAX 24
#define GAPS_BYTES 240                  /* the line stays within the channel's 591 bytes */
#define GROUP_GAP_NS 1000000ULL

/* One line's worth of union intervals: [start, end) minus its gaps. */
struct group {
    size_t first, count;                /* records recs[first..) of the wanted classes, how many */
    uint64_t start, end, bytes, busy_since;
    int ngaps;
    char gaps[GAPS_MAX * 42 + 1];       /* ",BUSY:GAP" per gap, ns */
    size_t glen;
};

/* " top=I:NS,... other=NS" for the kernels recs[lo..hi) into out. */
static int top_names(size_t lo, size_t hi, char *out, size_t size)
{
    size_t k = 0;
    for (size_t i = lo; i < hi; i++)
        if (recs[i].cls != CLS_COPY)
            scratch[k++] = (struct name_time){ recs[i].name, recs[i].end - recs[i].start };
    qsort(scratch, k, sizeof *scratch, cmp_name);
    size_t m = 0;
    for (size_t i = 0; i < k; i++) {
        if (m && scratch[m - 1].name == scratch[i].name)
            scratch[m - 1].ns += scratch[i].ns;
        else
            scratch[m++] = scratch[i];
    }
    qsort(scratch, m, sizeof *scratch, cmp_ns_desc);
    int n = snprintf(out, size, " top=");
    uint64_t other = 0;
    for (size_t i = 0; i < m; i++) {
        if (i < CUDA_MERGE_TOP)
            n += snprintf(out + n, size - (size_t)n, "%s%u:%llu", i ? "," : "",
                          (unsigned)scratch[i].name, (unsigned long long)scratch[i].ns);
        else
            other += scratch[i].ns;
    }
    n += snprintf(out + n, size - (size_t)n, " other=%llu", (unsigned long long)other);
    return n;
}

static void group_line(const struct group *g, size_t hi, int want)
{
    char line[LINE_MAX_BYTES], tail[LINE_MAX_BYTES / 2] = "";
    const char *gaps = g->glen ? g->gaps : "";
    unsigned dev = (unsigned)recs[g->first].dev;
    unsigned long long st = g->start, en = g->end;
    if (want == (1 << CLS_KERNEL | 1 << CLS_COLLECTIVE)) {
        top_names(g->first, hi, tail, sizeof tail);
        put(line, snprintf(line, sizeof line, "B pid=%lld gpu=%u start=%llu end=%llu kernels=%zu%s%s%s",
                           my_pid, dev, st, en, g->count, tail, g->glen ? " gaps=" : "",
                           g->glen ? gaps + 1 : ""));
    } else if (want == 1 << CLS_COLLECTIVE) {
        put(line, snprintf(line, sizeof line, "C pid=%lld gpu=%u start=%llu end=%llu kernels=%zu%s%s",
                           my_pid, dev, st, en, g->count, g->glen ? " gaps=" : "",
                           g->glen ? gaps + 1 : ""));
    } else {
        put(line, snprintf(line, sizeof line, "X pid=%lld gpu=%u start=%llu end=%llu copies=%zu "
                           "bytes=%llu%s%s", my_pid, dev, st, en, g->count,
                           (unsigned long long)g->bytes, g->glen ? " gaps=" : "",
                           g->glen ? gaps + 1 : ""));
    }
}

/*
 * The union of the intervals of recs[lo..hi) (sorted by start) whose class
 * passes `want`: each maximal run of overlapping or touching intervals is
 * one busy interval (touching joins: there is no gap), and consecutive busy
 * intervals share a line while their gaps are short and few (GAPS_MAX,
 * GROUP_GAP_NS), the gaps listed exactly.
 */
static void sweep(size_t lo, size_t hi, int want)
{
    struct group g;
    int open = 0;
    size_t i = lo;
    while (i < hi) {
        if (!((want >> recs[i].cls) & 1)) {
            i++;
            continue;
        }
        size_t first = i, count = 0;
        uint64_t start = recs[i].start, end = recs[i].end, bytes = 0;
        for (; i < hi; i++) {
            if (!((want >> recs[i].cls) & 1))
                continue;
            if (recs[i].start > end)
                break;
            if (recs[i].end > end)
                end = recs[i].end;
            bytes += recs[i].bytes;
            count++;
        }
        if (open && (g.ngaps == GAPS_MAX || g.glen > GAPS_BYTES || start - g.end > GROUP_GAP_NS)) {
            group_line(&g, first, want);
            open = 0;
        }
        if (!open) {
            g = (struct group){ .first = first, .start = start, .busy_since = start };
            open = 1;
        } else {
            g.glen += (size_t)snprintf(g.gaps + g.glen, sizeof g.gaps - g.glen, ",%llu:%llu",
                                       (unsigned long long)(g.end - g.busy_since),
                                       (unsigned long long)(start - g.end));
            g.ngaps++;
            g.busy_since = start;
        }
        g.end = end;
        g.count += count;
        g.bytes += bytes;
    }
    if (open)
        group_line(&g, hi, want);
}

void cuda_merge_emit(void)
{
    if (!nrecs)
        return;
    qsort(recs, nrecs, sizeof *recs, cmp_rec);
    send_names(0, nrecs);
    size_t lo = 0;
    while (lo < nrecs) {
        size_t hi = lo;
        while (hi < nrecs && recs[hi].dev == recs[lo].dev && group(&recs[hi]) == group(&recs[lo]))
            hi++;
        if (group(&recs[lo]) == 0) {
            sweep(lo, hi, 1 << CLS_KERNEL | 1 << CLS_COLLECTIVE);
            sweep(lo, hi, 1 << CLS_COLLECTIVE);
        } else {
            sweep(lo, hi, 1 << CLS_COPY);
        }
        lo = hi;
    }
    nrecs = 0;
}
