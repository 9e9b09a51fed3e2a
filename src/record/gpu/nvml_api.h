/*
 * nvml_api.h — the part of NVML's C ABI that flinch uses, declared here so
 * that flinch builds on machines without the NVIDIA headers or driver.
 *
 * Owns: return codes, the handful of structs and enums flinch passes across
 * the ABI, and one function-pointer type per NVML entry point we resolve with
 * dlsym(). The same declarations are compiled into the simulated NVML
 * (sim/), so a layout mistake here would show up as a test failure there,
 * not only on a real host. Values and layouts follow NVIDIA's nvml.h; only
 * what is used is declared (nvtop does the same).
 */
#ifndef FLINCH_NVML_API_H
#define FLINCH_NVML_API_H

typedef int nvmlReturn_t;
enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_UNINITIALIZED = 1,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_NO_PERMISSION = 4,
    NVML_ERROR_NOT_FOUND = 6,
    NVML_ERROR_INSUFFICIENT_SIZE = 7,
    NVML_ERROR_DRIVER_NOT_LOADED = 9,
    NVML_ERROR_TIMEOUT = 10,
    NVML_ERROR_LIBRARY_NOT_FOUND = 12,
    NVML_ERROR_FUNCTION_NOT_FOUND = 13,
    NVML_ERROR_GPU_IS_LOST = 15,
    NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25, /* a versioned struct's version is wrong */
    NVML_ERROR_DEPRECATED = 26,   /* e.g. nvmlDeviceGetTemperature on CUDA 13 drivers */
    NVML_ERROR_UNKNOWN = 999
};

typedef struct nvmlDevice_st *nvmlDevice_t;

typedef struct nvmlUtilization_st {
    unsigned int gpu;    /* percent of time a kernel was running, last sample period */
    unsigned int memory; /* percent of time device memory was read or written */
} nvmlUtilization_t;

typedef struct nvmlMemory_st {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
} nvmlMemory_t;

typedef int nvmlClockType_t;
enum { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };

typedef int nvmlTemperatureSensors_t;
enum { NVML_TEMPERATURE_GPU = 0 };

/* nvmlTemperature_v1_t for nvmlDeviceGetTemperatureV; version is
 * NVML_STRUCT_VERSION(Temperature, 1): sizeof the struct | 1 << 24. */
typedef struct nvmlTemperature_v1_st {
    unsigned int version;
    nvmlTemperatureSensors_t sensorType;
    int temperature;
} nvmlTemperature_v1_t;
#define NVML_STRUCT_VERSION(data, ver) (unsigned int)(sizeof(nvml##data##_v##ver##_t) | ((ver) << 24U))
#define nvmlTemperature_v1 NVML_STRUCT_VERSION(Temperature, 1)

typedef int nvmlPstates_t;   /* 0 (NVML_PSTATE_0, fastest) .. 15; 32: unknown */
enum { NVML_PSTATE_15 = 15, NVML_PSTATE_UNKNOWN = 32 };

/* Identity (nvml.h). Buffer sizes are the _V2 ones, large enough for
 * every driver. */
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
#define NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE 80
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16

/* nvmlPciInfo_t as nvmlDeviceGetPciInfo_v3 fills it. */
typedef struct nvmlPciInfo_st {
    char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE]; /* "00000000:18:00.0" */
} nvmlPciInfo_t;

typedef int nvmlEnableState_t;  /* NVML_FEATURE_DISABLED 0, NVML_FEATURE_ENABLED 1 */
typedef int nvmlComputeMode_t;  /* 0 default, 1 exclusive thread, 2 prohibited, 3 exclusive process */

typedef int nvmlValueType_t;
enum {
    NVML_VALUE_TYPE_DOUBLE = 0,
    NVML_VALUE_TYPE_UNSIGNED_INT = 1,
    NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
    NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
    NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
    NVML_VALUE_TYPE_SIGNED_INT = 5
};

typedef union nvmlValue_st {
    double dVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    long long sllVal;
    int siVal;
} nvmlValue_t;

typedef struct nvmlFieldValue_st {
    unsigned int fieldId;
    unsigned int scopeId;
    long long timestamp;   /* CPU time of the value, us since 1970 */
    long long latencyUsec;
    nvmlValueType_t valueType;
    nvmlReturn_t nvmlReturn;
    nvmlValue_t value;
} nvmlFieldValue_t;

/* One process with a compute context, as nvmlDeviceGetComputeRunningProcesses
 * fills it. The layout depends on the entry point (nvml.h): the original
 * symbol fills v1 (16 bytes); _v2 fills v2 (24 bytes); _v3 fills the same
 * 24 bytes on drivers that also export nvmlDeviceGetRunningProcessDetailList
 * (R535 and later), but the R525-R530 headers gave nvmlProcessInfo_t (the v3
 * layout) an extra usedGpuCcProtectedMemory (32 bytes), which later drivers
 * moved to nvmlProcessDetail_v1_t. gpu_procs.c therefore calls _v3 only
 * where that marker symbol exists, else _v2, else the original. Every
 * layout starts with the pid. usedGpuMemory is NVML_VALUE_NOT_AVAILABLE
 * (all ones) when the driver cannot tell; gpuInstanceId and
 * computeInstanceId are 0xFFFFFFFF without MIG. */
typedef struct nvmlProcessInfo_v1_st {
    unsigned int pid;
    unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;

typedef struct nvmlProcessInfo_v2_st {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nvmlProcessInfo_v2_t;

/* Field ids for nvmlDeviceGetFieldValues (nvml.h). */
#define NVML_FI_DEV_PERF_POLICY_POWER 74 /* ns clocks were held down by the power cap
                                            (= NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_POWER_CAP) */
#define NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION 83 /* mJ since the driver was loaded */
#define NVML_FI_DEV_POWER_AVERAGE 185 /* mW, 1 s average (Ampere and newer) */
#define NVML_FI_DEV_POWER_INSTANT 186 /* mW, current power */
#define NVML_FI_DEV_PCIE_COUNT_TX_BYTES 197 /* bytes the GPU sent over PCIe, cumulative */
#define NVML_FI_DEV_PCIE_COUNT_RX_BYTES 198 /* bytes it received */
/* ns of SW thermal, HW thermal and HW power-brake slowdown, as the r575/r580
 * nvml.h numbers them (269-271 there are power-smoothing fields; see README,
 * "Throttle counters and NVML versions"). */
#define NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN 251
#define NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN 252
#define NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN 253

/* Clock-event ("throttle") reason bits, nvmlClocksEventReasons. */
#define NVML_CLOCKS_EVENT_REASON_GPU_IDLE          0x0000000000000001ULL
#define NVML_CLOCKS_EVENT_REASON_APPLICATIONS      0x0000000000000002ULL
#define NVML_CLOCKS_EVENT_REASON_SW_POWER_CAP      0x0000000000000004ULL
#define NVML_CLOCKS_EVENT_REASON_HW_SLOWDOWN       0x0000000000000008ULL
#define NVML_CLOCKS_EVENT_REASON_SYNC_BOOST        0x0000000000000010ULL
#define NVML_CLOCKS_EVENT_REASON_SW_THERMAL        0x0000000000000020ULL
#define NVML_CLOCKS_EVENT_REASON_HW_THERMAL        0x0000000000000040ULL
#define NVML_CLOCKS_EVENT_REASON_HW_POWER_BRAKE    0x0000000000000080ULL
#define NVML_CLOCKS_EVENT_REASON_DISPLAY_CLOCKS    0x0000000000000100ULL

/* GPM (GPU performance monitoring, Hopper and newer; nvml.h's "NVML GPM"
 * group). A sample is an opaque driver buffer (nvmlGpmSampleAlloc);
 * nvmlGpmMetricsGet computes metrics between two samples, which NVIDIA's
 * reference says must be taken more than 100 ms apart ("due to the internal
 * sample refresh rate"). The metrics array holds NVML_GPM_METRIC_MAX entries
 * as CUDA 13's nvml.h sizes it (333; older headers had 98, and the struct's
 * version stayed 1): the driver reads and writes only the first numMetrics,
 * and the larger array is safe with either. nvmlGpmSample_t is nvml.h's
 * one-field struct around the opaque pointer, passed by value. */
typedef struct {
    struct nvmlGpmSample_st *handle;   /* nvml.h wraps the opaque pointer in a struct */
} nvmlGpmSample_t;

enum {
    NVML_GPM_METRIC_SM_UTIL = 2,          /* percent of SMs busy (DCGM's SM active), 0.0-100.0 */
    NVML_GPM_METRIC_SM_OCCUPANCY = 3,     /* active warps vs the theoretical maximum, 0.0-100.0 */
    NVML_GPM_METRIC_ANY_TENSOR_UTIL = 5,  /* percent of SM time any tensor pipe was busy */
    NVML_GPM_METRIC_DRAM_BW_UTIL = 10     /* DRAM bandwidth used vs the peak, 0.0-100.0 */
};
#define NVML_GPM_METRIC_MAX 333

typedef struct {
    unsigned int metricId;      /* IN */
    nvmlReturn_t nvmlReturn;    /* OUT: this metric's status; value is valid only on SUCCESS */
    double value;               /* OUT */
    struct {
        char *shortName;
        char *longName;
        char *unit;
    } metricInfo;               /* OUT: may be NULL */
} nvmlGpmMetric_t;

typedef struct {
    unsigned int version;       /* IN: NVML_GPM_METRICS_GET_VERSION */
    unsigned int numMetrics;    /* IN: entries of metrics[] used */
    nvmlGpmSample_t sample1;    /* IN: the earlier sample */
    nvmlGpmSample_t sample2;    /* IN: the later sample */
    nvmlGpmMetric_t metrics[NVML_GPM_METRIC_MAX];
} nvmlGpmMetricsGet_t;
#define NVML_GPM_METRICS_GET_VERSION 1

typedef struct {
    unsigned int version;           /* IN: NVML_GPM_SUPPORT_VERSION */
    unsigned int isSupportedDevice; /* OUT: 0 on GPUs before Hopper */
} nvmlGpmSupport_t;
#define NVML_GPM_SUPPORT_VERSION 1
/* One process's use of a GPU over one of the driver's sampling periods
 * (nvmlDeviceGetProcessUtilization; nvml.h's layout: pid, then the 8-byte
 * timestamp at offset 8). */
typedef struct nvmlProcessUtilizationSample_st {
    unsigned int pid;
    unsigned long long timeStamp;   /* CPU time of the sample, us since 1970 */
    unsigned int smUtil;            /* % of SM (3D/compute) time */
    unsigned int memUtil;           /* % of frame-buffer memory time */
    unsigned int encUtil;
    unsigned int decUtil;
} nvmlProcessUtilizationSample_t;

/* Entry points, as function-pointer types for dlsym(). */
typedef nvmlReturn_t (*nvml_init_fn)(void);                 /* nvmlInit_v2, nvmlInit */
typedef nvmlReturn_t (*nvml_shutdown_fn)(void);             /* nvmlShutdown */
typedef const char *(*nvml_error_string_fn)(nvmlReturn_t);  /* nvmlErrorString */
typedef nvmlReturn_t (*nvml_device_count_fn)(unsigned int *); /* nvmlDeviceGetCount_v2, nvmlDeviceGetCount */
typedef nvmlReturn_t (*nvml_device_by_index_fn)(unsigned int, nvmlDevice_t *); /* nvmlDeviceGetHandleByIndex_v2, _ */
typedef nvmlReturn_t (*nvml_device_name_fn)(nvmlDevice_t, char *, unsigned int); /* nvmlDeviceGetName */
typedef nvmlReturn_t (*nvml_device_uint_fn)(nvmlDevice_t, unsigned int *);
    /* nvmlDeviceGetPowerUsage (mW), nvmlDeviceGetEnforcedPowerLimit (mW) */
typedef nvmlReturn_t (*nvml_device_ull_fn)(nvmlDevice_t, unsigned long long *);
    /* nvmlDeviceGetTotalEnergyConsumption (mJ), nvmlDeviceGetCurrentClocksEventReasons,
       nvmlDeviceGetCurrentClocksThrottleReasons */
typedef nvmlReturn_t (*nvml_device_utilization_fn)(nvmlDevice_t, nvmlUtilization_t *);
typedef nvmlReturn_t (*nvml_device_memory_fn)(nvmlDevice_t, nvmlMemory_t *);
typedef nvmlReturn_t (*nvml_device_clock_fn)(nvmlDevice_t, nvmlClockType_t, unsigned int *);
    /* nvmlDeviceGetClockInfo (the current clock, MHz), nvmlDeviceGetMaxClockInfo (the most it
       may run at, MHz; read once per GPU at start, gpu_identity.c) */
typedef nvmlReturn_t (*nvml_device_temperature_fn)(nvmlDevice_t, nvmlTemperatureSensors_t, unsigned int *);
typedef nvmlReturn_t (*nvml_device_field_values_fn)(nvmlDevice_t, int, nvmlFieldValue_t *);
typedef nvmlReturn_t (*nvml_device_temperature_v_fn)(nvmlDevice_t, nvmlTemperature_v1_t *);
    /* nvmlDeviceGetTemperatureV */
typedef nvmlReturn_t (*nvml_device_pstate_fn)(nvmlDevice_t, nvmlPstates_t *);
    /* nvmlDeviceGetPerformanceState */
typedef nvmlReturn_t (*nvml_system_string_fn)(char *, unsigned int);
    /* nvmlSystemGetDriverVersion, nvmlSystemGetNVMLVersion */
typedef nvmlReturn_t (*nvml_device_string_fn)(nvmlDevice_t, char *, unsigned int);
    /* nvmlDeviceGetUUID (and nvmlDeviceGetName above) */
typedef nvmlReturn_t (*nvml_device_pci_fn)(nvmlDevice_t, nvmlPciInfo_t *); /* nvmlDeviceGetPciInfo_v3 */
typedef nvmlReturn_t (*nvml_device_enable_fn)(nvmlDevice_t, nvmlEnableState_t *);
    /* nvmlDeviceGetPersistenceMode */
typedef nvmlReturn_t (*nvml_device_compute_mode_fn)(nvmlDevice_t, nvmlComputeMode_t *);
typedef nvmlReturn_t (*nvml_device_mig_fn)(nvmlDevice_t, unsigned int *, unsigned int *);
    /* nvmlDeviceGetMigMode: current, pending */
typedef nvmlReturn_t (*nvml_device_procs_v2_fn)(nvmlDevice_t, unsigned int *, nvmlProcessInfo_v2_t *);
    /* nvmlDeviceGetComputeRunningProcesses_v3 (R535+), _v2 */
typedef nvmlReturn_t (*nvml_device_procs_v1_fn)(nvmlDevice_t, unsigned int *, nvmlProcessInfo_v1_t *);
    /* nvmlDeviceGetComputeRunningProcesses (the original symbol) */
typedef nvmlReturn_t (*nvml_device_process_util_fn)(nvmlDevice_t, nvmlProcessUtilizationSample_t *,
                                                    unsigned int *, unsigned long long);
    /* nvmlDeviceGetProcessUtilization(device, samples or NULL, in: capacity / out: count,
       lastSeenTimeStamp): samples newer than lastSeenTimeStamp (us since 1970) */

typedef nvmlReturn_t (*nvml_gpm_support_fn)(nvmlDevice_t, nvmlGpmSupport_t *);
    /* nvmlGpmQueryDeviceSupport */
typedef nvmlReturn_t (*nvml_gpm_alloc_fn)(nvmlGpmSample_t *);      /* nvmlGpmSampleAlloc */
typedef nvmlReturn_t (*nvml_gpm_free_fn)(nvmlGpmSample_t);         /* nvmlGpmSampleFree */
typedef nvmlReturn_t (*nvml_gpm_sample_fn)(nvmlDevice_t, nvmlGpmSample_t); /* nvmlGpmSampleGet */
typedef nvmlReturn_t (*nvml_gpm_metrics_fn)(nvmlGpmMetricsGet_t *); /* nvmlGpmMetricsGet */

#endif
