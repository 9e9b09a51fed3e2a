/* test_cupti_abi.c — cuda/cupti_abi.h against CUPTI's own headers (when
 * installed: the build passes -DHAVE_CUPTI_HEADERS with their folder):
 * every record offset the injection library reads, in every kernel,
 * memcpy and memset layout CUPTI 12.x-13.x delivers; the enum values; the
 * function types; the subscriber parameters. All checked at compile time
 * (a mismatch does not build); the runtime part checks the version range.
 * Without the headers it says so in a "# " line. */
#include <stddef.h>

#ifdef HAVE_CUPTI_HEADERS
#include <cupti.h>
#define FCUPTI_RESULT_TYPE CUptiResult
#endif
#include "check.h"
#include "cupti_abi.h"

#ifdef HAVE_CUPTI_HEADERS
#if __has_include(<cupti_activity_deprecated.h>)
#include <cupti_activity_deprecated.h>
#define HAVE_DEPRECATED_LAYOUTS 1
#endif
#include <cupti_version.h>

#define SAME(a, b) _Static_assert((long long)(a) == (long long)(b), #a " == " #b)
#define SAME_TYPE(a, b) _Static_assert(__builtin_types_compatible_p(a, b), #a " is " #b)

#define KERNEL_PREFIX(T)                                                   \
    SAME(offsetof(T, kind), FCUPTI_REC_KIND);                              \
    SAME(offsetof(T, start), FCUPTI_KERNEL_START);                         \
    SAME(offsetof(T, end), FCUPTI_KERNEL_END);                             \
    SAME(offsetof(T, deviceId), FCUPTI_KERNEL_DEVICE_ID);                  \
    SAME(offsetof(T, contextId), FCUPTI_KERNEL_CONTEXT_ID);                \
    SAME(offsetof(T, streamId), FCUPTI_KERNEL_STREAM_ID);                  \
    SAME(offsetof(T, correlationId), FCUPTI_KERNEL_CORRELATION_ID);        \
    SAME(offsetof(T, name), FCUPTI_KERNEL_NAME);                           \
    SAME(sizeof(((T *)0)->start), 8);                                      \
    SAME(sizeof(((T *)0)->deviceId), 4);                                   \
    SAME(sizeof(((T *)0)->name), sizeof(const char *));                    \
    _Static_assert(sizeof(T) >= FCUPTI_KERNEL_PREFIX, #T " holds the prefix")

#define COPY_PREFIX(T)                                                     \
    SAME(offsetof(T, kind), FCUPTI_REC_KIND);                              \
    SAME(offsetof(T, bytes), FCUPTI_COPY_BYTES);                           \
    SAME(offsetof(T, start), FCUPTI_COPY_START);                           \
    SAME(offsetof(T, end), FCUPTI_COPY_END);                               \
    SAME(offsetof(T, deviceId), FCUPTI_COPY_DEVICE_ID);                    \
    SAME(offsetof(T, contextId), FCUPTI_COPY_CONTEXT_ID);                  \
    SAME(offsetof(T, streamId), FCUPTI_COPY_STREAM_ID);                    \
    SAME(offsetof(T, correlationId), FCUPTI_COPY_CORRELATION_ID);          \
    _Static_assert(sizeof(T) >= FCUPTI_COPY_PREFIX, #T " holds the prefix")

KERNEL_PREFIX(CUpti_ActivityKernel10);
COPY_PREFIX(CUpti_ActivityMemcpy6);
COPY_PREFIX(CUpti_ActivityMemset4);
#ifdef HAVE_DEPRECATED_LAYOUTS
KERNEL_PREFIX(CUpti_ActivityKernel4);
KERNEL_PREFIX(CUpti_ActivityKernel5);
KERNEL_PREFIX(CUpti_ActivityKernel6);
KERNEL_PREFIX(CUpti_ActivityKernel7);
KERNEL_PREFIX(CUpti_ActivityKernel8);
KERNEL_PREFIX(CUpti_ActivityKernel9);
COPY_PREFIX(CUpti_ActivityMemcpy5);
#endif

SAME(CUPTI_SUCCESS, FCUPTI_SUCCESS);
SAME(CUPTI_ERROR_INVALID_PARAMETER, FCUPTI_ERROR_INVALID_PARAMETER);
SAME(CUPTI_ERROR_MAX_LIMIT_REACHED, FCUPTI_ERROR_MAX_LIMIT_REACHED);
SAME(CUPTI_ERROR_NOT_INITIALIZED, FCUPTI_ERROR_NOT_INITIALIZED);
SAME(CUPTI_ERROR_NOT_SUPPORTED, FCUPTI_ERROR_NOT_SUPPORTED);
SAME(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, FCUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
SAME(CUPTI_ERROR_UNKNOWN, FCUPTI_ERROR_UNKNOWN);
SAME(CUPTI_ACTIVITY_KIND_MEMCPY, FCUPTI_ACTIVITY_KIND_MEMCPY);
SAME(CUPTI_ACTIVITY_KIND_MEMSET, FCUPTI_ACTIVITY_KIND_MEMSET);
SAME(CUPTI_ACTIVITY_KIND_KERNEL, FCUPTI_ACTIVITY_KIND_KERNEL);
SAME(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, FCUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
SAME(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED, FCUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
SAME(sizeof(CUptiResult), sizeof(fcupti_result));
SAME(sizeof(CUpti_ActivityKind), sizeof(int));
SAME(CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN, FCUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN);
SAME(sizeof(CUpti_SubscriberParams), sizeof(struct fcupti_subscriber_params));
SAME(offsetof(CUpti_SubscriberParams, structSize), offsetof(struct fcupti_subscriber_params, structSize));
SAME(offsetof(CUpti_SubscriberParams, subscriberName),
     offsetof(struct fcupti_subscriber_params, subscriberName));
SAME(offsetof(CUpti_SubscriberParams, oldSubscriberName),
     offsetof(struct fcupti_subscriber_params, oldSubscriberName));
SAME(offsetof(CUpti_SubscriberParams, oldSubscriberSize),
     offsetof(struct fcupti_subscriber_params, oldSubscriberSize));

/* Function types: the real declarations' types against ours, with the
 * opaque handles and the enum written as the int or pointer they are. */
SAME_TYPE(__typeof__(&cuptiGetVersion), fcupti_get_version_fn);
SAME_TYPE(__typeof__(&cuptiActivityFlushAll), fcupti_flush_all_fn);
SAME_TYPE(__typeof__(&cuptiFinalize), fcupti_finalize_fn);
SAME_TYPE(__typeof__(&cuptiActivityGetNextRecord), __typeof__(CUptiResult (*)(uint8_t *, size_t,
                                                                                CUpti_Activity **)));
SAME_TYPE(CUpti_BuffersCallbackRequestFunc, fcupti_buffer_request_fn);
SAME_TYPE(CUpti_TimestampCallbackFunc, fcupti_timestamp_fn);
SAME_TYPE(__typeof__(&cuptiActivityRegisterTimestampCallback), fcupti_register_timestamp_fn);
SAME_TYPE(__typeof__(&cuptiActivityEnable), __typeof__(CUptiResult (*)(CUpti_ActivityKind)));
SAME_TYPE(__typeof__(&cuptiActivityGetNumDroppedRecords),
          __typeof__(CUptiResult (*)(CUcontext, uint32_t, size_t *)));
SAME_TYPE(CUpti_BuffersCallbackCompleteFunc,
          __typeof__(void (*)(CUcontext, uint32_t, uint8_t *, size_t, size_t)));
SAME_TYPE(__typeof__(&cuptiSubscribe_v2),
          __typeof__(CUptiResult (*)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *,
                                     CUpti_SubscriberParams *)));
SAME_TYPE(CUpti_CallbackFunc, __typeof__(void (*)(void *, CUpti_CallbackDomain, CUpti_CallbackId,
                                                  const void *)));
SAME(sizeof(CUpti_CallbackDomain), sizeof(int));
SAME(sizeof(CUpti_CallbackId), sizeof(uint32_t));
_Static_assert(CUPTI_API_VERSION >= FCUPTI_V13_MIN && CUPTI_API_VERSION <= FCUPTI_V13_MAX,
               "the installed CUPTI's version is supported");
#endif

static void test_headers(void)
{
#ifdef HAVE_CUPTI_HEADERS
#ifdef HAVE_DEPRECATED_LAYOUTS
    printf("# checked against CUPTI %d headers: Kernel4-10, Memcpy5-6, Memset4\n", CUPTI_API_VERSION);
#else
    printf("# checked against CUPTI %d headers: Kernel10, Memcpy6, Memset4\n", CUPTI_API_VERSION);
#endif
#else
    printf("# no CUPTI headers (cupti_activity.h) found: layouts not checked against them\n");
#endif
    CHECK(1);
}

static void test_versions(void)
{
    CHECK(!fcupti_version_supported(18));       /* CUDA 11.8 */
    CHECK(fcupti_version_supported(19));        /* 12.0 */
    CHECK(fcupti_version_supported(28));        /* 12.9 Update 1 */
    CHECK(fcupti_version_supported(130000));
    CHECK(fcupti_version_supported(130001));
    CHECK(!fcupti_version_supported(140000));
    CHECK(!fcupti_version_supported(0));
}

static void test_reads(void)
{
    unsigned char rec[216] = { 0 };
    uint64_t start = 0x1122334455667788ULL;
    uint32_t dev = 3;
    const char *name = "k";
    memcpy(rec + FCUPTI_KERNEL_START, &start, 8);
    memcpy(rec + FCUPTI_KERNEL_DEVICE_ID, &dev, 4);
    memcpy(rec + FCUPTI_KERNEL_NAME, &name, sizeof name);
    CHECK(fcupti_u64(rec, FCUPTI_KERNEL_START) == start);
    CHECK(fcupti_u32(rec, FCUPTI_KERNEL_DEVICE_ID) == 3);
    CHECK(fcupti_ptr(rec, FCUPTI_KERNEL_NAME) == name);
}

int main(void)
{
    run_test("headers", test_headers);
    run_test("versions", test_versions);
    run_test("reads", test_reads);
    return check_exit_status();
}
