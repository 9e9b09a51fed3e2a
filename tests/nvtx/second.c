#define _POSIX_C_SOURCE 200809L
/* second.c — a shared library with its own copy of the NVTX headers (as
 * libtorch has): NVTX initialises this copy separately, calling the
 * bridge's InitializeInjectionNvtx2 a second time. */
#include <nvtx3/nvToolsExt.h>
#include <time.h>

void second_lib_work(void)
{
    struct timespec ts = { 0, 12 * 1000000L };
    nvtxRangePushA("lib_range");
    nanosleep(&ts, NULL);
    nvtxRangePop();
}
