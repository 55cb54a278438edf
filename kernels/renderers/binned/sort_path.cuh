// Binning by sorting, where counting does not fit: each circle's tiles counted (64-bit total),
// its (tile, circle) pairs written at their scanned offsets, and after CUB's radix sort by tile,
// each tile's range of the sorted pairs.
#pragma once
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>

#include "kernels/cuda/raii.h"
#include "kernels/renderers/base.cuh"
#include "kernels/renderers/binned/chunk_args.cuh"
#include "kernels/renderers/binned/geometry.cuh"
#include "render/raster.h"

namespace circles::binned {

constexpr int kCountThreads = 256;

// The circle k of the count, moved first when the count takes the frame's animation step.
__device__ __forceinline__ float4 counted_circle(const DeviceCircles& c, int k, const FusedStep& step) {
  float4 q = c.pos_rad[k];
  if (step.kind != Animation::None) {
    const Motion m = moved_circle(step.kind, step.seed, step.frame, k, q, step.velocity[k], c.pos_rad);
    store_moved(step, k, m);
    q = make_float4(m.x, m.y, m.z, m.radius);
  }
  return q;
}

// Counts each circle's tiles, a thread a circle: fast while circles are small (a short walk each).
// A big circle's thread walks its whole bounding box while the rest of its warp waits. Grid-stride
// over the chunk's circles [lo, hi): a 32-bit count each for the lab's scans (at most the image's
// tiles), and their exact 64-bit sum, added to stats->total once per block. With a step (the
// frame's first count, over every circle), each thread first moves its circle, in place, and counts
// where it moved to, which saves the animation's own kernel launch.
__global__ void __launch_bounds__(kCountThreads)
    count_tiles_kernel(DeviceCircles c, int lo, int hi, View v, int tile, int tiles_x,
                       const unsigned char* settled, int* counts, ChunkStats* stats, FusedStep step) {
  __shared__ unsigned long long s_warp[kCountThreads / 32];
  // Early exit: when the last shade left no tile open the frame is done, and the host, reading
  // these stats, stops before using any count: skip the chunk's walk (uniform).
  if (settled && stats->unsettled == 0) return;
  unsigned long long sum = 0;
  for (int k = lo + blockIdx.x * kCountThreads + threadIdx.x; k < hi; k += gridDim.x * kCountThreads) {
    int n = 0;
    for_each_tile<false>(counted_circle(c, k, step), v, tile, tiles_x, settled, [&](int, int) { ++n; });
    counts[k - lo] = n;
    sum += static_cast<unsigned long long>(n);
  }
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) sum += __shfl_down_sync(kFullMask, sum, d);
  if (lane == 0) s_warp[warp] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long block = 0;
#pragma unroll
    for (int w = 0; w < kCountThreads / 32; ++w) block += s_warp[w];
    if (block) atomicAdd(&stats->total, block);
  }
}

// Writes each circle's (tile, circle) pairs at its offset: fast because its stores coalesce.
// A block takes 256 circles of the chunk; pairs come out in circle order (the order of a
// circle's own pairs does not matter: the stable sort by tile keeps each tile's circles in
// circle order). The host runs a chunk only once its total fits the buffers, so the 32-bit
// offsets are exact. Three ways, chosen per block (uniform):
//  - at most two pairs a circle on average, or (without `stage`) at most kDupStage pairs: each
//    thread writes its circle's pairs itself. A pair or two a circle are nearly contiguous
//    across a warp already, and without staging L1 keeps the cache that shared memory would
//    take (early exit's later chunks read the settled tiles through it);
//  - `stage` (the chunk averages more than two pairs a circle; the host then gives the kernel
//    kDupStage pairs of shared memory) and at most kDupStage pairs: each thread walks its
//    circle's tiles into shared memory and the block copies them out contiguously, where a
//    thread's own run of pairs would make each store instruction of a warp touch many sectors;
//  - more: circles of more than kDupOwn pairs (big circles, up to every tile of the image) go
//    to the whole block, their candidate tiles tested side by side, so that no thread walks
//    thousands of tiles alone; the other circles' threads write their own.
constexpr int kDupThreads = 256;
constexpr int kDupStage = 4096;  // pairs a block stages in shared memory (when `stage`)
constexpr int kDupOwn = 128;     // a circle with more pairs goes to the whole block
template <class Key>
__global__ void __launch_bounds__(kDupThreads)
    duplicate_pairs_kernel(DeviceCircles c, int lo, int hi, View v, int tile, int tiles_x,
                           const unsigned char* settled, const int* counts, const int* offsets, unsigned total,
                           bool stage, Key* keys, unsigned* ids) {
  extern __shared__ unsigned s_dup[];  // when `stage`: kDupStage ids, then kDupStage keys
  unsigned* const s_id = s_dup;
  Key* const s_key = reinterpret_cast<Key*>(s_dup + kDupStage);
  __shared__ int s_big[kDupThreads];  // an overflowing block's big circles
  __shared__ int s_nbig;
  __shared__ unsigned s_fill;
  const int first = lo + static_cast<int>(blockIdx.x) * kDupThreads, k = first + static_cast<int>(threadIdx.x);
  const int last = min(hi, first + kDupThreads);  // one past the block's last circle
  const unsigned base = static_cast<unsigned>(offsets[first - lo]);
  const unsigned end = last < hi ? static_cast<unsigned>(offsets[last - lo]) : total;
  unsigned o = k < hi ? static_cast<unsigned>(offsets[k - lo]) : 0u;
  auto write_own = [&] {  // the thread's circle's pairs, written by the thread
    for_each_tile(c.pos_rad[k], v, tile, tiles_x, settled, [&](int tx, int ty) {
      keys[o] = static_cast<Key>(ty * tiles_x + tx);
      ids[o] = static_cast<unsigned>(k);
      ++o;
    });
  };
  if (end - base <= 2u * kDupThreads || (!stage && end - base <= static_cast<unsigned>(kDupStage))) {  // uniform
    // A circle's pairs end where the next one's begin (the next lane's offset): a circle with
    // none, as most are in early exit's later chunks (their tiles settled), is not read at all.
    unsigned next = __shfl_down_sync(kFullMask, o, 1);
    if (k + 1 >= hi) next = total;
    else if ((threadIdx.x & 31) == 31) next = static_cast<unsigned>(offsets[k + 1 - lo]);
    if (k < hi && next != o) write_own();
    return;
  }
  const int n = k < hi ? counts[k - lo] : 0;
  if (stage && end - base <= static_cast<unsigned>(kDupStage)) {  // uniform
    if (n > 0) {
      for_each_tile(c.pos_rad[k], v, tile, tiles_x, settled, [&](int tx, int ty) {
        s_key[o - base] = static_cast<Key>(ty * tiles_x + tx);
        s_id[o - base] = static_cast<unsigned>(k);
        ++o;
      });
    }
    __syncthreads();
    for (unsigned i = threadIdx.x; i < end - base; i += kDupThreads) {
      keys[base + i] = s_key[i];
      ids[base + i] = s_id[i];
    }
    return;
  }
  if (threadIdx.x == 0) s_nbig = 0;
  __syncthreads();
  if (n > kDupOwn) s_big[atomicAdd(&s_nbig, 1)] = k;
  else if (n > 0) write_own();
  __syncthreads();
  const float inv_scale = 1.f / v.scale;
  const int shift = __ffs(tile) - 1;
  for (int b = 0; b < s_nbig; ++b) {  // uniform
    const int kb = s_big[b];
    const float4 p = c.pos_rad[kb];
    const unsigned ob = static_cast<unsigned>(offsets[kb - lo]);
    const TileRect t = tile_rect(p.x, p.y, p.w, v, shift);
    const int w = t.x1 - t.x0 + 1, candidates = w * (t.y1 - t.y0 + 1);
    if (threadIdx.x == 0) s_fill = 0u;
    __syncthreads();
    for (int i = static_cast<int>(threadIdx.x); i < candidates; i += kDupThreads) {
      const int ty = t.y0 + i / w, tx = t.x0 + i % w;
      if (tile_pair_kept(p, v, inv_scale, tile, tiles_x, settled, tx, ty)) {
        const unsigned at = ob + atomicAdd(&s_fill, 1u);  // (warp-aggregated: a warp's pairs side by side)
        keys[at] = static_cast<Key>(ty * tiles_x + tx);
        ids[at] = static_cast<unsigned>(kb);
      }
    }
    __syncthreads();  // s_fill's next reset
  }
}

// Each tile's range of the sorted pairs: one streaming pass over the keys, bandwidth-bound.
// kRangesPer (eight) keys a thread in 16-byte loads (one for 16-bit keys, two for 32-bit), each
// compared with the one before it: a run starts where the key changes. A launch covers n keys in
// blocks of kRangesThreads * kRangesPer.
constexpr unsigned kRangesThreads = 256, kRangesPer = 8;
template <class Key>
__global__ void tile_ranges_kernel(const Key* keys, unsigned n, uint2* ranges) {
  constexpr unsigned kPer = kRangesPer;
  const unsigned i0 = (blockIdx.x * blockDim.x + threadIdx.x) * kPer;
  if (i0 >= n) return;
  Key k[kPer];
  if (i0 + kPer <= n) {  // keys + i0 is 16-byte aligned (i0 % 8 == 0; the buffers are cudaMalloc's)
    const uint4* at = reinterpret_cast<const uint4*>(keys + i0);
    uint4 words[sizeof(Key) * kPer / sizeof(uint4)];
#pragma unroll
    for (unsigned w = 0; w < sizeof(words) / sizeof(uint4); ++w) words[w] = at[w];
    memcpy(k, words, sizeof k);
  } else {
#pragma unroll
    for (unsigned j = 0; j < kPer; ++j) k[j] = i0 + j < n ? keys[i0 + j] : Key{};
  }
  unsigned prev = i0 > 0 ? static_cast<unsigned>(keys[i0 - 1]) : ~0u;
#pragma unroll
  for (unsigned j = 0; j < kPer; ++j) {
    const unsigned i = i0 + j;
    if (i >= n) break;
    const unsigned key = k[j];
    if (key != prev) {  // a run starts here, and the one before ends
      ranges[key].x = i;
      if (i > 0) ranges[prev].y = i;
    }
    prev = key;
  }
  if (i0 + kPer >= n) ranges[prev].y = n;  // the last run ends at n
}

// The launches of binning by sorting, in the order a chunk takes them.

// The count, grid-stride over the chunk: up to 8 blocks an SM.
inline void launch_count_tiles(const ChunkArgs& a, int sms, cudaStream_t stream) {
  const int blocks = std::min(std::max(1, (a.hi - a.lo + kCountThreads - 1) / kCountThreads), sms * 8);
  count_tiles_kernel<<<blocks, kCountThreads, 0, stream>>>(a.c, a.lo, a.hi, a.v, a.tile, a.tiles_x, a.settled, a.counts,
                                                           a.stats, a.step);
  CUDA_CHECK_LAUNCH();
}

// The chunk's `total` pairs at their scanned offsets, staged in shared memory where the circles
// have more than two pairs each on average.
template <class Key>
void launch_duplicate(const ChunkArgs& a, const int* offsets, unsigned total, Key* keys, unsigned* ids,
                      cudaStream_t stream) {
  const bool in_shared = total > 2ull * static_cast<unsigned long long>(a.hi - a.lo);
  const std::size_t stage_bytes = in_shared ? kDupStage * (sizeof(unsigned) + sizeof(Key)) : 0;
  duplicate_pairs_kernel<Key><<<(a.hi - a.lo + kDupThreads - 1) / kDupThreads, kDupThreads, stage_bytes, stream>>>(
      a.c, a.lo, a.hi, a.v, a.tile, a.tiles_x, a.settled, a.counts, offsets, total, in_shared, keys, ids);
  CUDA_CHECK_LAUNCH();
}

// CUB's stable radix sort of the `total` pairs by tile key (the bits of `tiles` only), its
// temporaries in `temp`; the sorted keys and ids are where keys.Current() and ids.Current() say.
template <class Key>
void sort_by_tile(cub::DoubleBuffer<Key>& keys, cub::DoubleBuffer<unsigned>& ids, unsigned total, unsigned tiles,
                  DeviceBuffer<unsigned char>& temp, cudaStream_t stream) {
  const int end_bit = tile_bits(tiles);
  std::size_t bytes = 0;
  CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, ids, static_cast<int>(total), 0, end_bit, stream));
  temp.reserve(bytes);
  CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.get(), bytes, keys, ids, static_cast<int>(total), 0, end_bit, stream));
}

// Each tile's [first, end) of the sorted pairs (empty for tiles with none).
template <class Key>
void launch_tile_ranges(const Key* keys, unsigned total, unsigned tiles, uint2* ranges, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(ranges, 0, tiles * sizeof(uint2), stream));
  constexpr unsigned per_block = kRangesThreads * kRangesPer;
  tile_ranges_kernel<Key><<<(total + per_block - 1) / per_block, kRangesThreads, 0, stream>>>(keys, total, ranges);
  CUDA_CHECK_LAUNCH();
}

}  // namespace circles::binned
