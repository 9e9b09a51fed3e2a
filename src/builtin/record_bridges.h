/* record_bridges.h — record's --nvtx and --cuda set-up; see record_bridges.c. */
#ifndef FLINCH_RECORD_BRIDGES_H
#define FLINCH_RECORD_BRIDGES_H

/* --nvtx: checks the filter text and hands CMD libflinch_nvtx.so and the
 * filter (NVTX_INJECTION64_PATH, FLINCH_NVTX_FILTER). 0, or -1 after one
 * error line. */
int record_setup_nvtx(const char *filter_text, int replace);

/* --cuda: hands CMD libflinch_cuda.so (CUDA_INJECTION64_PATH). 0, or -1
 * after one error line. */
int record_setup_cuda(int replace);

#endif
