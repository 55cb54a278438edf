// Device-wide exclusive sums of int or float arrays: the seven algorithms of the lab's scan ladder,
// from Blelloch's tree in global memory to the one-pass decoupled look-back and CUB. The lab's
// scan rungs run them (kernels/lab/scan.cu) and so does the renderer cuda-tile-binned, for the
// per-circle tile counts (`--scan`; the look-back by default). Ints add with wrap-around.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "kernels/cuda/scratch.h"
#include "kernels/primitives/device_scan_names.h"

namespace circles {

// out[i] = in[0] + ... + in[i-1] (out[0] = 0) for i < n, enqueued on `stream`: no synchronisation,
// temporaries from `scratch`. `dependent`: launched programmatically dependent on the kernel
// before it in `stream` (kernels/cuda/dependent_launch.cuh), so its blocks may start while that
// one finishes; only the look-back scan takes it, the others launch as usual. `in` and `out` do
// not overlap.
void device_exclusive_sum(DeviceScan s, const int* in, int* out, std::size_t n, Scratch& scratch,
                          cudaStream_t stream, bool dependent = false);
void device_exclusive_sum(DeviceScan s, const float* in, float* out, std::size_t n, Scratch& scratch,
                          cudaStream_t stream, bool dependent = false);

}  // namespace circles
