# gpu_select.sh — --gpu by UUID, PCI bus id, and as CUDA numbers them
# (src/record/gpu/gpu_select.h): the NVML index is not the CUDA index. Four
# simulated GPUs on HGX bus ids 18, 2A, 3A, 5D (sim/sim_identity.c).
. "$ROOT/tests/lib.sh"

printf 'gpus 4\nat 0 power=75\n' > g4.scn
# sel SPEC [ENV...]: the gpu_index values of the SAMPLE rows, in row order of
# the first tick, or the error line.
sel() {
  spec=$1; shift
  rm -f sel.csv
  env FLINCH_SIM_SCENARIO=g4.scn "$@" "$FLINCH" record --nvml-lib "$SIM" --out sel.csv \
    --seconds 0.02 --no-rapl -q --gpu "$spec" 2>&1
  [ -f sel.csv ] && awk -F, '$3 == "SAMPLE" && $18 == 0 { printf "%s ", $11 }' sel.csv
}
u() { printf 'GPU-5151a000-0000-4000-8000-%012x' "$1"; }

expect_eq "--gpu UUID" "$(sel "$(u 2)")" "2 "
expect_eq "--gpu unique UUID prefix" "$(sel GPU-5151a000-0000-4000-8000-000000000003)" "3 "
expect_eq "--gpu ambiguous UUID prefix refused" "$(sel GPU-5151a)" \
  "flinch record: --gpu GPU-5151a: more than one GPU's UUID starts so"
expect_eq "--gpu unknown UUID refused" "$(sel GPU-0000)" "flinch record: --gpu GPU-0000: no GPU with this UUID"
expect_eq "--gpu PCI bus id (domain, any case)" "$(sel 0000:5d:00.0)" "3 "
expect_eq "--gpu PCI bus id without domain" "$(sel 2A:00.0)" "1 "
expect_eq "--gpu unknown bus id refused" "$(sel 99:00.0)" "flinch record: --gpu 99:00.0: no GPU at this PCI bus id"
expect_eq "--gpu mixed list keeps its order" "$(sel "1,$(u 0)")" "1 0 "
expect_eq "--gpu same GPU twice refused" "$(sel "3,$(u 3)")" "flinch record: --gpu 3,$(u 3): GPU 3 listed twice"

# The trap: CUDA_VISIBLE_DEVICES=3 makes NVML's GPU 3 the program's device 0.
expect_eq "cuda:0 with CUDA_VISIBLE_DEVICES=3 is NVML GPU 3" "$(sel cuda:0 CUDA_VISIBLE_DEVICES=3)" "3 "
expect_eq "cuda: the visible GPUs in CUDA's order" "$(sel cuda CUDA_VISIBLE_DEVICES=2,0)" "2 0 "
expect_eq "cuda: UUIDs in CUDA_VISIBLE_DEVICES" "$(sel cuda:1 CUDA_VISIBLE_DEVICES="$(u 3),$(u 1)")" "1 "
expect_eq "cuda: unset means every GPU" "$(sel cuda)" "0 1 2 3 "
expect_eq "cuda: the list ends at the first entry CUDA cannot use" "$(sel cuda CUDA_VISIBLE_DEVICES=1,7,2)" "1 "
expect_eq "cuda:N beyond the visible GPUs refused" "$(sel cuda:2 CUDA_VISIBLE_DEVICES=3,1)" \
  "flinch record: --gpu cuda:2: CUDA sees 2 GPUs here (CUDA_VISIBLE_DEVICES=3,1)"
expect_eq "cuda: a MIG instance refused" "$(sel cuda CUDA_VISIBLE_DEVICES=MIG-1234)" \
  "flinch record: --gpu cuda: CUDA_VISIBLE_DEVICES names a MIG instance (MIG-1234); flinch records whole GPUs: name the GPU with --gpu GPU-UUID"
# GPUs that differ: CUDA's default order (fastest first) is not NVML's.
printf 'gpus 2\ngpu_name 1 Simulated H100\nat 0 power=75\n' > mixed.scn
mix() { rm -f sel.csv; env FLINCH_SIM_SCENARIO=mixed.scn "$@" "$FLINCH" record --nvml-lib "$SIM" --out sel.csv \
          --seconds 0.02 --no-rapl -q --gpu cuda:0 2>&1
        [ -f sel.csv ] && awk -F, '$3 == "SAMPLE" && $18 == 0 { printf "%s ", $11 }' sel.csv; }
expect_eq "cuda: indices over different GPUs refused without CUDA_DEVICE_ORDER" "$(mix CUDA_VISIBLE_DEVICES=1)" \
  "flinch record: --gpu cuda: CUDA_VISIBLE_DEVICES=1 holds indices, and the GPUs differ and CUDA_DEVICE_ORDER is not PCI_BUS_ID, so CUDA numbers them fastest first, an order NVML cannot tell; set CUDA_DEVICE_ORDER=PCI_BUS_ID or use GPU UUIDs"
expect_eq "cuda: ... accepted with CUDA_DEVICE_ORDER=PCI_BUS_ID" "$(mix CUDA_VISIBLE_DEVICES=1 CUDA_DEVICE_ORDER=PCI_BUS_ID)" "1 "
expect_eq "cuda: ... and with UUIDs" "$(mix CUDA_VISIBLE_DEVICES="$(u 1)")" "1 "
expect_eq "plain indices still NVML's" "$(sel 3 CUDA_VISIBLE_DEVICES=0)" "3 "

done_testing
