// The tile the fast device-wide scans work in (256 threads x 16 items = 4096 elements): the add
// that wraps for ints, coalesced loads into registers and back, and the per-thread reduce. Used by
// the warp-shuffle and look-back scans (device_scan.cu) and the lab's one-pass applications
// (kernels/lab/scan.cu). Loads and stores go through a warp's own padded shared slots, so both
// shared passes are free of bank conflicts and need only __syncwarp.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/primitives/block_scan.cuh"
#include "kernels/primitives/warp.cuh"

namespace circles::scan {

// ---------------------------------------------------------------------------------------------
// Operators. Ints add as uint32 (wrap-around is defined); floats add as floats.

__device__ __forceinline__ int add(int a, int b) {
  return static_cast<int>(static_cast<unsigned>(a) + static_cast<unsigned>(b));
}
__device__ __forceinline__ float add(float a, float b) { return a + b; }

struct SumOp {
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const { return add(a, b); }
};

// The 32 bits of an element, and back.
__device__ __forceinline__ unsigned bits_of(int v) { return static_cast<unsigned>(v); }
__device__ __forceinline__ unsigned bits_of(float v) { return __float_as_uint(v); }
template <class T>
__device__ __forceinline__ T from_bits(unsigned b);
template <>
__device__ __forceinline__ int from_bits<int>(unsigned b) { return static_cast<int>(b); }
template <>
__device__ __forceinline__ float from_bits<float>(unsigned b) { return __uint_as_float(b); }

__device__ __forceinline__ int shfl_idx(int v, int src) { return __shfl_sync(kFullMask, v, src); }
__device__ __forceinline__ float shfl_idx(float v, int src) { return __shfl_sync(kFullMask, v, src); }

// ---------------------------------------------------------------------------------------------
// A tile of the one-pass scans: 256 threads, 16 items each, 4096 elements.

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kItems = 16;
constexpr int kTile = kThreads * kItems;
constexpr int kWarpSlots = 33 * kItems;  // one warp's 32 * kItems words, one pad word every 32

// Threads an SM holds (1024 on sm_75, 1536 on sm_86/87/89/120, else 2048), for __launch_bounds__.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#define CIRCLES_SCAN_SM_THREADS 1024
#elif defined(__CUDA_ARCH__) && \
    (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890 || __CUDA_ARCH__ >= 1200)
#define CIRCLES_SCAN_SM_THREADS 1536
#else
#define CIRCLES_SCAN_SM_THREADS 2048
#endif
constexpr int kBlocksPerSm = CIRCLES_SCAN_SM_THREADS / kThreads;  // resident blocks at full occupancy

// Coalesced load of a warp's 32 * kItems consecutive elements (lane reads k*32 + lane) into the
// blocked arrangement (lane holds lane*kItems .. +kItems-1), transposed through the warp's own
// padded shared slots: both shared passes are conflict-free, and only __syncwarp is needed.
// `valid` (may be <= 0) elements from `src` exist; the rest read as `fill`.
template <class T>
__device__ __forceinline__ void load_blocked(const T* src, int valid, T (&x)[kItems], T* slots, int lane, T fill) {
  __syncwarp();  // the slots may still be read by a previous exchange
  if (valid >= 32 * kItems) {
#pragma unroll
    for (int k = 0; k < kItems; ++k) slots[k * 33 + lane] = src[k * 32 + lane];
  } else {
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const int j = k * 32 + lane;
      slots[k * 33 + lane] = j < valid ? src[j] : fill;
    }
  }
  __syncwarp();
#pragma unroll
  for (int k = 0; k < kItems; ++k) x[k] = slots[padded_index(lane * kItems + k)];
}

// A thread's kItems consecutive elements of the tile at `tile_src` (`valid` of them exist). A full
// tile of a 16-byte aligned array is read straight into registers as kItems/4 16-byte vectors
// (each warp instruction spans 2 KB, but the 4 instructions use every sector, and L1 keeps the
// lines in between); anything else goes through load_blocked.
template <class T>
__device__ __forceinline__ void load_tile(const T* tile_src, int valid, T (&x)[kItems], T* slots, T fill) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (valid == kTile && (reinterpret_cast<std::uintptr_t>(tile_src) & 15) == 0) {
    const uint4* src = reinterpret_cast<const uint4*>(tile_src + threadIdx.x * kItems);
#pragma unroll
    for (int q = 0; q < kItems / 4; ++q) {
      const uint4 v = src[q];
      x[4 * q] = from_bits<T>(v.x);
      x[4 * q + 1] = from_bits<T>(v.y);
      x[4 * q + 2] = from_bits<T>(v.z);
      x[4 * q + 3] = from_bits<T>(v.w);
    }
  } else {
    load_blocked(tile_src + warp * 32 * kItems, valid - warp * 32 * kItems, x, slots, lane, fill);
  }
}

// The inverse: blocked registers to coalesced stores of the first `valid` elements.
template <class T>
__device__ __forceinline__ void store_blocked(T* dst, int valid, const T (&x)[kItems], T* slots, int lane) {
  __syncwarp();
#pragma unroll
  for (int k = 0; k < kItems; ++k) slots[padded_index(lane * kItems + k)] = x[k];
  __syncwarp();
  if (valid >= 32 * kItems) {
#pragma unroll
    for (int k = 0; k < kItems; ++k) dst[k * 32 + lane] = slots[k * 33 + lane];
  } else {
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const int j = k * 32 + lane;
      if (j < valid) dst[j] = slots[k * 33 + lane];
    }
  }
}

// Elements of the tile starting at `base` (base < n): kTile, or fewer in the last tile.
__device__ __forceinline__ int tile_valid(std::size_t n, std::size_t base) {
  return n - base < kTile ? static_cast<int>(n - base) : kTile;
}

template <class T>
__device__ __forceinline__ T thread_reduce(const T (&x)[kItems]) {
  T s = x[0];
#pragma unroll
  for (int k = 1; k < kItems; ++k) s = add(s, x[k]);
  return s;
}

}  // namespace circles::scan
