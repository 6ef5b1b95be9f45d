/* Binds nccl.h against the CUDA driver API only (ARCHITECTURE, decision 1).
 *
 * nccl.h includes the CUDA runtime headers, which we neither need nor want: the
 * runtime is never called, and libnccl carries its own static copy. Pre-defining
 * their include guards turns those includes into no-ops; the two runtime types that
 * nccl.h's prototypes use are, by CUDA's definition, the driver's handles. */
#define __CUDA_RUNTIME_H__
#define __CUDA_FP16_H__
#define __CUDA_BF16_H__
#define __CUDA_FP8_H__

#include <cuda.h>

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;

#include <nccl.h>
