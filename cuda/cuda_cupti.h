/*
 * cuda_cupti.h — finding, loading and checking the CUPTI the application
 * should use (README, "Kernel timeline"): $FLINCH_CUPTI_LIB; else a
 * libcupti.so.* the process has loaded already; else the nvidia/cuda_cupti/lib
 * beside any site-packages library loaded (PyTorch wheels install it
 * there); else $CUDA_HOME (default /usr/local/cuda) extras/CUPTI/lib64,
 * lib64, lib; else the loader's search path. Every entry point is looked
 * up by name (cupti_abi.h); the library is never unloaded.
 */
#ifndef FLINCH_CUDA_CUPTI_H
#define FLINCH_CUDA_CUPTI_H

#include <limits.h>

#include "cupti_abi.h"

struct cupti_api {
    char path[PATH_MAX];                /* what was loaded, as found */
    void *handle;
    fcupti_get_version_fn get_version;
    fcupti_subscribe_fn subscribe;
    fcupti_subscribe_v2_fn subscribe_v2;           /* NULL before CUPTI 12.x late */
    fcupti_unsubscribe_fn unsubscribe;
    fcupti_activity_enable_fn enable;
    fcupti_register_callbacks_fn register_callbacks;
    fcupti_register_timestamp_fn register_timestamp; /* may be NULL */
    fcupti_get_next_record_fn next_record;
    fcupti_get_num_dropped_fn num_dropped;         /* may be NULL */
    fcupti_flush_all_fn flush_all;
    fcupti_finalize_fn finalize;                   /* may be NULL */
};

/* 0 when loaded with every required symbol; else -1 and why ("no_cupti",
 * "symbols") in *reason. */
int cupti_load(struct cupti_api *api, const char **reason);

#endif
