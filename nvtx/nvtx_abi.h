/*
 * nvtx_abi.h — the part of NVTX's tool-injection ABI the flinch bridge uses,
 * declared here so the bridge builds without the CUDA toolkit (as
 * src/record/gpu/nvml_api.h does for NVML). Values and layouts are those of
 * NVTX v3 (nvtx3/nvToolsExt.h, nvtx3/nvtxDetail/nvtxTypes.h); the tests
 * build applications against the real headers to hold us to them.
 *
 * How injection works: the first NVTX call in an application (per copy of
 * the NVTX headers: every library that embeds them has its own) reads
 * NVTX_INJECTION64_PATH, dlopens that library and calls its
 * InitializeInjectionNvtx2(getExportTable). The tool asks getExportTable
 * for the callbacks table, and from it, per module (core, core2 = domains),
 * an array of pointers to that copy's function-pointer slots, indexed by
 * callback id; it stores its own functions there. Slots left empty stay
 * no-ops. Returning 0 from the init function means failure (all no-ops).
 */
#ifndef FLINCH_NVTX_ABI_H
#define FLINCH_NVTX_ABI_H

#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

typedef uint64_t fnvtx_range_id;                /* nvtxRangeId_t */
typedef struct fnvtx_domain *fnvtx_domain_handle;   /* nvtxDomainHandle_t (ours) */
typedef struct fnvtx_string *fnvtx_string_handle;   /* nvtxStringHandle_t (ours) */

enum {                                          /* nvtxMessageType_t */
    FNVTX_MESSAGE_UNKNOWN = 0,
    FNVTX_MESSAGE_ASCII = 1,
    FNVTX_MESSAGE_UNICODE = 2,
    FNVTX_MESSAGE_REGISTERED = 3
};

/* nvtxEventAttributes_t (v2, NVTX_EVENT_ATTRIB_STRUCT_SIZE = 48 on LP64). */
struct fnvtx_event_attributes {
    uint16_t version;
    uint16_t size;
    uint32_t category;
    int32_t color_type;
    uint32_t color;
    int32_t payload_type;
    int32_t reserved0;
    union { uint64_t u64; int64_t i64; double d; uint32_t u32; int32_t i32; float f; } payload;
    int32_t message_type;
    union {
        const char *ascii;
        const wchar_t *unicode;
        fnvtx_string_handle registered;
    } message;
};

enum {                                          /* nvtxPayloadType_t */
    FNVTX_PAYLOAD_UNKNOWN = 0,
    FNVTX_PAYLOAD_U64 = 1,
    FNVTX_PAYLOAD_I64 = 2,
    FNVTX_PAYLOAD_DOUBLE = 3,
    FNVTX_PAYLOAD_U32 = 4,
    FNVTX_PAYLOAD_I32 = 5,
    FNVTX_PAYLOAD_FLOAT = 6
};

enum { FNVTX_ETID_CALLBACKS = 1 };              /* NvtxExportTableID */

enum {                                          /* NvtxCallbackModule */
    FNVTX_CB_MODULE_CORE = 1,
    FNVTX_CB_MODULE_CORE2 = 5
};

enum {                                          /* NvtxCallbackIdCore */
    FNVTX_CBID_CORE_MarkEx = 1,
    FNVTX_CBID_CORE_MarkA = 2,
    FNVTX_CBID_CORE_MarkW = 3,
    FNVTX_CBID_CORE_RangeStartEx = 4,
    FNVTX_CBID_CORE_RangeStartA = 5,
    FNVTX_CBID_CORE_RangeStartW = 6,
    FNVTX_CBID_CORE_RangeEnd = 7,
    FNVTX_CBID_CORE_RangePushEx = 8,
    FNVTX_CBID_CORE_RangePushA = 9,
    FNVTX_CBID_CORE_RangePushW = 10,
    FNVTX_CBID_CORE_RangePop = 11,
    FNVTX_CBID_CORE_NameCategoryA = 12,
    FNVTX_CBID_CORE_NameCategoryW = 13
};

enum {                                          /* NvtxCallbackIdCore2 */
    FNVTX_CBID_CORE2_DomainMarkEx = 1,
    FNVTX_CBID_CORE2_DomainRangeStartEx = 2,
    FNVTX_CBID_CORE2_DomainRangeEnd = 3,
    FNVTX_CBID_CORE2_DomainRangePushEx = 4,
    FNVTX_CBID_CORE2_DomainRangePop = 5,
    FNVTX_CBID_CORE2_DomainNameCategoryA = 8,
    FNVTX_CBID_CORE2_DomainNameCategoryW = 9,
    FNVTX_CBID_CORE2_DomainRegisterStringA = 10,
    FNVTX_CBID_CORE2_DomainRegisterStringW = 11,
    FNVTX_CBID_CORE2_DomainCreateA = 12,
    FNVTX_CBID_CORE2_DomainCreateW = 13,
    FNVTX_CBID_CORE2_DomainDestroy = 14
};

typedef void (*fnvtx_function)(void);           /* NvtxFunctionPointer */
typedef fnvtx_function **fnvtx_function_table;  /* NvtxFunctionTable */

/* NvtxExportTableCallbacks */
struct fnvtx_export_callbacks {
    size_t struct_size;
    int (*get_module_function_table)(int module, fnvtx_function_table *out_table,
                                     unsigned int *out_size);
};

typedef const void *(*fnvtx_get_export_table)(uint32_t export_table_id);

/* The entry point NVTX looks up in the injected library. */
int InitializeInjectionNvtx2(fnvtx_get_export_table get_export_table);

#endif
