// Programmatic dependent launch (compute capability 9.0 and up). A kernel launched with
// launch_dependent() may start while the kernel before it in the stream is still finishing: its
// launch, and whatever it does before wait_for_prior_grid(), overlap that kernel's tail: the
// second kernel's first blocks start sooner after the first one ends than by an ordinary launch,
// and even before it ends where the first kernel calls allow_dependent_launch().
// Rules for such a kernel: nothing the kernel before it writes is read (and nothing it reads is
// written) before wait_for_prior_grid(), which returns once that kernel has finished and its
// writes are visible. Where the stream holds anything else in between (a memset, an event: the
// per-stage timing's), or the GPU is older, the launch is an ordinary one and both calls do
// nothing.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "kernels/cuda/check.h"

namespace circles {

// Waits until the kernel before this one in the stream has finished (a no-op for an ordinary
// launch).
__device__ __forceinline__ void wait_for_prior_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Lets the next kernel in the stream (when launched with launch_dependent) start its blocks once
// every block of this one has called this or finished: they then take the SM room this kernel's
// last blocks leave, and wait in wait_for_prior_grid() for it to finish.
__device__ __forceinline__ void allow_dependent_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Whether this GPU takes programmatic dependent launches (compute capability 9.0 or later).
bool dependent_launch_supported();

// kernel<<<grid, block, shared_bytes, stream>>>(args...) as a programmatic dependent launch,
// checked.
template <class... Params, class... Args>
void launch_dependent(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream,
                      Args&&... args) {
  cudaLaunchAttribute attribute;
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = dependent_launch_supported() ? 1 : 0;
  CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

}  // namespace circles
