// The device-wide exclusive scans (device_scan.h), from naive to best:
//
//   blelloch_global  Blelloch's up-sweep/down-sweep straight in global memory, one launch per
//                    level: 2 log2(n) passes over memory, the later ones strided.
//   hillis_steele    one tile per block scanned in shared memory (Hillis-Steele, n log n adds),
//                    then the tile totals scanned the same way (recursively) and added back.
//   blelloch_shared  the tile scan becomes Blelloch's work-efficient tree (2n adds); its strided
//                    shared accesses pile up on few banks.
//   blelloch_padded  the same tree with one pad word every 32 (GPU Gems 3, ch. 39).
//   warp_shuffle     16 items per thread in registers (16-byte vector loads), warp scans with
//                    __shfl_up_sync, one shared slot per warp: few instructions and barriers per
//                    element; still the block-sums pass.
//   lookback         one pass: tiles take ids from a counter, publish their sum and look back at
//                    their predecessors' (decoupled look-back, kernels/primitives/lookback.cuh).
//   cub              cub::DeviceScan::ExclusiveSum, the library line.
// Every multi-pass scan handles any n: the tile totals are scanned recursively by the same kernel.
// The block-level scans inside the tiles are in block_scan.cuh, where cuda-tile-scan's `--scan`
// also finds them.
#include "kernels/primitives/device_scan.h"

#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstddef>
#include <stdexcept>

#include "kernels/cuda/check.h"
#include "kernels/cuda/dependent_launch.cuh"
#include "kernels/primitives/block_scan.cuh"
#include "kernels/primitives/lookback.cuh"
#include "kernels/primitives/scan_tile.cuh"
#include "kernels/primitives/warp.cuh"

namespace circles {

namespace {

using namespace circles::scan;

// ---------------------------------------------------------------------------------------------
// blelloch_global: Blelloch in global memory. The tree runs over a virtual power-of-two length P >= n:
// indices below n live in `out`, the P - n virtual ones (zeros at the start) in a scratch tail,
// so nothing is ever written past out[n-1].

template <class T>
struct VirtualArray {
  T* out;
  T* tail;
  std::size_t n;
  __device__ __forceinline__ T& operator[](std::size_t i) const { return i < n ? out[i] : tail[i - n]; }
};

// One Blelloch up-sweep level in GLOBAL memory (a[right] += a[left], pairs `stride` apart): a launch and a strided pass per level.
template <class T>
__global__ void scan_blelloch_global_upsweep_kernel(VirtualArray<T> a, std::size_t stride, std::size_t pairs) {
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t j = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < pairs; j += step) {
    const std::size_t right = (j + 1) * 2 * stride - 1, left = right - stride;
    a[right] = add(a[right], a[left]);
  }
}

// One Blelloch down-sweep level in GLOBAL memory (left <- parent prefix, right <- prefix + left's sum): again a strided pass per level.
template <class T>
__global__ void scan_blelloch_global_downsweep_kernel(VirtualArray<T> a, std::size_t stride, std::size_t pairs) {
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t j = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < pairs; j += step) {
    const std::size_t right = (j + 1) * 2 * stride - 1, left = right - stride;
    const T l = a[left];
    a[left] = a[right];
    a[right] = add(a[right], l);
  }
}

template <class T>
void blelloch_global(const T* in, T* out, std::size_t n, Scratch& scratch, cudaStream_t stream) {
  std::size_t p = 1;
  while (p < n) p <<= 1;
  T* tail = scratch.get_as<T>(p - n, 0);
  CUDA_CHECK(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice, stream));
  if (p > n) CUDA_CHECK(cudaMemsetAsync(tail, 0, (p - n) * sizeof(T), stream));
  const VirtualArray<T> v{out, tail, n};
  constexpr int kThreads = 256;
  const std::size_t max_blocks = static_cast<std::size_t>(sm_count()) * 8;
  // A pair whose block of 2*stride elements starts at or past n only touches virtual elements
  // that no real one depends on: only the first ceil(n / (2*stride)) pairs of a level run.
  for (std::size_t s = 1; s < p; s <<= 1) {
    const std::size_t pairs = ceil_div(n, 2 * s);
    const unsigned blocks = static_cast<unsigned>(std::min(ceil_div(pairs, kThreads), max_blocks));
    scan_blelloch_global_upsweep_kernel<T><<<blocks, kThreads, 0, stream>>>(v, s, pairs);
    CUDA_CHECK_LAUNCH();
  }
  // The root (index P-1) holds the total; the exclusive scan starts from zero there.
  T* root = p == n ? out + (n - 1) : tail + (p - 1 - n);
  CUDA_CHECK(cudaMemsetAsync(root, 0, sizeof(T), stream));
  for (std::size_t s = p >> 1; s > 0; s >>= 1) {
    const std::size_t pairs = ceil_div(n, 2 * s);
    const unsigned blocks = static_cast<unsigned>(std::min(ceil_div(pairs, kThreads), max_blocks));
    scan_blelloch_global_downsweep_kernel<T><<<blocks, kThreads, 0, stream>>>(v, s, pairs);
    CUDA_CHECK_LAUNCH();
  }
}

// ---------------------------------------------------------------------------------------------
// hillis_steele .. warp_shuffle: a tile per block, then the block sums. A tile kernel scans its tile (exclusive),
// writes it, and stores its total in block_sums[tile] (when block_sums is not null). The tile
// totals are then scanned in place by the same kernel (recursively, so any n works) and added to
// every element of their tile. in == out is allowed (each element is read and written by the
// same thread), which the recursion uses.

template <class T>
using TileScanFn = void (*)(const T* in, T* out, T* block_sums, std::size_t n, unsigned tiles, cudaStream_t s);

// Uniform add of the scanned tile totals to tiles 1..: a coalesced read-modify-write pass, the extra traffic of multi-pass scans.
template <class T>
__global__ void scan_add_block_offsets_kernel(T* out, const T* offsets, std::size_t n, std::size_t tile) {
  const std::size_t b = static_cast<std::size_t>(blockIdx.x) + 1;
  const T off = offsets[b];
  const std::size_t begin = b * tile, end = n < begin + tile ? n : begin + tile;
#pragma unroll 4
  for (std::size_t i = begin + threadIdx.x; i < end; i += blockDim.x) out[i] = add(out[i], off);
}

// Scratch elements the block-sum levels of an n-element scan need.
std::size_t hierarchy_sums(std::size_t n, std::size_t tile) {
  std::size_t total = 0;
  for (std::size_t m = n; m > tile;) {
    m = ceil_div(m, tile);
    total += m;
  }
  return total;
}

template <class T>
void scan_hierarchy(const T* in, T* out, std::size_t n, std::size_t tile, TileScanFn<T> fn, T* sums, cudaStream_t s) {
  const std::size_t tiles = ceil_div(n, tile);
  if (tiles == 1) {
    fn(in, out, nullptr, n, 1, s);
    return;
  }
  fn(in, out, sums, n, static_cast<unsigned>(tiles), s);
  scan_hierarchy<T>(sums, sums, tiles, tile, fn, sums + tiles, s);
  scan_add_block_offsets_kernel<T><<<static_cast<unsigned>(tiles - 1), 256, 0, s>>>(out, sums, n, tile);
  CUDA_CHECK_LAUNCH();
}

template <class T>
void run_hierarchy(const T* in, T* out, std::size_t n, Scratch& scratch, cudaStream_t stream, std::size_t tile,
                   TileScanFn<T> fn) {
  T* sums = scratch.get_as<T>(hierarchy_sums(n, tile), 0);
  scan_hierarchy<T>(in, out, n, tile, fn, sums, stream);
}

// --- hillis_steele.
constexpr int kHsThreads = 512;  // one element per thread: the tile is 512 elements

// Hillis-Steele tile scan in shared memory (double-buffered): 9 steps of 512 adds each, 9n work and a barrier per step.
template <class T>
__global__ void __launch_bounds__(kHsThreads)
    scan_hillis_steele_kernel(const T* in, T* out, T* block_sums, std::size_t n) {
  __shared__ T buf[2 * kHsThreads];
  const int t = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * kHsThreads + t;
  const T* inc = hillis_steele_inclusive<kHsThreads>(i < n ? in[i] : T(0), buf, SumOp{});
  // The exclusive scan is the inclusive one shifted by one.
  if (i < n) out[i] = t > 0 ? inc[t - 1] : T(0);
  if (block_sums && t == kHsThreads - 1) block_sums[blockIdx.x] = inc[t];
}

template <class T>
void launch_hillis_steele(const T* in, T* out, T* block_sums, std::size_t n, unsigned tiles, cudaStream_t s) {
  scan_hillis_steele_kernel<T><<<tiles, kHsThreads, 0, s>>>(in, out, block_sums, n);
  CUDA_CHECK_LAUNCH();
}

// --- blelloch_shared and blelloch_padded: Blelloch in shared memory, 256 threads x 2 elements.
constexpr int kBlThreads = 256;
constexpr int kBlTile = 2 * kBlThreads;

// Blelloch tile scan in shared memory: 2n adds, but pairs `offset` words apart hit few banks (up to 16-way conflicts).
template <class T>
__global__ void __launch_bounds__(kBlThreads)
    scan_blelloch_shared_kernel(const T* in, T* out, T* block_sums, std::size_t n) {
  __shared__ T s[kBlTile];
  const int t = threadIdx.x;
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * kBlTile;
  const std::size_t ia = base + t, ib = base + t + kBlThreads;
  s[t] = ia < n ? in[ia] : T(0);
  s[t + kBlThreads] = ib < n ? in[ib] : T(0);
  blelloch_exclusive<kBlTile, false>(s, block_sums ? block_sums + blockIdx.x : nullptr, SumOp{});
  if (ia < n) out[ia] = s[t];
  if (ib < n) out[ib] = s[t + kBlThreads];
}

// The same Blelloch tree with index i stored at i + i/32 (GPU Gems 3): strided pairs spread over the banks, few conflicts left.
template <class T>
__global__ void __launch_bounds__(kBlThreads)
    scan_blelloch_padded_kernel(const T* in, T* out, T* block_sums, std::size_t n) {
  __shared__ T s[kBlTile + kBlTile / 32];
  const int t = threadIdx.x;
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * kBlTile;
  const std::size_t ia = base + t, ib = base + t + kBlThreads;
  s[padded_index(t)] = ia < n ? in[ia] : T(0);
  s[padded_index(t + kBlThreads)] = ib < n ? in[ib] : T(0);
  blelloch_exclusive<kBlTile, true>(s, block_sums ? block_sums + blockIdx.x : nullptr, SumOp{});
  if (ia < n) out[ia] = s[padded_index(t)];
  if (ib < n) out[ib] = s[padded_index(t + kBlThreads)];
}

template <class T>
void launch_blelloch_shared(const T* in, T* out, T* block_sums, std::size_t n, unsigned tiles, cudaStream_t s) {
  scan_blelloch_shared_kernel<T><<<tiles, kBlThreads, 0, s>>>(in, out, block_sums, n);
  CUDA_CHECK_LAUNCH();
}
template <class T>
void launch_blelloch_padded(const T* in, T* out, T* block_sums, std::size_t n, unsigned tiles, cudaStream_t s) {
  scan_blelloch_padded_kernel<T><<<tiles, kBlThreads, 0, s>>>(in, out, block_sums, n);
  CUDA_CHECK_LAUNCH();
}

// ---------------------------------------------------------------------------------------------
// warp_shuffle: 16 items a thread (kernels/primitives/scan_tile.cuh), warp shuffles, still the
// block-sums pass.

// Tile scan of 16 items per thread in registers plus __shfl_up_sync warp scans: one barrier per 4096 elements, few instructions.
template <class T>
__global__ void __launch_bounds__(kThreads)
    scan_warp_shuffle_kernel(const T* in, T* out, T* block_sums, std::size_t n) {
  __shared__ T s_slots[kWarps][kWarpSlots];
  __shared__ T s_warp[kWarps];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * kTile;
  const int valid = tile_valid(n, base);
  const int warp_valid = valid - warp * 32 * kItems;  // may be <= 0 in the last tile
  const std::size_t warp_base = base + static_cast<std::size_t>(warp) * 32 * kItems;
  T x[kItems];
  load_tile(in + base, valid, x, s_slots[warp], T(0));
  T total;
  T run = block_exclusive_scan<kWarps>(thread_reduce(x), s_warp, total, SumOp{});
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const T v = x[k];
    x[k] = run;
    run = add(run, v);
  }
  store_blocked(out + warp_base, warp_valid, x, s_slots[warp], lane);
  if (block_sums && threadIdx.x == 0) block_sums[blockIdx.x] = total;
}

template <class T>
void launch_warp_shuffle(const T* in, T* out, T* block_sums, std::size_t n, unsigned tiles, cudaStream_t s) {
  scan_warp_shuffle_kernel<T><<<tiles, kThreads, 0, s>>>(in, out, block_sums, n);
  CUDA_CHECK_LAUNCH();
}

// ---------------------------------------------------------------------------------------------
// lookback: one pass.

// Single-pass scan, decoupled look-back: tiles in counter order, warp 0 folds predecessors' published sums; 1 read + 1 write.
// Launched dependent, it waits for the kernel before it first, and lets
// the next start once its own prefix is published.
template <class T>
__global__ void __launch_bounds__(kThreads)
    scan_lookback_kernel(const T* __restrict__ in, T* __restrict__ out, std::size_t n, LookbackState st) {
  __shared__ T s_slots[kWarps][kWarpSlots];
  __shared__ T s_warp[kWarps];
  __shared__ T s_prefix;
  __shared__ unsigned s_tile;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  wait_for_prior_grid();
  const unsigned tile = take_tile(st.counter, &s_tile);
  const std::size_t base = static_cast<std::size_t>(tile) * kTile;
  const int valid = tile_valid(n, base);
  const int warp_valid = valid - warp * 32 * kItems;  // may be <= 0 in the last tile
  const std::size_t warp_base = base + static_cast<std::size_t>(warp) * 32 * kItems;
  T x[kItems];
  load_tile(in + base, valid, x, s_slots[warp], T(0));
  T total;
  const T excl = block_exclusive_scan<kWarps>(thread_reduce(x), s_warp, total, SumOp{});
  if (warp == 0) {
    const T p = lookback_exclusive_prefix(st.status, st.epoch, tile, total, SumOp{}, lane);
    if (lane == 0) s_prefix = p;
  }
  __syncthreads();
  allow_dependent_launch();
  T run = add(s_prefix, excl);
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const T v = x[k];
    x[k] = run;
    run = add(run, v);
  }
  store_blocked(out + warp_base, warp_valid, x, s_slots[warp], lane);
}

template <class T>
void lookback_scan(const T* in, T* out, std::size_t n, Scratch& scratch, cudaStream_t stream, bool dependent) {
  const std::size_t tiles = ceil_div(n, kTile);
  const LookbackState st = lookback_state(scratch, tiles, stream);
  if (dependent) {
    launch_dependent(scan_lookback_kernel<T>, dim3(static_cast<unsigned>(tiles)), dim3(kThreads), 0, stream, in, out,
                     n, st);
  } else {
    scan_lookback_kernel<T><<<static_cast<unsigned>(tiles), kThreads, 0, stream>>>(in, out, n, st);
    CUDA_CHECK_LAUNCH();
  }
}

// ---------------------------------------------------------------------------------------------
// cub: the library line.

template <class T>
void cub_scan(const T* in, T* out, std::size_t n, Scratch& scratch, cudaStream_t stream) {
  std::size_t bytes = 0;
  CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, static_cast<long long>(n), stream));
  void* temp = scratch.get(bytes, 0);
  CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp, bytes, in, out, static_cast<long long>(n), stream));
}

template <class T>
void exclusive_sum(DeviceScan s, const T* in, T* out, std::size_t n, Scratch& scratch, cudaStream_t stream,
                   bool dependent) {
  switch (s) {
    case DeviceScan::blelloch_global: return blelloch_global<T>(in, out, n, scratch, stream);
    case DeviceScan::hillis_steele:
      return run_hierarchy<T>(in, out, n, scratch, stream, kHsThreads, launch_hillis_steele<T>);
    case DeviceScan::blelloch_shared:
      return run_hierarchy<T>(in, out, n, scratch, stream, kBlTile, launch_blelloch_shared<T>);
    case DeviceScan::blelloch_padded:
      return run_hierarchy<T>(in, out, n, scratch, stream, kBlTile, launch_blelloch_padded<T>);
    case DeviceScan::warp_shuffle: return run_hierarchy<T>(in, out, n, scratch, stream, kTile, launch_warp_shuffle<T>);
    case DeviceScan::lookback: return lookback_scan<T>(in, out, n, scratch, stream, dependent);
    case DeviceScan::cub: return cub_scan<T>(in, out, n, scratch, stream);
  }
  throw std::invalid_argument("device_exclusive_sum: unknown scan");
}

}  // namespace

void device_exclusive_sum(DeviceScan s, const int* in, int* out, std::size_t n, Scratch& scratch, cudaStream_t stream,
                          bool dependent) {
  exclusive_sum<int>(s, in, out, n, scratch, stream, dependent);
}

void device_exclusive_sum(DeviceScan s, const float* in, float* out, std::size_t n, Scratch& scratch,
                          cudaStream_t stream, bool dependent) {
  exclusive_sum<float>(s, in, out, n, scratch, stream, dependent);
}

}  // namespace circles
