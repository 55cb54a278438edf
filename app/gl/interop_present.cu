#include "app/gl/interop_present.h"
#include "kernels/cuda/check.h"
#include "render/raster.h"

namespace circles {

namespace {

// Where a converted texel goes: a 4-byte surface store into the registered texture ...
struct SurfaceStore {
  cudaSurfaceObject_t surface;
  __device__ void operator()(int x, int y, int /*width*/, uchar4 v) const {
    surf2Dwrite(v, surface, x * static_cast<int>(sizeof(uchar4)), y);
  }
};

// ... or a 4-byte store into the mapped pixel buffer (rows tightly packed, bottom row first).
struct LinearStore {
  uchar4* dst;
  __device__ void operator()(int x, int y, int width, uchar4 v) const {
    dst[static_cast<size_t>(y) * width + x] = v;
  }
};

// One thread per pixel, 32x8 blocks along rows: fast because reads are coalesced 16-byte loads
// and writes 4-byte stores of neighbouring texels; purely bandwidth-bound (20 B/pixel).
template <class Store>
__global__ void float4_to_rgba8(Store store, const float4* __restrict__ src, int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const float4 p = src[static_cast<size_t>(y) * width + x];
  store(x, y, width, make_uchar4(to_byte(p.x), to_byte(p.y), to_byte(p.z), to_byte(p.w)));
}

template <class Store>
void launch(Store store, const float4* src, int width, int height, cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
  float4_to_rgba8<<<grid, block, 0, stream>>>(store, src, width, height);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void launch_float4_to_rgba8(cudaSurfaceObject_t dst, const float4* src, int width, int height,
                            cudaStream_t stream) {
  launch(SurfaceStore{dst}, src, width, height, stream);
}

void launch_float4_to_rgba8(uchar4* dst, const float4* src, int width, int height, cudaStream_t stream) {
  launch(LinearStore{dst}, src, width, height, stream);
}

}  // namespace circles
