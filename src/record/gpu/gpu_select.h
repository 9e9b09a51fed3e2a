/*
 * gpu_select.h — which GPUs `--gpu SPEC` means.
 *
 * Owns: the --gpu grammar and the trap it exists for: NVML numbers GPUs its
 * own way (in PCI bus order), ignores CUDA_VISIBLE_DEVICES, and its index
 * "may not correlate with other APIs, such as the CUDA device index". SPEC
 * is `all`, or a comma-separated list of
 *
 *   N               an NVML index
 *   GPU-...         a GPU's UUID (a unique prefix will do, as CUDA allows)
 *   DDDD:BB:DD.F    a PCI bus id (domain optional: BB:DD.F; hex)
 *   cuda            every GPU the CUDA_VISIBLE_DEVICES of this environment
 *                   lets a CUDA program see (all GPUs when it is unset)
 *   cuda:N          the CUDA program's device N
 *
 * CUDA_VISIBLE_DEVICES entries are UUIDs (resolved exactly) or indices.
 * Indices count GPUs in CUDA_DEVICE_ORDER: PCI_BUS_ID is PCI bus order;
 * the default, FASTEST_FIRST, puts the fastest GPU first and orders equal
 * GPUs by PCI bus id. So an index is resolved in PCI bus order when
 * CUDA_DEVICE_ORDER=PCI_BUS_ID or when every GPU has the same name (then
 * both orders agree); otherwise it is ambiguous and refused, with the advice
 * to use UUIDs. MIG instance UUIDs (MIG-...) are refused: flinch records
 * whole GPUs.
 */
#ifndef FLINCH_GPU_SELECT_H
#define FLINCH_GPU_SELECT_H

#include "nvml_loader.h"

/* Resolves SPEC against the COUNT GPUs NVML reports into NVML indices
 * idx[0..*n) (at most max). 0, or -1 after one error line. Only UUIDs, bus
 * ids and cuda need the GPUs' identities (a few NVML calls per GPU, once). */
int gpu_select(const struct nvml_lib *lib, const char *spec, unsigned count, unsigned *idx,
               int *n, int max);

#endif
