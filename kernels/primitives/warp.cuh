// Warp and grid helpers shared by the renderers and the kernel lab: the full-warp mask, the
// device's SM count, grid sizes.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>

#include "kernels/cuda/check.h"

namespace circles {

constexpr unsigned kFullMask = 0xffffffffu;  // every lane of a warp, for the *_sync intrinsics

// SMs of the current device, queried once (at least 1).
inline int sm_count() {
  static const int sms = [] {
    int dev = 0, n = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev));
    return n > 0 ? n : 1;
  }();
  return sms;
}

inline std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// Blocks that cover `items` at `per_block` each, as a grid dimension; throws past gridDim.x's
// limit (2^31 - 1).
inline unsigned grid_blocks(std::size_t items, std::size_t per_block) {
  const std::size_t blocks = ceil_div(items, per_block);
  if (blocks > 0x7fffffffu) throw std::invalid_argument("problem too large for one grid");
  return static_cast<unsigned>(blocks);
}

}  // namespace circles
