/*
 * gpu_identity.h — what the trace says it recorded: the EVENT rows written
 * at the start of a recording.
 *
 * Owns: reading each GPU's identity once (name, UUID, PCI bus id, power
 * limit, persistence mode, compute mode, MIG mode, maximum SM clock) and the host's (host
 * name, driver and NVML versions), and the labels of the EVENT rows that
 * carry them. The labels are `KIND key=value ...` with KIND one of
 * flinch_host, flinch_gpu, flinch_fields; a value holding a space is
 * double-quoted (and holds no quote); the original analyzer ignores EVENT
 * rows, flinch's readers parse them with trace_event.h.
 */
#ifndef FLINCH_GPU_IDENTITY_H
#define FLINCH_GPU_IDENTITY_H

#include <stddef.h>

#include "gpu_sampler.h"
#include "nvml_loader.h"

struct gpu_identity {
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
    char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    char pci[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
    long long power_limit_mw;  /* -1: unknown */
    int persistence;           /* 1 on, 0 off, -1 unknown */
    int compute_mode;          /* nvmlComputeMode_t, -1 unknown */
    int mig;                   /* current MIG mode: 1 on, 0 off, -1 unknown */
    long long max_sm_clock_mhz; /* nvmlDeviceGetMaxClockInfo(NVML_CLOCK_SM); -1 unknown */
};

/* Reads what the driver tells (each piece optional: empty or -1 when the
 * entry point is missing or fails). */
void gpu_identity_read(const struct nvml_lib *lib, nvmlDevice_t h, struct gpu_identity *id);

/* "flinch_gpu index=N name=\"...\" uuid=... pci=... power_limit_W=...
 * persistence=on|off compute_mode=... mig=on|off [max_sm_clock_MHz=N]": the
 * last only when the driver told it (analyze names compute below half of
 * it, slow_clock.h). */
void gpu_identity_label(const struct gpu_identity *id, unsigned index, char *buf, size_t len);

/* "flinch_host name=HOST flinch=VERSION driver=... nvml=... interval_ms=N
 * gpu=SPEC missing=SYM,SYM" */
void host_identity_label(const struct nvml_lib *lib, int interval_ms, const char *gpu_spec,
                         char *buf, size_t len);

/* "flinch_fields gpu=N asked=83,186,... unsupported=251,..." after the first
 * tick: which field ids the driver answered. */
void gpu_fields_label(const struct gpu_dev *dev, char *buf, size_t len);

#endif
