/*
 * cupti_abi.h — the part of CUPTI's ABI libflinch_cuda.so uses, declared
 * here so flinch builds with gcc, make and libc alone (no CUDA toolkit).
 *
 * Activity records are read only through the prefix that is the same in
 * every layout CUPTI 12.x-13.x hands out for the kinds enabled
 * (CUpti_ActivityKernel4..10, CUpti_ActivityMemcpy5..6, CUpti_ActivityMemset4),
 * by offset, never by the whole struct: a newer CUPTI that appends fields
 * changes nothing here. tests/unit/test_cupti_abi.c static-asserts every
 * offset, size, enum value and function type against the real headers
 * when they are installed (/usr/local/cuda/include), and says so when not.
 */
#ifndef FLINCH_CUPTI_ABI_H
#define FLINCH_CUPTI_ABI_H

#include <stddef.h>
#include <stdint.h>

/* CUptiResult is an enum of int size; the ABI test sets this to the
 * real type so that the function types compare exactly. */
#ifndef FCUPTI_RESULT_TYPE
#define FCUPTI_RESULT_TYPE int
#endif
typedef FCUPTI_RESULT_TYPE fcupti_result;   /* CUptiResult */
typedef struct fcupti_subscriber *fcupti_subscriber_handle; /* CUpti_SubscriberHandle */

enum {
    FCUPTI_SUCCESS = 0,
    FCUPTI_ERROR_INVALID_PARAMETER = 1,
    FCUPTI_ERROR_MAX_LIMIT_REACHED = 12,
    FCUPTI_ERROR_NOT_INITIALIZED = 15,
    FCUPTI_ERROR_NOT_SUPPORTED = 27,
    FCUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED = 39,
    FCUPTI_ERROR_UNKNOWN = 999
};

/* CUpti_ActivityKind values */
enum {
    FCUPTI_ACTIVITY_KIND_MEMCPY = 1,
    FCUPTI_ACTIVITY_KIND_MEMSET = 2,
    FCUPTI_ACTIVITY_KIND_KERNEL = 3,        /* serialises kernels: never enabled */
    FCUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL = 10
};

#define FCUPTI_ACTIVITY_FLAG_FLUSH_FORCED 1u

/* Every record starts with its kind (CUpti_Activity). */
#define FCUPTI_REC_KIND 0

/* Kernel records (CONCURRENT_KERNEL, CUpti_ActivityKernel4..10). */
#define FCUPTI_KERNEL_START 16              /* uint64_t ns */
#define FCUPTI_KERNEL_END 24                /* uint64_t ns */
#define FCUPTI_KERNEL_DEVICE_ID 40          /* uint32_t */
#define FCUPTI_KERNEL_CONTEXT_ID 44         /* uint32_t */
#define FCUPTI_KERNEL_STREAM_ID 48          /* uint32_t */
#define FCUPTI_KERNEL_CORRELATION_ID 92     /* uint32_t */
#define FCUPTI_KERNEL_NAME 104              /* const char * */
#define FCUPTI_KERNEL_PREFIX 112            /* bytes read of a kernel record */

/* Memcpy (CUpti_ActivityMemcpy5..6) and memset (CUpti_ActivityMemset4). */
#define FCUPTI_COPY_BYTES 8                 /* uint64_t */
#define FCUPTI_COPY_START 16
#define FCUPTI_COPY_END 24
#define FCUPTI_COPY_DEVICE_ID 32
#define FCUPTI_COPY_CONTEXT_ID 36
#define FCUPTI_COPY_STREAM_ID 40
#define FCUPTI_COPY_CORRELATION_ID 44
#define FCUPTI_COPY_PREFIX 48

/* CUpti_SubscriberParams (cuptiSubscribe_v2, CUPTI 12.x late and 13). */
struct fcupti_subscriber_params {
    size_t structSize;
    const char *subscriberName;
    char *oldSubscriberName;
    size_t oldSubscriberSize;
};
#define FCUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN 64

/* Function types (CUPTIAPI is empty on Linux). The callback of a subscriber
 * (CUpti_CallbackFunc) is never enabled for any domain: activity only. */
typedef void (*fcupti_callback_fn)(void *userdata, int domain, uint32_t cbid, const void *cbdata);
typedef void (*fcupti_buffer_request_fn)(uint8_t **buffer, size_t *size, size_t *max_records);
typedef void (*fcupti_buffer_complete_fn)(void *context, uint32_t stream_id, uint8_t *buffer,
                                          size_t size, size_t valid_size);
typedef uint64_t (*fcupti_timestamp_fn)(void);

typedef fcupti_result (*fcupti_get_version_fn)(uint32_t *version);
typedef fcupti_result (*fcupti_subscribe_fn)(fcupti_subscriber_handle *subscriber,
                                             fcupti_callback_fn callback, void *userdata);
typedef fcupti_result (*fcupti_subscribe_v2_fn)(fcupti_subscriber_handle *subscriber,
                                                fcupti_callback_fn callback, void *userdata,
                                                struct fcupti_subscriber_params *params);
typedef fcupti_result (*fcupti_unsubscribe_fn)(fcupti_subscriber_handle subscriber);
typedef fcupti_result (*fcupti_activity_enable_fn)(int kind);
typedef fcupti_result (*fcupti_register_callbacks_fn)(fcupti_buffer_request_fn request,
                                                      fcupti_buffer_complete_fn complete);
typedef fcupti_result (*fcupti_register_timestamp_fn)(fcupti_timestamp_fn fn);
typedef fcupti_result (*fcupti_get_next_record_fn)(uint8_t *buffer, size_t valid_size,
                                                   void **record);
typedef fcupti_result (*fcupti_get_num_dropped_fn)(void *context, uint32_t stream_id,
                                                   size_t *dropped);
typedef fcupti_result (*fcupti_flush_all_fn)(uint32_t flag);
typedef fcupti_result (*fcupti_finalize_fn)(void);
typedef fcupti_result (*fcupti_get_result_string_fn)(fcupti_result result, const char **str);

/* CUPTI's API versions (cuptiGetVersion) supported: CUDA 12.x's 19..28
 * (v19: 12.0 ... v28: 12.9 Update 1; room left to 99 for later 12.x), and
 * from 13.0 on xxyyzz, 130000..139999. Anything else: cuda_off
 * reason=version. */
#define FCUPTI_V12_MIN 19u
#define FCUPTI_V12_MAX 99u
#define FCUPTI_V13_MIN 130000u
#define FCUPTI_V13_MAX 139999u
static inline int fcupti_version_supported(uint32_t v)
{
    return (v >= FCUPTI_V12_MIN && v <= FCUPTI_V12_MAX) || (v >= FCUPTI_V13_MIN && v <= FCUPTI_V13_MAX);
}

static inline uint64_t fcupti_u64(const uint8_t *rec, size_t off)
{
    uint64_t v;
    __builtin_memcpy(&v, rec + off, sizeof v);
    return v;
}

static inline uint32_t fcupti_u32(const uint8_t *rec, size_t off)
{
    uint32_t v;
    __builtin_memcpy(&v, rec + off, sizeof v);
    return v;
}

static inline const char *fcupti_ptr(const uint8_t *rec, size_t off)
{
    const char *p;
    __builtin_memcpy(&p, rec + off, sizeof p);
    return p;
}

#endif
