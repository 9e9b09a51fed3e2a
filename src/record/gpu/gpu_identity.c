/* gpu_identity.c — the identity EVENT rows; see gpu_identity.h. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gpu_identity.h"
#include "version.h"

/* Keeps printable ASCII other than '"', ',' and '\\'; the rest become '_',
 * so a value never breaks the label's key="value" syntax. */
static void clean(char *s)
{
    for (; *s; s++)
        if (*s < 0x20 || *s > 0x7e || *s == '"' || *s == '\\' || *s == ',')
            *s = '_';
}

void gpu_identity_read(const struct nvml_lib *lib, nvmlDevice_t h, struct gpu_identity *id)
{
    memset(id, 0, sizeof *id);
    id->power_limit_mw = id->persistence = id->compute_mode = id->mig = -1;
    id->max_sm_clock_mhz = -1;
    if (lib->device_name && lib->device_name(h, id->name, sizeof id->name) != NVML_SUCCESS)
        id->name[0] = 0;
    if (lib->uuid && lib->uuid(h, id->uuid, sizeof id->uuid) != NVML_SUCCESS)
        id->uuid[0] = 0;
    nvmlPciInfo_t pci;
    memset(&pci, 0, sizeof pci);
    if (lib->pci_info && lib->pci_info(h, &pci) == NVML_SUCCESS) {
        memcpy(id->pci, pci.busId, sizeof id->pci);
        id->pci[sizeof id->pci - 1] = 0;
    }
    unsigned mw;
    if (lib->power_limit && lib->power_limit(h, &mw) == NVML_SUCCESS)
        id->power_limit_mw = mw;
    nvmlEnableState_t on;
    if (lib->persistence_mode && lib->persistence_mode(h, &on) == NVML_SUCCESS)
        id->persistence = on != 0;
    nvmlComputeMode_t cm;
    if (lib->compute_mode && lib->compute_mode(h, &cm) == NVML_SUCCESS && cm >= 0 && cm <= 3)
        id->compute_mode = cm;
    unsigned cur, pending;
    if (lib->mig_mode && lib->mig_mode(h, &cur, &pending) == NVML_SUCCESS)
        id->mig = cur != 0;
    /* once per GPU: the ceiling the SM clock is judged against (a GPU
     * that cannot tell, or an old driver without the symbol: left out) */
    unsigned mhz;
    if (lib->max_clock_info && lib->max_clock_info(h, NVML_CLOCK_SM, &mhz) == NVML_SUCCESS && mhz > 0)
        id->max_sm_clock_mhz = mhz;
    id->name[sizeof id->name - 1] = id->uuid[sizeof id->uuid - 1] = 0;
    clean(id->name);
    clean(id->uuid);
    clean(id->pci);
}

static const char *on_off(int v)
{
    return v < 0 ? "unknown" : v ? "on" : "off";
}

void gpu_identity_label(const struct gpu_identity *id, unsigned index, char *buf, size_t len)
{
    static const char *const modes[] = { "default", "exclusive_thread", "prohibited",
                                         "exclusive_process" };
    char limit[32] = "unknown", clock[40] = "";
    if (id->power_limit_mw >= 0)
        snprintf(limit, sizeof limit, "%lld.%03lld", id->power_limit_mw / 1000,
                 id->power_limit_mw % 1000);
    if (id->max_sm_clock_mhz > 0)
        snprintf(clock, sizeof clock, " max_sm_clock_MHz=%lld", id->max_sm_clock_mhz);
    snprintf(buf, len, "flinch_gpu index=%u name=\"%.63s\" uuid=%s pci=%s power_limit_W=%s "
             "persistence=%s compute_mode=%s mig=%s%s",
             index, id->name, id->uuid[0] ? id->uuid : "unknown", id->pci[0] ? id->pci : "unknown",
             limit, on_off(id->persistence),
             id->compute_mode < 0 ? "unknown" : modes[id->compute_mode], on_off(id->mig), clock);
}

void host_identity_label(const struct nvml_lib *lib, int interval_ms, const char *gpu_spec,
                         char *buf, size_t len)
{
    char host[65] = "", driver[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = "",
         nvml[NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE] = "", spec[48], missing[200];
    if (gethostname(host, sizeof host - 1) != 0)
        host[0] = 0;
    if (lib->driver_version && lib->driver_version(driver, sizeof driver) != NVML_SUCCESS)
        driver[0] = 0;
    if (lib->nvml_version && lib->nvml_version(nvml, sizeof nvml) != NVML_SUCCESS)
        nvml[0] = 0;
    driver[sizeof driver - 1] = nvml[sizeof nvml - 1] = 0;
    snprintf(spec, sizeof spec, "%s", gpu_spec);
    nvml_missing_symbols(lib, missing, sizeof missing);
    clean(host);
    clean(driver);
    clean(nvml);
    for (char *p = spec; *p; p++)
        if (*p == ' ' || *p == '"')
            *p = '_';
    snprintf(buf, len, "flinch_host name=%s flinch=%s driver=%s nvml=%s interval_ms=%d gpu=%s missing=%s",
             host[0] ? host : "unknown", FLINCH_VERSION, driver[0] ? driver : "unknown",
             nvml[0] ? nvml : "unknown", interval_ms, spec, missing[0] ? missing : "none");
}

void gpu_fields_label(const struct gpu_dev *dev, char *buf, size_t len)
{
    static const unsigned asked[] = {
        NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION, NVML_FI_DEV_POWER_INSTANT, NVML_FI_DEV_POWER_AVERAGE,
        NVML_FI_DEV_PERF_POLICY_POWER, NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN,
        NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN,
        NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN,
        NVML_FI_DEV_PCIE_COUNT_TX_BYTES, NVML_FI_DEV_PCIE_COUNT_RX_BYTES,
    };
    char ok[96] = "", no[96] = "";
    size_t nok = 0, nno = 0;
    for (size_t i = 0; i < sizeof asked / sizeof asked[0]; i++) {
        int kept = 0;
        for (int k = 0; k < dev->nfields && !dev->no_field_call; k++)
            kept |= dev->field_ids[k] == asked[i];
        char *b = kept ? ok : no;
        size_t *n = kept ? &nok : &nno;
        int w = snprintf(b + *n, sizeof ok - *n, "%s%u", *n ? ";" : "", asked[i]);
        if (w > 0 && (size_t)w < sizeof ok - *n)
            *n += (size_t)w;
    }
    char bits[8] = "unknown";
    if (dev->pcie_bits)
        snprintf(bits, sizeof bits, "%d", dev->pcie_bits);
    snprintf(buf, len, "flinch_fields gpu=%u supported=%s unsupported=%s energy=%s power_W=%s pcie_bits=%s",
             dev->index, nok ? ok : "none", nno ? no : "none",
             dev->energy_by_func ? "function" : "field", dev->power_by_func ? "function" : "field", bits);
}
