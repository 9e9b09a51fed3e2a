/*
 * attrs.c — NVTX event attributes the bridge records (issue 12): category
 * (named with nvtxNameCategoryA/W and nvtxDomainNameCategoryA, or not) and
 * a payload of every type, through the real nvtx3 headers. Prints nothing;
 * tests/e2e/nvtx_attrs.sh reads the trace.
 */
#include <nvtx3/nvToolsExt.h>
#include <math.h>
#include <string.h>

static nvtxEventAttributes_t ev(const char *name, uint32_t category)
{
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = name;
    a.category = category;
    a.colorType = NVTX_COLOR_ARGB;
    a.color = 0xFF00FF00u;              /* colours are not recorded */
    return a;
}

int main(void)
{
    nvtxNameCategoryA(1, "io wait");
    nvtxNameCategoryW(3, L"wide \u00e9");

    nvtxEventAttributes_t a = ev("attr_mark", 1);
    a.payloadType = NVTX_PAYLOAD_TYPE_INT64;
    a.payload.llValue = -9007199254740993LL;        /* not exact as a double */
    nvtxMarkEx(&a);

    a = ev("attr_push", 2);                         /* a category with no name */
    a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
    a.payload.ullValue = 18446744073709551615ULL;
    nvtxRangePushEx(&a);
    nvtxRangePop();

    a = ev("attr_start", 0);
    a.payloadType = NVTX_PAYLOAD_TYPE_DOUBLE;
    a.payload.dValue = 0.1;
    nvtxRangeEnd(nvtxRangeStartEx(&a));

    a = ev("attr_float", 3);
    a.payloadType = NVTX_PAYLOAD_TYPE_FLOAT;
    a.payload.fValue = 1.5f;
    nvtxMarkEx(&a);
    a = ev("attr_u32", 0);
    a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT32;
    a.payload.uiValue = 4000000000u;
    nvtxMarkEx(&a);
    a = ev("attr_nan", 0);                          /* not a JSON number: no payload */
    a.payloadType = NVTX_PAYLOAD_TYPE_DOUBLE;
    a.payload.dValue = NAN;
    nvtxMarkEx(&a);

    nvtxDomainHandle_t d = nvtxDomainCreateA("attrdom");
    nvtxDomainNameCategoryA(d, 1, "decode");        /* category 1 of this domain */
    a = ev("attr_dom", 1);
    a.payloadType = NVTX_PAYLOAD_TYPE_INT32;
    a.payload.iValue = -7;
    nvtxDomainRangePushEx(d, &a);
    nvtxDomainRangePop(d);
    nvtxDomainRangeEnd(d, nvtxDomainRangeStartEx(d, &a));
    return 0;
}
