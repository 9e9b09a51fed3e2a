/*
 * app.c — an application annotated with NVTX (the real nvtx3 headers), run
 * under `flinch record --nvtx` by tests/e2e/nvtx.sh: marks, nested push/pop
 * of one name, start/end across threads, push/pop on four threads at once,
 * a domain with a registered string, Ex calls, a 400-byte name, a wide
 * string, and a second library with its own copy of NVTX (second.c).
 */
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

void second_lib_work(void);

static void sleep_ms(int ms)
{
    struct timespec ts = { 0, ms * 1000000L };
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static nvtxRangeId_t request[2];

/* Ends the requests the main thread started, the later one first. */
static void *ender(void *arg)
{
    (void)arg;
    sleep_ms(30);
    nvtxRangeEnd(request[1]);
    sleep_ms(30);
    nvtxRangeEnd(request[0]);
    return NULL;
}

static void *worker(void *arg)
{
    int k = (int)(intptr_t)arg;
    sleep_ms(5 * k);
    nvtxRangePushA("work");
    sleep_ms(20 + 10 * k);
    nvtxRangePop();
    return NULL;
}

int main(void)
{
    nvtxMarkA("app_start");
    int l0 = nvtxRangePushA("outer");
    int l1 = nvtxRangePushA("outer");
    sleep_ms(20);
    int p1 = nvtxRangePop();
    sleep_ms(20);
    int p0 = nvtxRangePop();
    printf("levels %d %d %d %d\n", l0, l1, p1, p0);

    request[0] = nvtxRangeStartA("request");
    sleep_ms(10);
    request[1] = nvtxRangeStartA("request");
    pthread_t t;
    pthread_create(&t, NULL, ender, NULL);
    pthread_join(t, NULL);

    pthread_t w[4];
    for (int k = 0; k < 4; k++)
        pthread_create(&w[k], NULL, worker, (void *)(intptr_t)k);
    for (int k = 0; k < 4; k++)
        pthread_join(w[k], NULL);

    nvtxDomainHandle_t d = nvtxDomainCreateA("srv");
    nvtxStringHandle_t decode = nvtxDomainRegisterStringA(d, "decode");
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = decode;
    nvtxDomainRangePushEx(d, &a);
    sleep_ms(15);
    nvtxDomainRangePop(d);
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "prefill";
    nvtxRangeId_t id = nvtxDomainRangeStartEx(d, &a);
    sleep_ms(5);
    nvtxDomainRangeEnd(d, id);
    a.message.ascii = "dmark";
    nvtxDomainMarkEx(d, &a);

    char longname[401];
    memset(longname, 'x', 400);
    longname[400] = '\0';
    nvtxRangePushA(longname);
    nvtxRangePop();
    nvtxMarkW(L"wide_mark_\u00e9");

    second_lib_work();
    nvtxMarkA("app_end");
    return 0;
}
