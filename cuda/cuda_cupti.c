/* cuda_cupti.c — locating and loading libcupti; see cuda_cupti.h. */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda_cupti.h"

static const char *const sonames[] = { "libcupti.so", "libcupti.so.13", "libcupti.so.12" };
#define NSONAMES (sizeof sonames / sizeof sonames[0])

struct scan {
    char cupti[PATH_MAX];               /* a loaded libcupti */
    char site[PATH_MAX];                /* .../site-packages/ of a loaded library */
};

static int scan_loaded(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct scan *s = arg;
    const char *name = info->dlpi_name;
    if (!name || !*name)
        return 0;
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    if (!s->cupti[0] && strncmp(base, "libcupti.so", 11) == 0 && strlen(name) < sizeof s->cupti)
        snprintf(s->cupti, sizeof s->cupti, "%s", name);
    const char *sp = strstr(name, "/site-packages/");
    if (!sp)
        sp = strstr(name, "/dist-packages/");
    if (!s->site[0] && sp && (size_t)(sp - name) + 15 < sizeof s->site)
        snprintf(s->site, sizeof s->site, "%.*s", (int)(sp - name) + 15, name);
    return 0;
}

static void *try_open(const char *path, struct cupti_api *api)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h)
        snprintf(api->path, sizeof api->path, "%s", path);
    return h;
}

static void *try_dir(const char *dir, struct cupti_api *api)
{
    for (size_t i = 0; i < NSONAMES; i++) {
        char p[PATH_MAX];
        if (snprintf(p, sizeof p, "%s/%s", dir, sonames[i]) >= (int)sizeof p || access(p, R_OK) != 0)
            continue;
        void *h = try_open(p, api);
        if (h)
            return h;
    }
    return NULL;
}

static void *open_cupti(struct cupti_api *api)
{
    const char *env = getenv("FLINCH_CUPTI_LIB");
    if (env && *env)
        return try_open(env, api);      /* told which: nothing else */
    struct scan s = { { 0 }, { 0 } };
    dl_iterate_phdr(scan_loaded, &s);
    void *h = NULL;
    if (s.cupti[0] && (h = try_open(s.cupti, api)))
        return h;
    char dir[PATH_MAX + 64];
    if (s.site[0]) {
        snprintf(dir, sizeof dir, "%snvidia/cuda_cupti/lib", s.site);
        if ((h = try_dir(dir, api)))
            return h;
        snprintf(dir, sizeof dir, "%snvidia/cu13/lib", s.site);
        if ((h = try_dir(dir, api)))
            return h;
    }
    const char *home = getenv("CUDA_HOME");
    if (!home || !*home)
        home = "/usr/local/cuda";
    const char *const sub[] = { "/extras/CUPTI/lib64", "/lib64", "/lib" };
    for (size_t i = 0; i < sizeof sub / sizeof sub[0]; i++) {
        snprintf(dir, sizeof dir, "%s%s", home, sub[i]);
        if ((h = try_dir(dir, api)))
            return h;
    }
    for (size_t i = 0; i < NSONAMES; i++)
        if ((h = try_open(sonames[i], api)))
            return h;
    return NULL;
}

/* dlsym into a function pointer without a cast warning. */
#define SYM(field, name) do { void *p_ = dlsym(api->handle, name); \
        memcpy(&api->field, &p_, sizeof p_); } while (0)

int cupti_load(struct cupti_api *api, const char **reason)
{
    memset(api, 0, sizeof *api);
    api->handle = open_cupti(api);
    if (!api->handle) {
        *reason = "no_cupti";
        return -1;
    }
    SYM(get_version, "cuptiGetVersion");
    SYM(subscribe, "cuptiSubscribe");
    SYM(subscribe_v2, "cuptiSubscribe_v2");
    SYM(unsubscribe, "cuptiUnsubscribe");
    SYM(enable, "cuptiActivityEnable");
    SYM(register_callbacks, "cuptiActivityRegisterCallbacks");
    SYM(register_timestamp, "cuptiActivityRegisterTimestampCallback");
    SYM(next_record, "cuptiActivityGetNextRecord");
    SYM(num_dropped, "cuptiActivityGetNumDroppedRecords");
    SYM(flush_all, "cuptiActivityFlushAll");
    SYM(finalize, "cuptiFinalize");
    if (!api->get_version || !api->subscribe || !api->unsubscribe || !api->enable ||
        !api->register_callbacks || !api->next_record || !api->flush_all) {
        *reason = "symbols";
        return -1;
    }
    return 0;
}
