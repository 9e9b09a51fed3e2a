/* gpu_select.c — --gpu SPEC to NVML indices; see gpu_select.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "gpu_select.h"

#define SELECT_MAX 64

/* What a selection needs to know about each GPU, read on first use. */
struct gpu_table {
    unsigned count;
    int loaded;
    char uuid[SELECT_MAX][NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    unsigned domain[SELECT_MAX], bus[SELECT_MAX], device[SELECT_MAX];
    char name[SELECT_MAX][NVML_DEVICE_NAME_V2_BUFFER_SIZE];
    unsigned pci_order[SELECT_MAX];   /* NVML indices sorted by bus id */
};

static int load_table(const struct nvml_lib *lib, struct gpu_table *t)
{
    if (t->loaded)
        return 0;
    if (t->count > SELECT_MAX) {
        diag_error("--gpu: %u GPUs; UUIDs, bus ids and cuda select among the first %d only",
                   t->count, SELECT_MAX);
        return -1;
    }
    for (unsigned i = 0; i < t->count; i++) {
        nvmlDevice_t h;
        nvmlPciInfo_t pci;
        memset(&pci, 0, sizeof pci);
        t->uuid[i][0] = t->name[i][0] = 0;
        nvmlReturn_t rc = lib->device_by_index(i, &h);
        if (rc == NVML_SUCCESS && lib->uuid)
            rc = lib->uuid(h, t->uuid[i], sizeof t->uuid[i]);
        if (rc == NVML_SUCCESS && lib->pci_info)
            rc = lib->pci_info(h, &pci);
        if (rc == NVML_SUCCESS && lib->device_name)
            lib->device_name(h, t->name[i], sizeof t->name[i]);
        if (rc != NVML_SUCCESS || !lib->uuid || !lib->pci_info) {
            diag_error("--gpu: cannot read GPU %u's UUID and bus id: %s", i,
                       rc != NVML_SUCCESS ? nvml_strerror(lib, rc) : "this NVML lacks the calls");
            return -1;
        }
        t->uuid[i][sizeof t->uuid[i] - 1] = t->name[i][sizeof t->name[i] - 1] = 0;
        t->domain[i] = pci.domain;
        t->bus[i] = pci.bus;
        t->device[i] = pci.device;
        t->pci_order[i] = i;
    }
    /* insertion sort by (domain, bus, device): at most 64 GPUs */
    for (unsigned i = 1; i < t->count; i++)
        for (unsigned k = i; k > 0; k--) {
            unsigned a = t->pci_order[k - 1], b = t->pci_order[k];
            int later = t->domain[a] != t->domain[b] ? t->domain[a] > t->domain[b]
                      : t->bus[a] != t->bus[b] ? t->bus[a] > t->bus[b] : t->device[a] > t->device[b];
            if (!later)
                break;
            t->pci_order[k - 1] = b;
            t->pci_order[k] = a;
        }
    t->loaded = 1;
    return 0;
}

/* The GPU whose UUID is or starts with U (LEN bytes, at least "GPU-x"):
 * its index, -1 none, -2 more than one. */
static int by_uuid(const struct gpu_table *t, const char *u, size_t len)
{
    int found = -1;
    for (unsigned i = 0; i < t->count; i++)
        if (strncmp(t->uuid[i], u, len) == 0 && (len > 4 || t->uuid[i][len] == 0)) {
            if (found >= 0)
                return -2;
            found = (int)i;
        }
    return found;
}

/* "[DDDD:]BB:DD.F" in hex -> domain, bus, device; 0 or -1. */
static int parse_bus_id(const char *s, size_t len, unsigned *dom, unsigned *bus, unsigned *dev)
{
    char buf[40];
    if (len >= sizeof buf)
        return -1;
    memcpy(buf, s, len);
    buf[len] = 0;
    unsigned f;
    char tail;
    if (sscanf(buf, "%x:%x:%x.%x%c", dom, bus, dev, &f, &tail) == 4)
        return 0;
    *dom = 0;
    return sscanf(buf, "%x:%x.%x%c", bus, dev, &f, &tail) == 3 ? 0 : -1;
}

static int add(const char *spec, unsigned v, unsigned *idx, int *n, int max)
{
    for (int i = 0; i < *n; i++)
        if (idx[i] == v) {
            diag_error("--gpu %s: GPU %u listed twice", spec, v);
            return -1;
        }
    if (*n == max) {
        diag_error("--gpu %s: more than %d GPUs", spec, max);
        return -1;
    }
    idx[(*n)++] = v;
    return 0;
}

/* CUDA_VISIBLE_DEVICES -> the NVML indices a CUDA program sees, in its
 * device order. Returns the count, or -1 after an error. */
static int cuda_visible(const struct nvml_lib *lib, struct gpu_table *t, unsigned *vis)
{
    const char *env = getenv("CUDA_VISIBLE_DEVICES");
    const char *order = getenv("CUDA_DEVICE_ORDER");
    if (load_table(lib, t) != 0)
        return -1;
    int pci_order = order && strcmp(order, "PCI_BUS_ID") == 0;
    int same = 1;
    for (unsigned i = 1; i < t->count; i++)
        same &= strcmp(t->name[i], t->name[0]) == 0;
    const char *why_ambiguous = pci_order || same ? NULL :
        "the GPUs differ and CUDA_DEVICE_ORDER is not PCI_BUS_ID, so CUDA numbers them fastest "
        "first, an order NVML cannot tell; set CUDA_DEVICE_ORDER=PCI_BUS_ID or use GPU UUIDs";
    int n = 0;
    if (!env) {
        if (why_ambiguous) {
            diag_error("--gpu cuda: %s", why_ambiguous);
            return -1;
        }
        for (unsigned i = 0; i < t->count && n < SELECT_MAX; i++)
            vis[n++] = t->pci_order[i];
        return n;
    }
    /* CUDA reads the list up to the first entry it cannot use. */
    for (const char *p = env; *p && n < SELECT_MAX;) {
        size_t len = strcspn(p, ",");
        while (len && p[len - 1] == ' ')
            len--;
        while (len && *p == ' ')
            p++, len--;
        if (len >= 4 && strncmp(p, "MIG-", 4) == 0) {
            diag_error("--gpu cuda: CUDA_VISIBLE_DEVICES names a MIG instance (%.*s); flinch "
                       "records whole GPUs: name the GPU with --gpu GPU-UUID", (int)len, p);
            return -1;
        }
        int g;
        if (len > 4 && strncmp(p, "GPU-", 4) == 0) {
            g = by_uuid(t, p, len);
        } else {
            char *end;
            errno = 0;
            long v = strtol(p, &end, 10);
            if (end != p + len || errno || v < 0 || v >= (long)t->count)
                break;
            if (why_ambiguous) {
                diag_error("--gpu cuda: CUDA_VISIBLE_DEVICES=%s holds indices, and %s", env,
                           why_ambiguous);
                return -1;
            }
            g = (int)t->pci_order[v];
        }
        if (g < 0)
            break;
        int dup = 0;
        for (int i = 0; i < n; i++)
            dup |= vis[i] == (unsigned)g;
        if (dup)
            break;
        vis[n++] = (unsigned)g;
        p += strcspn(p, ",");
        if (*p == ',')
            p++;
    }
    return n;
}

int gpu_select(const struct nvml_lib *lib, const char *spec, unsigned count, unsigned *idx,
               int *n, int max)
{
    static struct gpu_table table;
    struct gpu_table *t = &table;
    memset(t, 0, sizeof *t);
    t->count = count;
    *n = 0;
    if (strcmp(spec, "all") == 0) {
        for (unsigned i = 0; i < count && (int)i < max; i++)
            idx[(*n)++] = i;
        if (count > (unsigned)max)
            diag_warn("--gpu all: %u GPUs found; recording the first %d (the most one trace holds)",
                      count, max);
        return 0;
    }
    for (const char *p = spec;;) {
        size_t len = strcspn(p, ",");
        if (len == 0) {
            diag_error("--gpu %s: empty entry", spec);
            return -1;
        }
        if (len > 4 && strncmp(p, "GPU-", 4) == 0) {
            if (load_table(lib, t) != 0)
                return -1;
            int g = by_uuid(t, p, len);
            if (g < 0) {
                diag_error("--gpu %.*s: %s", (int)len, p, g == -1 ? "no GPU with this UUID"
                           : "more than one GPU's UUID starts so");
                return -1;
            }
            if (add(spec, (unsigned)g, idx, n, max) != 0)
                return -1;
        } else if ((len == 4 && strncmp(p, "cuda", 4) == 0) ||
                   (len > 5 && strncmp(p, "cuda:", 5) == 0)) {
            unsigned vis[SELECT_MAX];
            int nv = cuda_visible(lib, t, vis);
            if (nv < 0)
                return -1;
            if (len == 4) {
                if (nv == 0) {
                    diag_error("--gpu cuda: CUDA_VISIBLE_DEVICES=%s lets CUDA see no GPU",
                               getenv("CUDA_VISIBLE_DEVICES"));
                    return -1;
                }
                for (int i = 0; i < nv; i++)
                    if (add(spec, vis[i], idx, n, max) != 0)
                        return -1;
            } else {
                char *end;
                errno = 0;
                long k = strtol(p + 5, &end, 10);
                if (end != p + len || errno || k < 0 || p[5] == '-' || p[5] == '+') {
                    diag_error("--gpu %.*s: expected cuda:N", (int)len, p);
                    return -1;
                }
                if (k >= nv) {
                    diag_error("--gpu %.*s: CUDA sees %d GPU%s here (CUDA_VISIBLE_DEVICES=%s)",
                               (int)len, p, nv, nv == 1 ? "" : "s",
                               getenv("CUDA_VISIBLE_DEVICES") ? getenv("CUDA_VISIBLE_DEVICES") : "unset");
                    return -1;
                }
                if (add(spec, vis[k], idx, n, max) != 0)
                    return -1;
            }
        } else if (memchr(p, ':', len)) {
            unsigned dom, bus, dev;
            if (parse_bus_id(p, len, &dom, &bus, &dev) != 0) {
                diag_error("--gpu %.*s: expected a PCI bus id like 0000:18:00.0", (int)len, p);
                return -1;
            }
            if (load_table(lib, t) != 0)
                return -1;
            int g = -1;
            for (unsigned i = 0; i < count; i++)
                if (t->domain[i] == dom && t->bus[i] == bus && t->device[i] == dev)
                    g = (int)i;
            if (g < 0) {
                diag_error("--gpu %.*s: no GPU at this PCI bus id", (int)len, p);
                return -1;
            }
            if (add(spec, (unsigned)g, idx, n, max) != 0)
                return -1;
        } else {
            char *end;
            errno = 0;
            unsigned long v = strtoul(p, &end, 10);
            if (end != p + len || errno || *p == '-' || *p == '+') {
                diag_error("--gpu %s: expected an index, a GPU UUID, a PCI bus id, cuda, cuda:N, "
                           "a list of them, or 'all'", spec);
                return -1;
            }
            if (v >= count) {
                diag_error("--gpu %lu: no such GPU (%u found: %s)", v, count,
                           count ? "indices start at 0" : nvml_strerror(lib, NVML_ERROR_NOT_FOUND));
                return -1;
            }
            if (add(spec, (unsigned)v, idx, n, max) != 0)
                return -1;
        }
        p += len;
        if (*p == '\0')
            return 0;
        p++;
    }
}
