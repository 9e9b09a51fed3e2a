/*
 * builtin/record_bridges.c — `flinch record --nvtx` and `--cuda`: finds the
 * injection library beside the flinch binary (or where make install puts
 * it), refuses to take over another tool's injection variable unless told
 * to, and hands the library (and the NVTX filter) to CMD through its
 * environment.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "nvtx_filter.h"
#include "record_bridges.h"

/* An injection library (libflinch_nvtx.so, libflinch_cuda.so): next to
 * the flinch binary (the build directory), else in ../lib/flinch/ (make
 * install). 0 with its absolute path, or -1. */
static int find_bridge(const char *name, char *path, size_t size)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    const char *const rel[] = { "/", "/../lib/flinch/" };
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        char cand[PATH_MAX + 64];
        snprintf(cand, sizeof cand, "%s%s%s", exe, rel[i], name);
        if (access(cand, R_OK) == 0 && realpath(cand, path) && strlen(path) < size)
            return 0;
    }
    return -1;
}

/* --nvtx: checks the filter and hands CMD the bridge and the filter. */
int record_setup_nvtx(const char *filter_text, int replace)
{
    struct nvtx_filter f;
    char err[NVTX_FILTER_ERROR_MAX];
    if (nvtx_filter_parse(&f, filter_text, err, sizeof err) != 0) {
        diag_error("--nvtx=%s: %s", filter_text, err);
        return -1;
    }
    nvtx_filter_free(&f);
    const char *old = getenv("NVTX_INJECTION64_PATH");
    if (old && *old && !replace) {
        diag_error("NVTX_INJECTION64_PATH is already set (%s): another tool takes NVTX there; "
                   "--nvtx-replace hands NVTX to flinch instead", old);
        return -1;
    }
    char lib[PATH_MAX];
    if (find_bridge("libflinch_nvtx.so", lib, sizeof lib) != 0) {
        diag_error("--nvtx: libflinch_nvtx.so not found next to flinch or in ../lib/flinch/ "
                   "(build it with make)");
        return -1;
    }
    if (setenv("NVTX_INJECTION64_PATH", lib, 1) != 0 ||
        setenv("FLINCH_NVTX_FILTER", filter_text ? filter_text : "", 1) != 0) {
        diag_error("setenv: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* --cuda: hands CMD the injection library (README, "Kernel timeline"). */
int record_setup_cuda(int replace)
{
    const char *old = getenv("CUDA_INJECTION64_PATH");
    if (old && *old && !replace) {
        diag_error("CUDA_INJECTION64_PATH is already set (%s): another tool injects into CUDA "
                   "there; --cuda-replace hands it to flinch instead", old);
        return -1;
    }
    char lib[PATH_MAX];
    if (find_bridge("libflinch_cuda.so", lib, sizeof lib) != 0) {
        diag_error("--cuda: libflinch_cuda.so not found next to flinch or in ../lib/flinch/ "
                   "(build it with make)");
        return -1;
    }
    if (setenv("CUDA_INJECTION64_PATH", lib, 1) != 0) {
        diag_error("setenv: %s", strerror(errno));
        return -1;
    }
    return 0;
}
