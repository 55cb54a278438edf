// cuda-tile-binned: the fast renderer. Two strategies, chosen per frame (binned_strategy() in
// kernels/config.h says which and why):
//  - direct (few circles): one kernel; each block walks all N circles and its warps cull them
//    against their own 8x8 pixels. No binning, so no fixed cost of six stages.
//  - binned: circles are binned into tiles (32x32 by default) before shading, so each tile reads
//    only the circles that touch it. Per chunk of circles, by counting where it fits:
//      count, per block of circles, the tiles its circles touch (a tile x block matrix) ->
//      exclusive scan over the matrix -> scatter: each block orders its pairs by tile in shared
//      memory and writes their ids to their slots (ranges from the matrix) -> per-tile shade;
//    else by sorting:
//      count tiles per circle (exact circle-tile test, 64-bit total) -> the host reads the total
//      -> exclusive scan (offsets) -> duplicate (tile, circle) pairs -> stable radix sort of
//      exactly `total` pairs by tile -> tile ranges -> per-tile shade.
//    A chunk is all circles unless its pairs exceed the pair budget; then it is halved until it
//    fits, so scratch memory is bounded whatever the scene. A frame's first chunk binned by
//    counting goes ahead of its count: the scatter checks the count on the device and the host
//    reads it after the shade (no host wait inside a one-chunk frame).
// The shade kernel (both strategies): a block per tile, a warp per 8x8 pixels, two pixels (one
// column, two rows) per lane (direct exact frames at tile 32: 8x16 pixels, four a lane). Each
// staged batch of circles is culled per warp with a ballot, so a warp only visits the circles
// that touch its own pixels (binned exact frames of small flat circles, rand1M's: culled once a
// block as the batch is staged, into each row group's mask); the coverage test is cpu-ref's,
// bit for bit, and the blend is one FMA per channel with the colour premultiplied at staging.
// Exact mode blends every circle back to front in order. Early-exit mode (--early-exit) walks
// the chunks from the last circle back, composites front to back, stops a pixel once its
// transmittance cannot move an 8-bit channel, a warp once its pixels have all stopped, a tile
// once its warps have, and bins the next chunk only into tiles that have not stopped.
// The scan is one of the kernel lab's device-wide exclusive scans over 32-bit counts (`--scan`;
// CUB's by default), handed in by the registry as a launcher.
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cuda_fp16.h>
#include <cuda_pipeline.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/config.h"
#include "kernels/cuda_renderer_base.cuh"
#include "kernels/cuda_renderers.h"
#include "kernels/dependent_launch.cuh"
#include "kernels/lab/lab_launch.h"
#include "kernels/lab/lab_util.cuh"
#include "kernels/tile_common.cuh"
#include "render/modes.h"
#include "render/renderer.h"

namespace circles {

namespace {

// The tiles whose pixel centres a circle's bounding box may reach (span_slack pixels of margin),
// clamped to the grid; empty (x0 > x1) when the box misses the image.
struct TileRect {
  int x0, y0, x1, y1;
};

// Pixel range [lo, hi] along one axis whose centres the box [c - r, c + r] may reach; false
// when it misses [0, n-1]. Compared in float before any conversion to int.
CIRCLES_HD bool axis_span(float c, float r, float scale, float off, int n, int* lo, int* hi) {
  const float slack = span_slack(c, r, scale);
  const float a = floorf((c - r) * scale + off - 0.5f - slack);
  const float b = ceilf((c + r) * scale + off - 0.5f + slack);
  if (b < 0.f || a > static_cast<float>(n - 1)) return false;
  *lo = a < 0.f ? 0 : static_cast<int>(a);
  *hi = b > static_cast<float>(n - 1) ? n - 1 : static_cast<int>(b);
  return true;
}

// Tiles are 2^tile_shift pixels a side (16 or 32): a shift, where a division by a tile size known
// only at run time cost the count about 20 instructions each, four a circle.
CIRCLES_HD TileRect tile_rect(float x, float y, float r, const View& v, int tile_shift) {
  TileRect t{0, 0, -1, -1};
  int i0, i1, j0, j1;
  if (!axis_span(x, r, v.scale, v.off_x, v.width, &i0, &i1) ||
      !axis_span(y, r, v.scale, v.off_y, v.height, &j0, &j1))
    return t;  // off image: empty
  t.x0 = i0 >> tile_shift;  // pixel indices are never negative here
  t.x1 = i1 >> tile_shift;
  t.y0 = j0 >> tile_shift;
  t.y1 = j1 >> tile_shift;
  return t;
}

// Whether the circle may cover a pixel centre of tile (tx, ty): cpu-ref's conservative
// circle-box test (render/raster.h) against the tile's extreme pixel centres, so the corners of
// a circle's bounding box that the circle misses get no pairs. Host and device.
// The tile's box is computed with a multiply by 1/scale instead of View's division: an ulp off
// at most, far inside circle_touches_box's slack, and a division fewer per corner.
CIRCLES_HD bool circle_touches_tile(float x, float y, float r, const View& v, float inv_scale, int tile, int tx,
                                    int ty) {
  const int i0 = tx * tile, j0 = ty * tile;
  const int i1 = (i0 + tile < v.width ? i0 + tile : v.width) - 1;
  const int j1 = (j0 + tile < v.height ? j0 + tile : v.height) - 1;
  const float x0 = (static_cast<float>(i0) + 0.5f - v.off_x) * inv_scale;
  const float x1 = (static_cast<float>(i1) + 0.5f - v.off_x) * inv_scale;
  const float y0 = (static_cast<float>(j0) + 0.5f - v.off_y) * inv_scale;
  const float y1 = (static_cast<float>(j1) + 0.5f - v.off_y) * inv_scale;
  return circle_touches_box(x, y, r, x0, y0, x1, y1);
}

// Whether circle p gets a pair for tile (tx, ty) of its tile_rect: it may touch the tile and,
// when `settled` is given, the tile has not stopped yet (early exit).
__device__ __forceinline__ bool tile_pair_kept(const float4& p, const View& v, float inv_scale, int tile, int tiles_x,
                                               const unsigned char* settled, int tx, int ty) {
  return (!settled || !settled[ty * tiles_x + tx]) && circle_touches_tile(p.x, p.y, p.w, v, inv_scale, tile, tx, ty);
}

// Calls f(tx, ty) for each tile of the circle's tile_rect that tile_pair_kept keeps. The one
// walk that count, scatter and duplicate share, so they agree (the duplicate's block-wide walk
// of a big circle visits the same rect with the same test). (Keeping a one-tile rect's tile
// untested made micro2M's count and scatter slower, 0.038 -> 0.041-0.046 and 0.063 -> 0.065 ms:
// its warps then ran both paths; docs/bench/shade3.)
// kRolled: a row's tiles one at a time. Unrolled (by four, the compiler's choice), the four
// columns' boxes were computed before the loop knew how many it had: most circles of micro2M and
// rand1M have one or two, and binning by counting's count and the duplicate were faster rolled
// (H100: micro2M 0.215 -> 0.212 ms, stress10M at 4K early exit's duplicate 0.179 -> 0.155), the
// sort's count (stress10M's circles span several tiles) slower (0.151 -> 0.177): it stays unrolled.
template <bool kRolled = true, class F>
__device__ __forceinline__ void for_each_tile(const float4& p, const View& v, int tile, int tiles_x,
                                              const unsigned char* settled, F&& f) {
  const TileRect t = tile_rect(p.x, p.y, p.w, v, __ffs(tile) - 1);
  const float inv_scale = 1.f / v.scale;
  for (int ty = t.y0; ty <= t.y1; ++ty) {
    if (kRolled) {
#pragma unroll 1
      for (int tx = t.x0; tx <= t.x1; ++tx)
        if (tile_pair_kept(p, v, inv_scale, tile, tiles_x, settled, tx, ty)) f(tx, ty);
    } else {
      for (int tx = t.x0; tx <= t.x1; ++tx)
        if (tile_pair_kept(p, v, inv_scale, tile, tiles_x, settled, tx, ty)) f(tx, ty);
    }
  }
}

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

// The device's per-frame numbers the host reads back after count: the chunk's exact 64-bit pair
// total, the most pairs of one block of circles (binning by counting), and how many tiles the
// last shade left unsettled (early exit). The count clears the first two.
struct ChunkStats {
  unsigned long long total;
  unsigned long long max_block;
  unsigned long long unsettled;
};

// Grid-stride over the chunk's circles [lo, hi): how many tiles each touches, as a 32-bit count
// for the lab's scans (at most the image's tiles), and their exact 64-bit sum, added to
// stats->total once per block. Memory-bound for small circles; a big circle's thread walks its
// whole bounding box (load imbalance). With a step (the frame's first count, over every
// circle), each thread first moves its circle, in place, and counts where it moved to: the
// animation's own kernel launch saved.
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
  for (int d = 16; d > 0; d >>= 1) sum += __shfl_down_sync(lab::kFullMask, sum, d);
  if (lane == 0) s_warp[warp] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long block = 0;
#pragma unroll
    for (int w = 0; w < kCountThreads / 32; ++w) block += s_warp[w];
    if (block) atomicAdd(&stats->total, block);
  }
}

// The duplicate: a block of 256 circles of the chunk writes a (tile, circle) pair for each tile
// each circle touches, at its scanned offset, so pairs come out in circle order (the order of a
// circle's own pairs does not matter: the stable sort by tile keeps each tile's circles in
// circle order). The host ran this chunk only because its total fits the buffers, so the 32-bit
// offsets are exact. Where the chunk's circles have a few pairs each (more than two on average:
// `stage`, and the host then gives the kernel kDupStage pairs of shared memory) and a block's
// fit, each thread walks its circle's tiles into shared memory and the block then copies them
// out contiguously: coalesced stores, where a thread's own run of pairs made every store
// instruction of a warp touch a dozen sectors (H100, stress10M at 3840x2160: duplicate 0.89 ->
// 0.25 ms). Else each thread writes its circle's pairs itself (a pair or two a circle are nearly
// contiguous across a warp already; and a chunk of such circles keeps the L1 cache that the
// shared memory would take: early exit's later chunks, which read the settled tiles, ran 2.5x
// slower with it), except, in a block of more pairs than it can stage, a circle of more than
// kDupOwn (biglittle's big circles at tile 16: a thousand), which the whole block takes, its
// candidate tiles tested side by side, so that no thread walks a thousand tiles alone.
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
    if (k < hi) write_own();
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

// Where each tile's run of sorted pairs starts and ends: eight pairs a thread (one 16-byte load
// of 16-bit keys), each compared with the one before it. Bandwidth-bound.
template <class Key>
__global__ void tile_ranges_kernel(const Key* keys, unsigned n, uint2* ranges) {
  constexpr unsigned kPer = 8;
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

// Binning by counting (where it fits; the sort above is the fallback). The chunk's circles go
// in blocks of `per_block` (at most kBinMaxCircles); the count writes, per block, how many of its
// circles touch each tile into a tile-major matrix (matrix[tile * blocks + block]), so one
// exclusive scan over the matrix gives every (tile, block) its first slot in the tile-ordered
// pair list; the scatter then writes each block's circle ids straight to their slots. No global
// sort, no keys in memory, and the tile ranges come from the scanned matrix.
constexpr int kBinThreads = 256;
constexpr int kBinItems = 8;                             // pairs a thread in the scatter's block sort
constexpr int kBinCapacity = kBinThreads * kBinItems;    // pairs a block of circles may have
// The scatter's smaller sort, for blocks whose pairs fit it (micro2M: about 1,100 pairs a block
// of 1,024 circles, so the sort of 2,048 slots was half padding).
constexpr int kBinItemsFew = 5;
constexpr int kBinCapacityFew = kBinThreads * kBinItemsFew;
constexpr int kBinLocalBits = 10;                        // a circle's index in its block
constexpr int kBinMaxCircles = 1 << kBinLocalBits;       // circles a block
constexpr int kBinMaxTiles = 4096;                       // tiles (a 16 KB histogram in shared memory)
constexpr long long kBinMaxMatrix = 1ll << 22;           // tiles x blocks (16 MB; twice, scanned)
constexpr int kBinMaxColumns = 8;                        // matrix columns a count block (a power of two)
static_assert((kBinMaxColumns & (kBinMaxColumns - 1)) == 0, "the count writes the matrix by shifts");
constexpr int kBinCountThreads = 1024;                   // threads a count block
constexpr int kBinHistInts = 8192;                       // columns x tiles in the count's shared memory

// The count for binning by counting: `columns` blocks of `per_block` circles of [lo, hi) a
// thread block (blocks * columns matrix columns in all); each circle's tiles counted into its
// column's shared histogram (shared atomics) and into counts (the fallback's per-circle counts);
// then the histograms are written as the matrix's columns, each tile's `columns` entries side
// by side (one 32-byte sector for eight, where one entry a column would be a sector each), and
// each column's pair total goes into stats (sum and maximum: the host checks it fits the
// scatter's kBinCapacity). Memory-bound on the circles and the matrix; 1024 threads, so that
// two blocks of eight columns fill an SM.
__global__ void __launch_bounds__(kBinCountThreads)
    count_tile_blocks_kernel(DeviceCircles c, int lo, int hi, int per_block, int columns, int blocks, View v,
                             int tile, int tiles_x, int tiles, const unsigned char* settled, int* counts, int* matrix,
                             ChunkStats* stats, FusedStep step) {
  extern __shared__ int s_hist[];  // columns x tiles
  __shared__ unsigned s_total[kBinMaxColumns];
  if (settled && stats->unsettled == 0) return;  // the frame is done (see count_tiles_kernel)
  for (int t = threadIdx.x; t < columns * tiles; t += kBinCountThreads) s_hist[t] = 0;
  if (threadIdx.x < kBinMaxColumns) s_total[threadIdx.x] = 0;
  __syncthreads();
  const int column0 = static_cast<int>(blockIdx.x) * columns;
  const int first = lo + column0 * per_block;
  const int end = min(hi, first + columns * per_block);
  const int block_shift = __ffs(per_block) - 1;  // per_block is a power of two
  for (int k = first + static_cast<int>(threadIdx.x); k < end; k += kBinCountThreads) {
    const int g = (k - first) >> block_shift;
    int* hist = s_hist + g * tiles;
    int n = 0;
    for_each_tile(counted_circle(c, k, step), v, tile, tiles_x, settled, [&](int tx, int ty) {
      atomicAdd(&hist[ty * tiles_x + tx], 1);
      ++n;
    });
    counts[k - lo] = n;
    if (n) atomicAdd(&s_total[g], static_cast<unsigned>(n));
  }
  __syncthreads();
  const int mine = min(columns, blocks - column0);  // this block's columns
  // A tile's kBinMaxColumns entries a step of the loop (those past `mine` skipped): shifts, where
  // dividing by `mine` took about 20 instructions an entry.
  for (int i = threadIdx.x; i < tiles * kBinMaxColumns; i += kBinCountThreads) {
    const int t = i / kBinMaxColumns, g = i % kBinMaxColumns;
    if (g < mine) matrix[static_cast<long long>(t) * blocks + column0 + g] = s_hist[g * tiles + t];
  }
  if (threadIdx.x < mine && s_total[threadIdx.x]) {
    atomicAdd(&stats->total, static_cast<unsigned long long>(s_total[threadIdx.x]));
    atomicMax(&stats->max_block, static_cast<unsigned long long>(s_total[threadIdx.x]));
  }
}

// The scatter for binning by counting, a block per block of circles (as counted): each thread
// takes up to four consecutive circles, a block scan of their counts places every circle's
// (tile, index) keys in circle order in shared memory, a block radix sort on the tile bits
// alone (stable, so each tile's circles stay in order) groups them by tile, and each key's id
// goes to its tile's slot for this block (from the scanned matrix) plus its rank in the tile.
// Every block also writes a share of the tile ranges. Per pair: a walk step, a shared store,
// the block sort's few passes and one coalesced-by-tile global store. The count's total and
// worst block are checked before anything is written: when the pairs do not fit `capacity` ids
// or a block's do not fit the sort (the host went ahead without reading them), every range is
// empty, nothing else is written, and the host does the chunk again. kItems: pairs a thread in the block sort
// (kBinItems, or kBinItemsFew where the host expects a block's pairs to fit).
template <int kItems>
__global__ void __launch_bounds__(kBinThreads)
    scatter_tile_blocks_kernel(DeviceCircles c, int lo, int hi, int per_block, View v, int tile, int tiles_x,
                               int tiles, int tile_bits, const unsigned char* settled, const int* counts,
                               const int* offsets, const ChunkStats* stats, unsigned long long capacity,
                               unsigned* ids, uint2* ranges) {
  constexpr int kCapacity = kBinThreads * kItems;
  using Sort = cub::BlockRadixSort<unsigned, kBinThreads, kItems, cub::NullType, 5>;
  using Scan = cub::BlockScan<int, kBinThreads>;
  __shared__ union {
    typename Sort::TempStorage sort;
    typename Scan::TempStorage scan;
  } s_tmp;
  __shared__ unsigned s_keys[kCapacity];
  extern __shared__ int s_base[];  // tiles: a tile's first slot for this block, less its first rank
  const int blocks = static_cast<int>(gridDim.x), b = static_cast<int>(blockIdx.x);
  // Launched dependent after the scan (kernels/dependent_launch.cuh): its offsets are read after
  // the wait. Once every block is here, the shade's blocks may start in the room this kernel's
  // last blocks leave (they wait for it to finish before they read the ranges and ids).
  wait_for_prior_grid();
  allow_dependent_launch();
  const int first = lo + b * per_block;
  const int n = min(hi, first + per_block) - first;
  constexpr int kPer = kBinMaxCircles / kBinThreads;
  const int per = (n + kBinThreads - 1) / kBinThreads;  // circles a thread, at most kPer
  const int mine = static_cast<int>(threadIdx.x) * per;
  int count[kPer], sum = 0;
  // The circles' counts and positions are loaded first, beside the count's stats (no load waits
  // on another; a chunk that does not fit drops them), and their latency overlaps the scan's.
  float4 q[kPer];
#pragma unroll
  for (int j = 0; j < kPer; ++j) {
    const bool here = j < per && mine + j < n;
    count[j] = here ? counts[first - lo + mine + j] : 0;
    q[j] = here ? c.pos_rad[first + mine + j] : make_float4(0.f, 0.f, 0.f, 0.f);
    sum += count[j];
  }
  const unsigned long long total = stats->total;
  const bool fits = total <= capacity && stats->max_block <= static_cast<unsigned long long>(kCapacity);
  for (int t = b * kBinThreads + static_cast<int>(threadIdx.x); t < tiles; t += blocks * kBinThreads) {
    const long long at = static_cast<long long>(t) * blocks;
    ranges[t] = fits ? make_uint2(static_cast<unsigned>(offsets[at]),
                                  t + 1 < tiles ? static_cast<unsigned>(offsets[at + blocks]) : static_cast<unsigned>(total))
                     : make_uint2(0u, 0u);
  }
  if (!fits) return;  // uniform across the block
  int slot = 0, pairs = 0;
  Scan(s_tmp.scan).ExclusiveSum(sum, slot, pairs);
#pragma unroll
  for (int j = 0; j < kPer; ++j) {
    if (count[j] == 0) continue;
    const unsigned local = static_cast<unsigned>(mine + j);
    for_each_tile(q[j], v, tile, tiles_x, settled, [&](int tx, int ty) {
      if (slot < kCapacity) s_keys[slot] = static_cast<unsigned>(ty * tiles_x + tx) << kBinLocalBits | local;
      ++slot;
    });
  }
  __syncthreads();
  unsigned key[kItems];
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const int p = static_cast<int>(threadIdx.x) * kItems + j;  // blocked: the sort is stable in this order
    key[j] = p < pairs ? s_keys[p] : ~0u;
  }
  __syncthreads();  // the sort's storage is the scan's
  Sort(s_tmp.sort).SortBlockedToStriped(key, kBinLocalBits, kBinLocalBits + tile_bits);
#pragma unroll
  for (int j = 0; j < kItems; ++j) s_keys[j * kBinThreads + threadIdx.x] = key[j];  // striped
  __syncthreads();
  // Each run's first key takes its tile's slot for this block from the scanned matrix. The
  // kItems loads are all issued before the first is used (a padding key or a run's later key
  // loads tile 0's entry, which it drops): one conditional load an item, each waiting on the
  // last, was a third of the kernel's stall samples (Nsight Compute, rand1M).
  int base[kItems];
  bool head[kItems];
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const int p = j * kBinThreads + static_cast<int>(threadIdx.x);
    const int t = static_cast<int>(key[j] >> kBinLocalBits);
    head[j] = p < pairs && (p == 0 || static_cast<int>(s_keys[p - 1] >> kBinLocalBits) != t);
    base[j] = offsets[static_cast<long long>(head[j] ? t : 0) * blocks + b];
  }
#pragma unroll
  for (int j = 0; j < kItems; ++j)
    if (head[j]) s_base[key[j] >> kBinLocalBits] = base[j] - (j * kBinThreads + static_cast<int>(threadIdx.x));
  __syncthreads();
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const int p = j * kBinThreads + static_cast<int>(threadIdx.x);
    if (p < pairs)
      ids[s_base[key[j] >> kBinLocalBits] + p] = static_cast<unsigned>(first) + (key[j] & (kBinMaxCircles - 1u));
  }
}

// The block's exclusive scan of P flags a thread, item u * blockDim + thread (u-major, so the
// loads behind the flags coalesce), in two halves: ballot_count_flags writes each warp's counts
// to warp_totals (P * kWarps ints), waits at one barrier and returns the block's count;
// ballot_slots then gives each set flag its slot, in item order, from the same warp_totals, which
// must not be rewritten before the barrier after it (the lab's ballot scan,
// lab::ballot_exclusive_scan_flags, P ballots at a time). ballot_scan_flags does both at once.

// The warps' counts (warp_totals[u * kWarps + w], at most 32) scanned by every warp itself: lane
// l takes count l, an inclusive warp scan, and item u's first slot for this warp is the exclusive
// prefix at u * kWarps + warp (a shuffle); *all is the block's count. About 25 instructions a
// thread where summing the counts one by one, with a select for "warps before this one", took
// 130 at 8 warps x 4 items (Nsight Compute, pattern: a fifth of the direct kernel's instructions).
template <int kWarps, int P>
__device__ __forceinline__ void warp_count_bases(const int* warp_totals, unsigned (&base)[P], unsigned* all) {
  constexpr int kCounts = kWarps * P;
  static_assert(kCounts <= 32, "one count a lane");
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const unsigned own = lane < kCounts ? static_cast<unsigned>(warp_totals[lane]) : 0u;
  unsigned incl = own;
#pragma unroll
  for (int d = 1; d < kCounts; d <<= 1) {
    const unsigned t = __shfl_up_sync(lab::kFullMask, incl, d);
    if (lane >= d) incl += t;
  }
  const unsigned excl = incl - own;
#pragma unroll
  for (int u = 0; u < P; ++u) base[u] = __shfl_sync(lab::kFullMask, excl, u * kWarps + warp);
  *all = __shfl_sync(lab::kFullMask, incl, kCounts - 1);
}

template <int kWarps, int P>
__device__ __forceinline__ unsigned ballot_count_flags(const bool (&flag)[P], int* warp_totals) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int u = 0; u < P; ++u) {
    const unsigned ballot = __ballot_sync(lab::kFullMask, flag[u]);
    if (lane == 0) warp_totals[u * kWarps + warp] = __popc(ballot);
  }
  __syncthreads();
#if __CUDA_ARCH__ >= 800
  // The block's count: one warp reduction (REDUX) of the counts, a count a lane.
  return __reduce_add_sync(lab::kFullMask, lane < kWarps * P ? static_cast<unsigned>(warp_totals[lane]) : 0u);
#else
  unsigned base[P], all;
  warp_count_bases<kWarps, P>(warp_totals, base, &all);
  return all;
#endif
}

template <int kWarps, int P>
__device__ __forceinline__ void ballot_slots(const bool (&flag)[P], unsigned (&slot)[P], const int* warp_totals) {
  const int lane = threadIdx.x & 31;
  const unsigned below = (1u << lane) - 1u;
  unsigned base[P], all;
  warp_count_bases<kWarps, P>(warp_totals, base, &all);
#pragma unroll
  for (int u = 0; u < P; ++u) slot[u] = base[u] + __popc(__ballot_sync(lab::kFullMask, flag[u]) & below);
}

// Both halves at once, the ballots kept across the barrier. (Written out, not built from the two
// halves: their second ballot after the barrier cost the two-pixel kernels 2-3 registers and
// spills, nvcc -Xptxas -v.)
template <int kWarps, int P>
__device__ __forceinline__ unsigned ballot_scan_flags(const bool (&flag)[P], unsigned (&slot)[P], int* warp_totals) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const unsigned below = (1u << lane) - 1u;
  unsigned ballot[P];
#pragma unroll
  for (int u = 0; u < P; ++u) {
    ballot[u] = __ballot_sync(lab::kFullMask, flag[u]);
    if (lane == 0) warp_totals[u * kWarps + warp] = __popc(ballot[u]);
  }
  __syncthreads();
  unsigned base[P], all;
  warp_count_bases<kWarps, P>(warp_totals, base, &all);
#pragma unroll
  for (int u = 0; u < P; ++u) slot[u] = base[u] + __popc(ballot[u] & below);
  return all;
}

// circle_touches_box_sq (render/raster.h) with its clamp as fminf/fmaxf: two min/max
// instructions an axis where clampf's comparisons take four, the same result for every finite
// centre (a NaN one is culled either way). The warps' culling only: in the binning kernels and the
// direct frames' tile culling the same change moved registers and made them spill (nvcc -Xptxas -v).
// The distance fused as coverage_d2's (one instruction fewer; the culling radius's slack is many
// ulps wide, so fused or not it never drops a circle that the pixels' test would draw).
__device__ __forceinline__ bool warp_box_touched(float cx, float cy, float cull_rr, float x0, float y0, float x1,
                                                 float y1) {
  const float dx = cx - fminf(fmaxf(cx, x0), x1);
  const float dy = cy - fminf(fmaxf(cy, y0), y1);
  return coverage_d2(dx, dy) <= cull_rr;
}

// The row groups' boxes of a 32x32 tile that a circle may touch, one bit each: bit 8c + b for the
// box of columns 8c .. 8c + 7 and rows 4b .. 4b + 3 (the tile's warps are 8 columns x 16 rows, its
// row groups 8 x 4). Per column of boxes: the nearest column's x distance (clamped to the
// columns' pixel centres, cx0[c] .. cx1[c]), the circle's half-height h there from the culling
// radius^2, and the boxes whose rows' centres it may reach: box b holds rows 4b .. 4b + 3 (in
// tile rows from the first row's centre, where `ty` is the circle's centre), so it is touched when
// 4b + 3 >= ty - h and 4b <= ty + h, with a 64th of a row of slack at each end. The boxes lo ..
// hi1 - 1 are then bmsk(8c, hi1) without bmsk(8c, lo), lo clamped to 0 and hi1 to 0 .. `boxes`
// (the tile's boxes in the image) before the conversion, so an empty range gives no bits. A
// column the circle misses has h2 < 0, and h2 * rsqrt(1e-30) is a huge negative half-height: an
// empty range, no branch. Conservative like warp_box_touched: every pixel that cpu-ref's test
// covers lies in a box whose bit is set (the culling radius's slack, 1e-4 of the radius, covers
// the rounding of dx, h2 and the rsqrt; the 64th, the rows' centres being a few ulps off
// y0 + t / scale, up to 16384 rows).
__device__ __forceinline__ unsigned row_box_bits(float qx, float ty, float cull_rr, const float4& cx0,
                                                 const float4& cx1, float quarter_scale, float boxes) {
  constexpr float kRowSlack = 1.f / 64.f;
  // In boxes, for h = 0: the first box that may hold a row >= ty - h, and one past the last box
  // that may hold a row <= ty + h.
  const float lo0 = (ty - 3.f - kRowSlack) * 0.25f, hi0 = (ty + kRowSlack) * 0.25f + 1.f;
  const float x0[4] = {cx0.x, cx0.y, cx0.z, cx0.w}, x1[4] = {cx1.x, cx1.y, cx1.z, cx1.w};
  unsigned bits = 0u;
#pragma unroll
  for (int c = 0; c < 4; ++c) {
    const float dx = qx - fminf(fmaxf(qx, x0[c]), x1[c]);
    const float h2 = __fmaf_rn(-dx, dx, cull_rr);
    float rs;  // 1 / sqrt, approximate (the slack covers it); h2 = 0 gives a half-height of 0
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(rs) : "f"(fmaxf(h2, 1e-30f)));
    const float h = h2 * rs;
    const int lo = __float2int_ru(fmaxf(__fmaf_rn(h, -quarter_scale, lo0), 0.f));
    const int hi1 = __float2int_rd(fminf(fmaxf(__fmaf_rn(h, quarter_scale, hi0), 0.f), boxes));
    unsigned below_hi, below_lo;
    asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(below_hi) : "r"(8 * c), "r"(hi1));
    asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(below_lo) : "r"(8 * c), "r"(lo));
    bits |= below_hi & ~below_lo;
  }
  return bits;
}

// The 32x32 bit matrix of a warp transposed: lane l holds row l (bit b: column b) and gets
// column l (bit b: row b's bit l). Five exchanges of half-blocks (the recursive transpose).
__device__ __forceinline__ unsigned transpose_bits(unsigned x, int lane) {
#pragma unroll
  for (int s = 16; s > 0; s >>= 1) {
    const unsigned m = s == 16 ? 0x0000ffffu : s == 8 ? 0x00ff00ffu : s == 4 ? 0x0f0f0f0fu : s == 2 ? 0x33333333u : 0x55555555u;
    const unsigned y = __shfl_xor_sync(lab::kFullMask, x, s);
    x = lane & s ? (x & ~m) | ((y >> s) & m) : (x & m) | ((y << s) & ~m);
  }
  return x;
}

// Shared-memory loads at a 32-bit shared address (shared_address): loop-carried addresses that
// ptxas keeps in registers instead of rebuilding them from a pointer's parts. Volatile, so that
// they stay after the barrier that publishes what they read.
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ unsigned lds_u32(unsigned at) {
  unsigned v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(at));
  return v;
}
__device__ __forceinline__ float2 lds_f2(unsigned at) {
  float2 v;
  asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "r"(at));
  return v;
}
__device__ __forceinline__ float4 lds_f4(unsigned at) {
  float4 v;
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "r"(at));
  return v;
}

// 1 << bit in one instruction (PTX bmsk, a 1-bit mask at `bit`): the walk's `1u << bit` kept the
// constant 1 in no register at 64 and reloaded it every visit (Nsight Compute, rand1M).
__device__ __forceinline__ unsigned bit_mask(int bit) {
  unsigned m;
  asm("bmsk.clamp.b32 %0, %1, 1;" : "=r"(m) : "r"(bit));
  return m;
}

// Exact mode's blend of one circle over a pixel, back to front: c = keep * c + colour (premultiplied;
// keep = 1 - a), alpha summed as cpu-ref sums it. One FMA a channel, the same bits in the warps'
// walk (tested or box-covering circles) and the tiny-circle kernel.
__device__ __forceinline__ void blend_over(Float4& c, float keep, const float4& col) {
  c.x = __fmaf_rn(keep, c.x, col.x);
  c.y = __fmaf_rn(keep, c.y, col.y);
  c.z = __fmaf_rn(keep, c.z, col.z);
  c.w += col.w;
}

// The eight-pixel walk's pixel in half precision (shade_rows8_kernel<kHalf>): R and G in one
// half2, B beside the batch's alpha sum in another, so that a blend is two half FMAs (HFMA2: the
// colour by keep, the alpha by 1) where float channels take four; the alpha's float sum takes
// each batch's (at most 128 alphas, multiples of 1/16 from 1/2 to 1: exact in half, and so the
// same sum as cpu-ref's). Only where every colour and the background lie in [0, 1] and every
// alpha is such a multiple (the renderer checks at load): each blend's rounding is then at most
// 2^-12 for the colour and 2^-12 for its premultiplied colour, and at keep <= 1/2 the error
// stays under 2^-11 / (1 - keep) = 2^-10 (9.8e-4) of cpu-ref's float channels.
struct HalfPixel {
  __half2 rg, ba;  // (r, g); (b, the batch's alpha)
  float a;         // the alpha's sum before this batch
};
__device__ __forceinline__ void pixel_set(Float4& p, const float4& c) { p = Float4{c.x, c.y, c.z, c.w}; }
__device__ __forceinline__ void pixel_set(HalfPixel& p, const float4& c) {
  p.rg = __floats2half2_rn(c.x, c.y);
  p.ba = __floats2half2_rn(c.z, 0.f);
  p.a = c.w;
}
__device__ __forceinline__ float4 pixel_get(const Float4& p) { return make_float4(p.x, p.y, p.z, p.w); }
// (After pixel_end_batch, or before any blend: the batch's alpha is 0, p.a the whole sum.)
__device__ __forceinline__ float4 pixel_get(const HalfPixel& p) {
  return make_float4(__low2float(p.rg), __high2float(p.rg), __low2float(p.ba), p.a);
}
// The batch's alpha into the float sum (half pixels; after each batch).
__device__ __forceinline__ void pixel_end_batch(HalfPixel& p) {
  p.a += __high2float(p.ba);
  p.ba = __halves2half2(__low2half(p.ba), __float2half_rn(0.f));
}
__device__ __forceinline__ unsigned half2_bits(float x, float y) {
  const __half2 h = __floats2half2_rn(x, y);
  return *reinterpret_cast<const unsigned*>(&h);
}
__device__ __forceinline__ __half2 bits_half2(float v) {
  const unsigned u = __float_as_uint(v);
  return *reinterpret_cast<const __half2*>(&u);
}

// A pixel stops (early exit) once the light still coming through it (its transmittance) is
// under half an 8-bit step: whatever lies below can then move no channel by half a step.
constexpr float kSettledTransmittance = 0.5f / 255.f;

// What the shade kernel reads besides the circles and the frame.
struct ShadeArgs {
  const uint2* ranges = nullptr;  // binned: per tile [begin, end) into ids; nullptr: direct
  const unsigned* ids = nullptr;
  int lo = 0, hi = 0;             // direct: the circles [lo, hi)
  bool first = true, last = true;  // this chunk's place in the frame's order
  float* transmittance = nullptr;  // early exit: per pixel, between chunks
  unsigned char* settled = nullptr;  // early exit: per tile, 1 once every pixel stopped
  ChunkStats* stats = nullptr;       // early exit: unsettled tiles are counted here
  unsigned long long* work = nullptr;  // counting: [0] pixel tests, [1] blends
  // Direct frames: the frame's animation step, done on the way (the circles are read as they
  // were, each block moves those it stages, and block-strided threads write the new state).
  FusedStep step;
};

// Counting kernels: a warp's pixel tests and blends summed (shuffles) and added to a.work by its
// first lane.
__device__ __forceinline__ void add_work(const ShadeArgs& a, unsigned long long tests, unsigned long long blends) {
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) {
    tests += __shfl_down_sync(lab::kFullMask, tests, d);
    blends += __shfl_down_sync(lab::kFullMask, blends, d);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&a.work[0], tests);
    atomicAdd(&a.work[1], blends);
  }
}

// One lane's R pixels (one column, R rows) and their state: exact mode keeps the colour (rgb,
// alpha sum); early exit the colour composited so far (premultiplied rgb, alpha sum) and the
// transmittance.
template <int R>
struct LanePixels {
  static constexpr int kRows = R;
  int i, j[R];
  float px, py[R];
  bool in[R];  // inside the image
  Float4 c[R];
  float t[R];
  float bg_w[R];  // early exit: the background's alpha (the stop test); its colour is re-read at the end
  bool done[R];
  __device__ __forceinline__ bool all_done() const {
    bool d = true;
#pragma unroll
    for (int r = 0; r < R; ++r) d = d && done[r];
    return d;
  }
  __device__ __forceinline__ int open_in_image() const {  // pixels still blending
    int n = 0;
#pragma unroll
    for (int r = 0; r < R; ++r) n += in[r] && !done[r];
    return n;
  }
};

// Early exit: a run of consecutive circles that each cover a warp's whole box (flat shading):
// their blends compose into one affine map per channel, the same for every pixel of the box,
// applied front to back (acc += t * add, t *= a_mul) when a circle that needs the per-pixel test
// comes, or at the end, with the stop test once a run instead of once a circle. Every lane keeps
// the same copy (warp-uniform work); the reassociation moves the result by float rounding only.
// (Exact mode blends such circles at once: see kFoldRuns.)
struct FullRun {
  float a_mul = 1.f;
  float add_x = 0.f, add_y = 0.f, add_z = 0.f, alpha = 0.f;
  // Adds the map (keep, col) below what is pending: one circle (keep = 1 - a) or a run composed
  // already.
  __device__ __forceinline__ void add(float keep, const float4& col) {
    add_x = __fmaf_rn(a_mul, col.x, add_x);
    add_y = __fmaf_rn(a_mul, col.y, add_y);
    add_z = __fmaf_rn(a_mul, col.z, add_z);
    a_mul *= keep;
    alpha += col.w;
  }
  template <class Pixels>
  __device__ __forceinline__ void flush(Pixels& p) {
    // Nothing to apply: alphas are in [0, 1], so a run whose alphas sum to 0 is the identity map
    // (every keep factor 1, every premultiplied colour 0); no counter to keep a circle.
    if (alpha == 0.f) return;  // uniform
#pragma unroll
    for (int r = 0; r < Pixels::kRows; ++r) {
      if (p.done[r]) continue;
      p.c[r].x = __fmaf_rn(p.t[r], add_x, p.c[r].x);
      p.c[r].y = __fmaf_rn(p.t[r], add_y, p.c[r].y);
      p.c[r].z = __fmaf_rn(p.t[r], add_z, p.c[r].z);
      p.t[r] *= a_mul;
      p.c[r].w += alpha;
      p.done[r] = p.t[r] < kSettledTransmittance && p.bg_w[r] + p.c[r].w >= 1.f;
    }
    *this = FullRun{};
  }
};

// One block per TILE x TILE tile, one warp per 8 x (4 kRows) pixels (8x8: two pixels, one column
// and two rows, per lane; 8x16 with kRows = 4). Circles are staged in batches (one per thread:
// position, radius^2, premultiplied colour), each warp ballots which of a group of 32 touch its
// box and walks only those (in order, or backwards for early exit). Fast because a warp's lanes
// do a visited circle's test and blend at ~65% occupancy (rand1M) instead of testing every
// circle of the tile at every pixel, a lane's pixels share a staged load and dx, and each blend
// is 3 FMAs and an add. kRows = 4 (exact frames at tile 32) halves the threads, so twice
// the blocks fit an SM at once (four of 256): a direct frame is a few waves of blocks that each
// wait on the same chain of loads and barriers, and half the waves, with half the warps culling
// each batch, is the gain (H100: rgb 0.016 -> 0.015 ms, pattern 0.028 -> 0.023, biglittle 0.49 ->
// 0.38). Binned exact frames of flat circles at tile 32 take four as well where they compose runs
// (half the warps culling each batch, a visit's pick and loads shared by four pixels: rand100k
// 0.54 -> 0.50 ms; snow's per-pixel alpha lost), and eight where they do not (shade_rows8_kernel:
// rand1M, stress10M). Tile 16 and early exit keep two: early exit's extra state would not fit 64
// registers.
// kCompose: 0 none, 1 runs of circles covering a warp's box, 2 also runs covering the whole
// tile, pre-composed per group of 32 staged circles. kStep: the frame's animation step fused
// (a.step; direct exact flat frames at four pixels a lane only): its own instantiations, so the
// kernels of still frames carry none of its code (which made them 5-10% slower: pattern,
// rand10k).
// The blocks an SM that each shade kernel is built for, and so its registers (65,536 / threads
// / blocks): at tile 16 six of 256 threads (80 registers); at tile 32 two of 512 (two pixels a
// lane) or four of 256 (four: 64 registers). The direct frames that walk per row group take four:
// three made them slower (16,000 circles of radius 4-12 pixels 0.070-0.076 -> 0.084-0.090 ms,
// shade9/ab_direct_blocks.log), as they did the kernels that compose runs (rand100k, biglittle and
// rand10k 5-15%).
// Whether a shade kernel walks per row group of 8 lanes (its kSubBoxes): exact frames of flat
// circles at four pixels a lane that compose no runs.
CIRCLES_HD constexpr bool walks_row_groups(Shading s, int rows, bool early, int compose) {
  return s == Shading::Flat && rows == 4 && !early && compose == 0;
}
constexpr int shade_blocks_per_sm(int tile, int rows) { return tile != 32 ? 6 : rows; }

// The tile a block of the shade takes: blocks are started in index order, so the image's border
// tiles (cut by its edges, or reaching past them: fewer pairs in scenes spread evenly) go last,
// where the last wave's stragglers decide when the kernel ends; the inner tiles first, row by row.
struct TileXY {
  int x, y;
};
__device__ __forceinline__ TileXY edges_last_tile(int nx, int ny) {
  int l = static_cast<int>(blockIdx.y * gridDim.x + blockIdx.x);
  if (nx < 3 || ny < 3) return {l % nx, l / nx};
  const int inner = (nx - 2) * (ny - 2);
  if (l < inner) return {1 + l % (nx - 2), 1 + l / (nx - 2)};
  l -= inner;
  if (l < nx) return {l, 0};                                // the top row
  l -= nx;
  if (l < nx) return {l, ny - 1};                           // the bottom row
  l -= nx;
  return {l < ny - 2 ? 0 : nx - 1, 1 + l % (ny - 2)};       // the left, then the right column
}

// The tile's pixel centres (s_px, s_py) and its rows' background colours (s_bg), each computed
// once a block by a thread of its own, threads 0 .. 3 TILE - 1 (View's division, the gradient's);
// false for the other threads. Rows below the image (a partial tile) take the last row's
// background, as their pixels never show.
template <int TILE>
__device__ __forceinline__ bool stage_tile_centres(int t, TileXY txy, const FrameParams& f, float* s_px, float* s_py,
                                                   float4* s_bg) {
  const View& v = f.view;
  if (t < TILE) {
    s_px[t] = v.pixel_x(txy.x * TILE + t);
  } else if (t < 2 * TILE) {
    s_py[t - TILE] = v.pixel_y(txy.y * TILE + t - TILE);
  } else if (t < 3 * TILE) {
    const Float4 bg = background_at(f.background, min(txy.y * TILE + t - 2 * TILE, v.height - 1), v.height);
    s_bg[t - 2 * TILE] = make_float4(bg.x, bg.y, bg.z, bg.w);
  } else {
    return false;
  }
  return true;
}

template <Shading S, int TILE, bool kEarly, bool kCount, int kCompose, int kRows, bool kStep = false>
__global__ void __launch_bounds__(TILE * TILE / kRows,
                                  shade_blocks_per_sm(TILE, kRows))
    shade_kernel(DeviceCircles c, FrameParams f, ShadeArgs a) {
  constexpr int kThreads = TILE * TILE / kRows;
  constexpr int kWarpsX = TILE / 8;
  constexpr int kBoxH = 4 * kRows;  // the warp box's height in pixels
  static_assert(S == Shading::Flat || !kCompose, "snow's alpha differs per pixel: nothing to compose");
  // Where a box-covering circle goes: folded into a pending run (FullRun) in early exit, blended
  // at once, untested, in exact mode. Folding cost every visit its predicated fold and a partly
  // covering circle after a run its flush and reset (Nsight Compute, binned exact frames: runs of
  // 2 box-covering circles a flush on stress10M at 4K, 3.3 on rand100k), where blending a lane's
  // pixels is 4 instructions each (H100: stress10M at 4K 18.6 -> 15.7 ms at two pixels a lane,
  // 15.1 -> 13.1 at four; rand100k 0.50 -> 0.47 at four; biglittle's long runs no slower).
  constexpr bool kFoldRuns = kCompose && kEarly;
  // Exact direct frames of flat circles at four pixels a lane that compose no runs (median radius
  // under 16 pixels; binned ones under one tile take shade_rows8_kernel: rand1M, stress10M): each
  // row group of 8 lanes culls the group's circles against its own 8x4 pixels, not the warp's
  // 8x16, and walks only those (a lane's mask is its row group's; a warp's passes over a group
  // are its busiest row group's). rand1M's circles touch 22%
  // fewer 8x4 boxes a group than 8x16 ones (Nsight Compute: 8.20M -> 6.41M warp visits, 42
  // instructions each either way). The four culling tests share the x part and take the boxes'
  // rows from the row spacing (H100: rand1M shade 0.457 -> 0.403 ms, stress10M 4.47 -> 3.91).
  // Where runs are composed, a circle covering one row group's box and not another's would send
  // the row groups down different paths: kept to the warp's box there.
  constexpr bool kSubBoxes = walks_row_groups(S, kRows, kEarly, kCompose);
  // Exact mode stages batches of 512 circles (4 a thread at tile 16: fewer barriers, the loads
  // overlap); early exit one a thread, so that a tile that settles early staged little it did not
  // need.
  constexpr int kPer = kEarly || kThreads >= 512 ? 1 : 512 / kThreads;
  constexpr int kBatch = kThreads * kPer;
  // Direct frames stage kDirPer circles a thread a batch: 4 in the four-pixel kernels of still
  // frames (only direct frames run them), so a batch is 1024 circles: a quarter of the batches
  // and barriers (H100: rand10k exact 0.147 -> 0.111-0.114 ms, biglittle 0.381 -> 0.312-0.318;
  // two a thread gave 0.125 and 0.333). The culling test needs only the position; a kept circle
  // is loaded again (an L1 hit) to stage it, so that four positions and colours are not held in
  // registers across the scan's barrier (they spilled 150-220 bytes). 2 in early exit at tile
  // 16 (80 registers, no spill: rand100k early exit 0.091 -> 0.075 ms, rand10k 0.096 -> 0.078,
  // biglittle 0.054 -> 0.049; at tile 32 it spilled, and made biglittle and littlebig 5-15%
  // slower, rand100k no faster). 1 elsewhere: the kernels that fuse the step spilled more with
  // 2 and were 1-2 us slower, and more would spill the two-pixel kernels that binned frames share.
  constexpr int kDirPer = kRows == 4 && !kStep ? 4 : (kEarly && TILE == 16 ? 2 : 1);
  constexpr bool kReload = kDirPer > 1;
  // Direct exact frames that reload their kept circles stage several batches' survivors before the
  // warps walk them: a batch is culled against the tile, its survivors appended to what is staged,
  // and the warps walk only when the next batch's would not fit, or at the end (rand10k: 10
  // batches of 1,024 and about 170 survivors a tile, walked once instead of ten times). A batch
  // that does not fit keeps its flags across the walk and is staged after it.
  constexpr bool kDefer = !kEarly && kReload;
  static_assert(!(kReload && kStep), "a reloaded circle would be the unmoved one");
  // Staging capacity, in circles.
  constexpr int kStage = kThreads * (kDirPer > kPer ? kDirPer : kPer);
  // The staged circles: slot s's geometry at [s], its colour at [kStage + s] (one address, two
  // loads). Geometry: flat x, y, radius^2, 1 - a (the keep factor); snow x, y, z, radius.
  // Colour: flat a*r, a*g, a*b, a (premultiplied); snow r, g, b, a.
  __shared__ float4 s_stage[2 * kStage];
  __shared__ float s_cull[kStage];  // the culling radius^2 (cull_radius_sq)
  // Direct: the batch's per-warp counts (deferred walks: two, by the batch's parity, so that a
  // batch's counts are never rewritten before every thread has read them).
  __shared__ int s_scan_totals[(kDefer ? 2 : 1) * kDirPer * kThreads / 32];
  // Deferred walks: a thread's flags for the batch that waits for a walk (kept here, not in
  // registers across the walk).
  __shared__ unsigned char s_pending[kDefer ? kThreads : 1];
  // compose 2: per group of 32 staged circles (bit k: the group's circle k), those to test (they do
  // not cover the whole tile) and those where a run of tile-covering circles ends (the run's
  // geometry slot holds (0, length, 0, a_mul), its colour the add and alpha); the others are
  // inside a run and skipped. Two masks a group instead of a byte a circle: a lane whose circle
  // covers the tile loads nothing to cull it.
  __shared__ unsigned s_open[kCompose == 2 ? kStage / 32 : 1], s_ends[kCompose == 2 ? kStage / 32 : 1];
  __shared__ float4 s_tile;  // the tile's box of pixel centres, clipped to the image: x0, y0, x1, y1
  __shared__ float s_px[TILE];  // the tile's pixel centres: columns
  __shared__ float s_py[TILE];  // rows
  __shared__ float4 s_bg[TILE];             // its rows' background colour
  auto stage_circle = [&](unsigned slot, const float4& q, const float4& col) {
    if (S == Shading::Flat) {
      s_stage[slot] = make_float4(q.x, q.y, q.w * q.w, 1.f - col.w);
      s_stage[kStage + slot] = make_float4(col.w * col.x, col.w * col.y, col.w * col.z, col.w);
    } else {
      s_stage[slot] = q;
      s_stage[kStage + slot] = col;
    }
    s_cull[slot] = cull_radius_sq(q.w);
  };
  const long long start = clock64();
  // Binned exact frames of flat circles take their tiles border last (edges_last_tile; H100, one
  // call, the order of the builds balanced: rand1M 0.4135 -> 0.4065 ms, rand100k 0.4345 -> 0.418,
  // stress10M 3.974 -> 3.881, medians of six rounds: docs/bench/shade14/aa/); direct frames,
  // early exit and snow in index order (border last, direct early exit was slower, biglittle
  // 0.034-0.037 -> 0.039-0.041, and snow at 1920x1080 0.098-0.100 -> 0.099-0.102).
  // (The kernels that walk per row group, kSubBoxes, draw direct frames only: binned ones take
  // shade_rows8_kernel.)
  const TileXY txy = S == Shading::Flat && !kEarly && !kStep && !kSubBoxes && a.ranges
                         ? edges_last_tile(static_cast<int>(gridDim.x), static_cast<int>(gridDim.y))
                         : TileXY{static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y)};
  const int tile = txy.y * static_cast<int>(gridDim.x) + txy.x;
  if (kEarly && !a.first && a.settled[tile]) return;  // uniform: this tile stopped in an earlier chunk
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const View& v = f.view;
  const int wi = txy.x * TILE + (warp % kWarpsX) * 8, wj = txy.y * TILE + (warp / kWarpsX) * kBoxH;
  const bool warp_live = wi < v.width && wj < v.height;
  // The tile's pixel centres and its rows' background, each computed once a block by a thread of
  // its own (View's division, the gradient's): a lane computed its own five centres and four
  // backgrounds, nine divisions of about 15 instructions, a tenth of pattern's and a fifth of
  // rgb's instructions (Nsight Compute). The same arithmetic, so the same bits.
  static_assert(kThreads >= 3 * TILE + 1, "a thread for each centre, background row and the tile's box");
  {
    const int t = static_cast<int>(threadIdx.x);
    if (!stage_tile_centres<TILE>(t, txy, f, s_px, s_py, s_bg) && t == 3 * TILE)
      s_tile = make_float4(v.pixel_x(txy.x * TILE), v.pixel_y(txy.y * TILE),
                           v.pixel_x(min((txy.x + 1) * TILE, v.width) - 1),
                           v.pixel_y(min((txy.y + 1) * TILE, v.height) - 1));
  }
  __syncthreads();  // s_px, s_py, s_bg and s_tile

  LanePixels<kRows> p;
  const int ly_w = (warp / kWarpsX) * kBoxH;  // the warp box's first row in the tile
  const int lx = (warp % kWarpsX) * 8 + (lane & 7), ly = ly_w + (lane >> 3) * kRows;
  p.i = wi + (lane & 7);
  p.px = s_px[lx];
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    p.j[r] = wj + (lane >> 3) * kRows + r;
    p.py[r] = s_py[ly + r];
  }
  // The warp's box of pixel centres, clipped to the image (for the culling ballot): its lanes'
  // own centres, shuffled.
  const int last_x = max(0, min(8, v.width - wi) - 1), last_y = max(0, min(kBoxH, v.height - wj) - 1);
  // The lane's centre in the row that is the box's last: selects with constant indices. (A loop
  // `if (last_y % kRows == r) last_py = p.py[r]` put the whole LanePixels in local memory, 80
  // bytes of stack, and made every frame up to 2x slower.)
  float last_py = p.py[0];
  if (last_y % kRows == 1) last_py = p.py[1];
  if (kRows == 4 && last_y % kRows == 2) last_py = p.py[kRows == 4 ? 2 : 0];
  if (kRows == 4 && last_y % kRows == 3) last_py = p.py[kRows == 4 ? 3 : 0];
  const float bx0 = __shfl_sync(lab::kFullMask, p.px, 0), by0 = __shfl_sync(lab::kFullMask, p.py[0], 0);
  const float bx1 = __shfl_sync(lab::kFullMask, p.px, last_x);
  const float by1 = __shfl_sync(lab::kFullMask, last_py, (last_y / kRows) * 8);
  // kSubBoxes: the rows' spacing, from which the row groups' boxes are computed as they are
  // needed (eight bounds held in registers made the kernel spill 90 bytes), and the box's first
  // row less a 64th of a row: computed so, a bound is a few ulps from View's centre, and the
  // 64th keeps each box a superset of its centres' at every size the CLI takes (a few ulps of
  // |y| are under 1/8 of a 64th of a row up to 16384 rows at any width), where the culling
  // radius's own slack (cull_radius_sq: 1e-6 and 1e-4 of the radius) does not cover frames much
  // taller than wide, whose y runs past 1.
  const float row_step = kSubBoxes ? 1.f / v.scale : 0.f;
  const float sub_y = by0 - row_step * (1.f / 64.f);
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    p.in[r] = p.i < v.width && p.j[r] < v.height;
    const float4 bg4 = s_bg[ly + r];
    const Float4 bg{bg4.x, bg4.y, bg4.z, bg4.w};
    p.bg_w[r] = bg.w;
    const std::size_t at = p.in[r] ? static_cast<std::size_t>(p.j[r]) * v.width + p.i : 0;
    // The pixel's state: fresh in the frame's first chunk (exact: the background; early exit:
    // nothing composited, all light through), else what the previous chunk left.
    if (a.first) {
      p.c[r] = kEarly ? Float4{0.f, 0.f, 0.f, 0.f} : bg;
      p.t[r] = 1.f;
    } else {
      const float4 q = p.in[r] ? f.image[at] : make_float4(0.f, 0.f, 0.f, 0.f);
      p.c[r] = Float4{q.x, q.y, q.z, q.w};
      p.t[r] = kEarly && p.in[r] ? a.transmittance[at] : 0.f;
    }
    p.done[r] = kEarly && (!p.in[r] || (p.t[r] < kSettledTransmittance && p.bg_w[r] + p.c[r].w >= 1.f));
  }
  unsigned long long tests = 0, blends = 0;
  FullRun run;

  // A visited circle's test and blend at the lane's pixels (q, col: its staged geometry and colour).
  auto shade_pixels = [&](const float4& q, const float4& col) {
    const float dx = p.px - q.x;
    const float dx2 = dx * dx;
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      if (S == Shading::Flat) {
        // cpu-ref's coverage test to the bit (covers_dx2: dx*dx once a lane, then the row's limit,
        // one fma, and a compare a pixel).
        const float dy = p.py[r] - q.y;
        const bool covers = covers_dx2(dx2, dy, q.z) && !p.done[r];
        if (kCount) {
          tests += p.in[r] && !p.done[r];
          blends += covers && p.in[r];
        }
        if (covers) {
          if (kEarly) {
            p.c[r].x = __fmaf_rn(p.t[r], col.x, p.c[r].x);
            p.c[r].y = __fmaf_rn(p.t[r], col.y, p.c[r].y);
            p.c[r].z = __fmaf_rn(p.t[r], col.z, p.c[r].z);
            p.c[r].w += col.w;
            p.t[r] *= q.w;  // 1 - a
          } else {
            blend_over(p.c[r], q.w, col);
          }
        }
      } else if (!p.done[r]) {
        // Snow: cpu-ref's own blend (per-pixel alpha from the distance), unchanged.
        if (kCount) tests += p.in[r];
        if (kEarly) {
          Float4 layer{0.f, 0.f, 0.f, 0.f};
          float alpha = 0.f;
          if (blend_circle(S, p.px, p.py[r], q.x, q.y, q.z, q.w, col.x, col.y, col.z, col.w, &layer,
                           &alpha)) {
            // layer = alpha * colour over black: the premultiplied colour.
            if (kCount) blends += p.in[r];
            p.c[r].x = __fmaf_rn(p.t[r], layer.x, p.c[r].x);
            p.c[r].y = __fmaf_rn(p.t[r], layer.y, p.c[r].y);
            p.c[r].z = __fmaf_rn(p.t[r], layer.z, p.c[r].z);
            p.c[r].w += alpha;
            p.t[r] *= 1.f - alpha;
          }
        } else if (blend_circle(S, p.px, p.py[r], q.x, q.y, q.z, q.w, col.x, col.y, col.z, col.w, &p.c[r])) {
          if (kCount) blends += p.in[r];
        }
      }
      if (kEarly && !p.done[r])
        p.done[r] = p.t[r] < kSettledTransmittance && p.bg_w[r] + p.c[r].w >= 1.f;
    }
  };

  // Launched dependent (kernels/dependent_launch.cuh): everything above overlaps the tail of the
  // kernel before (binned: the scatter or the tile ranges). What it read from device memory, the
  // image, transmittance and settled flags, the previous chunk's shade wrote, and that finished
  // before this chunk's count, an ordinary launch, began. The ranges, ids and circles (which an
  // animation kernel may just have moved) come after the wait.
  wait_for_prior_grid();
  // Direct: a batch is kDirPer circles a thread, culled against the whole tile and compacted in
  // order (a ballot scan) before the warps cull what is left against their own boxes. The kernels
  // that walk per row group (kSubBoxes) draw direct frames only (binned ones take
  // shade_rows8_kernel), so their binned code is left out.
  const bool direct = kSubBoxes || a.ranges == nullptr;
  // The circles this tile walks: [first, end) of ids (binned) or of the circles (direct).
  unsigned first, end;
  if (!direct) {
    const uint2 r = a.ranges[tile];
    first = r.x;
    end = r.y;
  } else {
    first = static_cast<unsigned>(a.lo);
    end = static_cast<unsigned>(a.hi);
  }
  const unsigned n = end > first ? end - first : 0u;
  // The fused step (never snow's, whose noise would cost registers here: the compiler sees
  // `moves` is never Snow, so the snow step is not in this kernel at all).
  static_assert(!kStep || (!kEarly && S == Shading::Flat), "steps fuse into exact flat frames only");
  const Animation moves = !kStep || a.step.kind == Animation::Snow ? Animation::None : a.step.kind;
  if (kStep && direct && moves != Animation::None) {
    // The step's writers: the grid's threads in turn, one per circle (every block moves the
    // circles it stages itself, the same way, so the order of the writes does not matter).
    const unsigned stride = gridDim.x * gridDim.y * kThreads;
    for (unsigned k = first + tile * kThreads + threadIdx.x; k < end; k += stride) {
      const int ki = static_cast<int>(k);
      store_moved(a.step, ki, moved_circle(moves, a.step.seed, a.step.frame, ki, c.pos_rad[k], a.step.velocity[k], c.pos_rad));
    }
  }
  const unsigned step = direct ? kThreads * kDirPer : kBatch;
  const unsigned batches = (n + step - 1) / step;
  bool warp_done = !warp_live || (kEarly && __all_sync(lab::kFullMask, p.all_done()));
  const bool defer = kDefer && direct;  // (kDefer kernels run direct frames only)
  unsigned staged = 0;  // deferred: circles staged and not walked yet
  // A deferred walk's loop has one more pass, after the last batch, to walk what is staged.
  const unsigned passes = batches + (defer ? 1u : 0u);
  for (unsigned b = 0; b < passes; ++b) {
    // Early exit walks the batches from the end.
    const unsigned base = first + (kEarly ? (batches - 1 - b) : b) * step;
    unsigned count = !kDefer || b < batches ? min(end - base, step) : 0u;
    if (direct) {
      bool keep[kDirPer];  // which of the thread's circles touch the tile
      float4 q[kDirPer], col[kDirPer];
#pragma unroll
      for (int u = 0; u < kDirPer; ++u) {
        keep[u] = false;
        q[u] = col[u] = make_float4(0.f, 0.f, 0.f, 0.f);
        if (u * kThreads + threadIdx.x < count) {
          // The batch's loads at once (they hit L2: every block reads the same circles), so it
          // waits for one latency, not one a circle. (Copying the next batch ahead with cp.async
          // into shared memory was measured slower: pattern exact 0.028 -> 0.034 ms.)
          const unsigned k = base + u * kThreads + threadIdx.x;
          q[u] = c.pos_rad[k];
          if (!kReload) col[u] = c.color[k];
          if (kStep && moves != Animation::None) {  // the frame's step: where the circle moves to
            const Motion m =
                moved_circle(moves, a.step.seed, a.step.frame, static_cast<int>(k), q[u], a.step.velocity[k], c.pos_rad);
            q[u] = make_float4(m.x, m.y, m.z, m.radius);
          }
          keep[u] = circle_touches_box(q[u].x, q[u].y, q[u].w, s_tile.x, s_tile.y, s_tile.z, s_tile.w);
        }
      }
      unsigned slot[kDirPer];
      if (defer) {
        int* totals = s_scan_totals + (b & 1u) * (kDirPer * kThreads / 32);
        const unsigned got = b < batches ? ballot_count_flags<kThreads / 32, kDirPer>(keep, totals) : 0u;
        if (b < batches && staged + got <= kStage) {  // uniform: appended, no walk yet
          ballot_slots<kThreads / 32, kDirPer>(keep, slot, totals);
#pragma unroll
          for (int u = 0; u < kDirPer; ++u) {
            if (!keep[u]) continue;
            const unsigned k = base + u * kThreads + threadIdx.x;
            stage_circle(staged + slot[u], c.pos_rad[k], c.color[k]);
          }
          staged += got;
          continue;
        }
        count = staged;  // walk what is staged; this batch's survivors are staged after the walk
        unsigned bits = 0;
#pragma unroll
        for (int u = 0; u < kDirPer; ++u) bits |= keep[u] ? 1u << u : 0u;
        s_pending[threadIdx.x] = static_cast<unsigned char>(bits);
      } else {
        count = ballot_scan_flags<kThreads / 32, kDirPer>(keep, slot, s_scan_totals);
#pragma unroll
        for (int u = 0; u < kDirPer; ++u) {
          if (!keep[u]) continue;
          if (kReload) {  // loaded again (L1) rather than held in registers across the scan
            const unsigned k = base + u * kThreads + threadIdx.x;
            stage_circle(slot[u], c.pos_rad[k], c.color[k]);
          } else {
            stage_circle(slot[u], q[u], col[u]);
          }
        }
      }
    } else {
      // Loaded and staged, kPer circles a thread (tile 16: four), all at once.
      unsigned id[kPer];
#pragma unroll
      for (int u = 0; u < kPer; ++u) {
        const unsigned slot = u * kThreads + threadIdx.x;
        id[u] = slot < count ? (a.ids ? a.ids[base + slot] : base + slot) : 0u;
      }
      float4 q[kPer], col[kPer];
#pragma unroll
      for (int u = 0; u < kPer; ++u) {
        q[u] = make_float4(0.f, 0.f, 0.f, 0.f);  // a lane past the batch's end: defined, never used
        if (u * kThreads + threadIdx.x < count) {
          q[u] = c.pos_rad[id[u]];
          col[u] = c.color[id[u]];
        }
      }
#pragma unroll
      for (int u = 0; u < kPer; ++u) {
        const unsigned slot = u * kThreads + threadIdx.x;
        if (slot < count) stage_circle(slot, q[u], col[u]);
      }
    }
    __syncthreads();
    if (kCompose == 2) {
      // Runs of consecutive circles that cover the whole tile, within each group of 32 staged
      // circles, compose into one affine map (a warp-level segmented scan; the maps compose
      // associatively): its last circle carries the run's map (a bit of s_ends), the others are
      // skipped, so each warp visits a run once instead of every circle of it.
      constexpr int kWarps = kThreads / 32;
      const int groups = static_cast<int>((count + 31) / 32);
      for (int g = warp; g < groups; g += kWarps) {
        const int sl = g * 32 + lane;
        bool full = false;
        float4 q = make_float4(0.f, 0.f, 0.f, 0.f), col = q;
        if (sl < static_cast<int>(count)) {
          q = s_stage[sl];
          col = s_stage[kStage + sl];
          full = circle_covers_box(q.x, q.y, q.z, s_tile.x, s_tile.y, s_tile.z, s_tile.w);
        }
        const bool prev_full = __shfl_up_sync(lab::kFullMask, full, 1) && lane > 0;
        const bool next_full = __shfl_down_sync(lab::kFullMask, full, 1) && lane < 31;
        // Segmented inclusive scan: (a_mul, add, alpha, n) of the run so far, earlier circles first.
        float m = full ? q.w : 1.f;
        float bx = full ? col.x : 0.f, by = full ? col.y : 0.f, bz = full ? col.z : 0.f;
        float sa = full ? col.w : 0.f, nn = full ? 1.f : 0.f;
        bool head = !full || !prev_full;
        // A scan over the group's n circles needs the steps d < n only (a group of 3: two), and
        // none when no circle of the group covers the tile.
        const int n_group = __any_sync(lab::kFullMask, full) ? min(32, static_cast<int>(count) - g * 32) : 0;
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
          if (d >= n_group) break;  // uniform
          const float pm = __shfl_up_sync(lab::kFullMask, m, d);
          const float px_ = __shfl_up_sync(lab::kFullMask, bx, d), py_ = __shfl_up_sync(lab::kFullMask, by, d);
          const float pz = __shfl_up_sync(lab::kFullMask, bz, d), ps = __shfl_up_sync(lab::kFullMask, sa, d);
          const float pn = __shfl_up_sync(lab::kFullMask, nn, d);
          const bool ph = __shfl_up_sync(lab::kFullMask, head, d);
          if (lane >= d && !head) {
            bx = __fmaf_rn(m, px_, bx);
            by = __fmaf_rn(m, py_, by);
            bz = __fmaf_rn(m, pz, bz);
            m *= pm;
            sa += ps;
            nn += pn;
            head = ph;
          }
        }
        const unsigned open = __ballot_sync(lab::kFullMask, sl < static_cast<int>(count) && !full);
        const unsigned ends = __ballot_sync(lab::kFullMask, full && !next_full);
        if (lane == 0) {
          s_open[g] = open;
          s_ends[g] = ends;
        }
        if (sl < static_cast<int>(count)) {
          if (full && !next_full) {
            s_stage[sl] = make_float4(0.f, nn, 0.f, m);
            s_stage[kStage + sl] = make_float4(bx, by, bz, sa);
          }
        }
      }
      __syncthreads();
    }
    if (!warp_done) {
      const int groups = static_cast<int>((count + 31) / 32);
      for (int gi = 0; gi < groups && !warp_done; ++gi) {
        const int g = kEarly ? groups - 1 - gi : gi;
        // Lane l ballots the group's circle l (early exit) or 31 - l (exact), so that the next
        // circle in walk order is always the mask's highest bit: one FLO a visit.
        const int s_lane = g * 32 + (kEarly ? lane : 31 - lane);
        // Which of these 32 circles may touch the warp's box, and (compose) which cover all of it
        // (circle_covers_box: blend_circle's own test at the farthest corner).
        // compose 2: the group's circles to test and its run ends, in ballot order (bit l: lane l's
        // circle; exact mode's lanes take the group backwards, so the masks are bit-reversed).
        unsigned open = ~0u, runs = 0u;
        if (kCompose == 2) {
          open = kEarly ? s_open[g] : __brev(s_open[g]);
          runs = kEarly ? s_ends[g] : __brev(s_ends[g]);
        }
        // A lane tests its circle unless it covers the whole tile; such a circle touches and covers
        // the warp's box where a run ends there and is skipped inside a run, with no load or test.
        // Every lane loads and tests (a lane with no circle to test reads the group's first slot,
        // which is staged, and drops the result): no branch and no bool kept across one (Nsight
        // Compute, rand1M: a branch and a select-and-compare a group before).
        const bool test = kCompose == 2 ? (open >> lane) & 1u : s_lane < static_cast<int>(count);
        const int t_lane = test ? s_lane : g * 32;
        const float4 tq = s_stage[t_lane];
        unsigned mask, full;
        if (kSubBoxes) {
          // warp_box_touched for each row group's 8x4 box: the x part (the same for all four) once.
          const float cull_rr = s_cull[t_lane];
          const float dx = tq.x - fminf(fmaxf(tq.x, bx0), bx1);
          const float dx2 = dx * dx;
          unsigned m_sub[4];
#pragma unroll
          for (int q = 0; q < 4; ++q) {
            // Rows 4q .. 4q + 3 of the box (clipped to the image), a 64th of a row wider at each
            // end (see sub_y). A box below the image clamps to its last row: a few wasted visits at
            // the frame's edge.
            const float y0 = sub_y + static_cast<float>(4 * q) * row_step;
            const float y1 = fminf(sub_y + (static_cast<float>(4 * q + 3) + 2.f / 64.f) * row_step, by1);
            const float dy = tq.y - fminf(fmaxf(tq.y, y0), y1);
            m_sub[q] = __ballot_sync(lab::kFullMask, test && coverage_d2_dx2(dx2, dy) <= cull_rr);
          }
          // The lane's row group's (lane >> 3): two selects by bit, where a chain of three
          // compares had become a divergent branch (H100: rand1M shade 0.368 -> 0.360 ms,
          // stress10M 3.57 -> 3.50; docs/bench/shade9/ab_mask_select.log).
          const unsigned lo = lane & 8 ? m_sub[1] : m_sub[0], hi = lane & 8 ? m_sub[3] : m_sub[2];
          mask = lane & 16 ? hi : lo;
          full = 0u;
        } else {
          bool touch = test && warp_box_touched(tq.x, tq.y, s_cull[t_lane], bx0, by0, bx1, by1);
          bool whole = kCompose && touch && circle_covers_box(tq.x, tq.y, tq.z, bx0, by0, bx1, by1);
          if (kCompose == 2 && !test) touch = whole = (runs >> lane) & 1u;
          mask = __ballot_sync(lab::kFullMask, touch);
          full = kCompose ? __ballot_sync(lab::kFullMask, whole) : 0u;
        }
        // The group's slot of bit 0: the visit's address is one multiply-add from it (in bytes:
        // with a float4 pointer, the compiler took two instructions).
        const char* group = reinterpret_cast<const char*>(s_stage + g * 32 + (kEarly ? 0 : 31));
        while (mask) {
          const int bit = 31 - __clz(mask);
          const unsigned bit_m = bit_mask(bit);
          mask ^= bit_m;
          const float4* staged =
              reinterpret_cast<const float4*>(group + (kEarly ? bit : -bit) * static_cast<int>(sizeof(float4)));
          const float4 q = staged[0], col = staged[kStage];
          if (kCompose && (full & bit_m)) {
            // Covers the warp's whole box: no per-pixel test (a whole run of tile-covering
            // circles at once when it ends here: q.y circles, composed already).
            if (kCount) {  // blended untested
              const float n_run = runs & bit_m ? q.y : 1.f;
              blends += static_cast<unsigned long long>(n_run) * p.open_in_image();
            }
            if (kFoldRuns) {  // folded into the pending run
              run.add(q.w, col);
            } else {  // blended at once, each pixel as a covered one
#pragma unroll
              for (int r = 0; r < kRows; ++r) blend_over(p.c[r], q.w, col);
            }
            continue;
          }
          if (kFoldRuns) run.flush(p);
          shade_pixels(q, col);
        }
        if (kEarly) {
          if (kFoldRuns) run.flush(p);  // so the pixels' transmittance is current for the stop test
          warp_done = __all_sync(lab::kFullMask, p.all_done());
        }
      }
      if (kFoldRuns) run.flush(p);
    }
    // Early exit: the whole tile stops when every warp has; else the next batch overwrites the
    // staging arrays (after the last batch nothing reads them again).
    if (kEarly) {
      if (__syncthreads_and(warp_done)) break;
    } else if (defer) {
      if (b < batches) {  // the batch that did not fit, staged from slot 0 now that the walk is done
        __syncthreads();
        const int* totals = s_scan_totals + (b & 1u) * (kDirPer * kThreads / 32);
        const unsigned bits = s_pending[threadIdx.x];
        bool pending[kDirPer];
        unsigned slot[kDirPer];
#pragma unroll
        for (int u = 0; u < kDirPer; ++u) pending[u] = (bits >> u) & 1u;
        ballot_slots<kThreads / 32, kDirPer>(pending, slot, totals);
#pragma unroll
        for (int u = 0; u < kDirPer; ++u) {
          if (!pending[u]) continue;
          const unsigned k = base + u * kThreads + threadIdx.x;
          stage_circle(slot[u], c.pos_rad[k], c.color[k]);
        }
        staged = 0;
#pragma unroll
        for (int i = 0; i < kDirPer * kThreads / 32; ++i) staged += static_cast<unsigned>(totals[i]);
      }
    } else if (b + 1 < batches) {
      __syncthreads();
    }
  }

  if (kCount) add_work(a, tests, blends);
  bool settled = true;
  if (kEarly) settled = __syncthreads_and(p.all_done());
  record_tile_cycles(f, start);
  // Exact frames that compose runs or cull per row group, not counting: the pixels' places again,
  // from the block and lane indices, since the walk does not read them, and holding p.i, p.j and p.in across it made
  // the four-pixel kernels spill (Nsight Compute, pattern and rgb: reloaded here). H100: pattern,
  // rgb, hypnosis and rand100k 1-2 us faster; rand1M's kernel (no runs to compose) was 1.5%
  // slower with it until it culled per row group (kSubBoxes), where it frees the registers that
  // culling needs. Early exit and counting read them in the walk (recomputing them there spilled
  // more).
  constexpr bool kRecompute = !kEarly && !kCount && (kCompose != 0 || kSubBoxes);
  const int out_i = kRecompute ? txy.x * TILE + (warp % kWarpsX) * 8 + (lane & 7) : p.i;
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const int j = kRecompute ? txy.y * TILE + (warp / kWarpsX) * kBoxH + (lane >> 3) * kRows + r
                             : p.j[r];
    if (kRecompute ? out_i >= v.width || j >= v.height : !p.in[r]) continue;
    const std::size_t at = static_cast<std::size_t>(j) * v.width + out_i;
    if (!kEarly) {
      f.image[at] = make_float4(p.c[r].x, p.c[r].y, p.c[r].z, p.c[r].w);
    } else if (settled || a.last) {
      // Final: what came through composited over the background; alpha sums like cpu-ref's.
      const float4 bg = s_bg[j - txy.y * TILE];
      f.image[at] = make_float4(__fmaf_rn(p.t[r], bg.x, p.c[r].x), __fmaf_rn(p.t[r], bg.y, p.c[r].y),
                                __fmaf_rn(p.t[r], bg.z, p.c[r].z), p.c[r].w + bg.w);
    } else {
      f.image[at] = make_float4(p.c[r].x, p.c[r].y, p.c[r].z, p.c[r].w);
      a.transmittance[at] = p.t[r];
    }
  }
  if (kEarly && threadIdx.x == 0) {
    if (settled) a.settled[tile] = 1;
    else if (!a.last) atomicAdd(&a.stats->unsettled, 1ull);
  }
}


// The row groups' walk of binned exact frames of flat circles that compose no runs (median radius
// under one tile: rand1M, stress10M at 1024x1024 and 3840x2160), eight pixels a lane. A block per 32x32 tile, 128 threads;
// the tile's 4 x 8 boxes of 8x4 pixels are its row groups', four lanes each (a lane: two columns
// side by side, four rows), and a warp holds eight of them (16x16 pixels). Fast because the tile's
// circles are culled once a block, as a batch is staged, and a visit's work is shared:
//  - staging (a batch of 128 circles, one a thread, its id and position loaded during the batch
//    before): each thread finds the boxes its circle may touch (row_box_bits: 32 bits), each warp
//    transposes its group of 32 circles' bits into the 32 boxes' masks, and lane k writes box k's
//    (bit-reversed: the next circle of the walk is the highest bit). Then each circle's coverage
//    limit (coverage_limit: radius^2 - dy^2) at each of the tile's 32 rows, four rows of one of
//    four circles a lane (one 8-byte load, four subtractions and FMAs, one 16-byte store).
//    Where every warp culled every circle against its own boxes inside the walk, this took 52
//    instructions a group and warp, 12% of rand1M's shade (docs/bench/shade11/).
//  - the walk: each row group walks its box's mask, group by group; a visit loads the circle's x
//    and premultiplied colour (16 bytes), its keep factor 1 - a and alpha (8) and its limits at the
//    row group's four rows (16), and a pixel's test is one compare of dx*dx with its row's limit
//    (cpu-ref's test, bit for bit), its blend one FMA a channel. The three shared addresses are
//    carried from group to group as 32-bit shared addresses (through pointers ptxas rebuilt them
//    every group: 24-27 instructions a group and warp where this takes 12).
// Eight pixels a lane, two columns of one box: a visit's pick, loads, limits and loop serve both
// columns (54 instructions: 2 subtractions and squares, 8 compares, 32 blends, where two visits
// of four pixels took 64), the boxes being the four-pixel walk's 8x4 (so are the pixel tests);
// the warp's passes over a group wait on its busiest of eight row groups instead of four. At 64
// registers (eight blocks an SM, 32 warps, as the four-pixel walk's four of 256) it spills
// nothing. H100, one call: rand1M 0.390-0.396 -> 0.381-0.382 ms, stress10M 3.73-3.75 -> 3.53, at
// 3840x2160 9.88 -> 9.00 (shade 8.59 -> 7.71); at 80 registers (six blocks) 0.392-0.397, 3.64,
// 9.04 (docs/bench/shade16/).
// kHalf: the colour in half precision (HalfPixel: two HFMA2 a pixel's blend, 38 instructions a
// visit instead of 54) where --half-colour asks for it and the scene allows it. H100: rand1M
// 0.380 -> 0.333 ms, stress10M 3.54 -> 3.06, at 3840x2160 9.02 -> 7.48-7.50 (docs/bench/shade18/).
constexpr int kRows8Threads = 128;
constexpr int kRows8Stage = kRows8Threads;  // circles a batch
template <bool kCount, bool kHalf>
__global__ void __launch_bounds__(kRows8Threads, 8) shade_rows8_kernel(DeviceCircles c, FrameParams f, ShadeArgs a) {
  constexpr int TILE = kLargeTile;
  constexpr int kStage = kRows8Stage;
  // Slot s: x, a*r, a*g, a*b at [s]; y, radius^2, 1 - a, a at [kStage + s] (a visit loads the
  // first and the second's last two; the limits' staging reads y and radius^2). kHalf: x, half2
  // (a*r, a*g), half2 (a*b, a), half2 (1 - a, 1 - a) at [s]; y, radius^2, half2 (1 - a, 1) at
  // [kStage + s] (a visit loads the first and the second's third).
  __shared__ float4 s_stage[2 * kStage];
  __shared__ unsigned s_rows[kStage];                    // group g's mask of box k at [g * 32 + k]
  __shared__ __align__(16) float s_lim[kStage * TILE];   // [slot * 32 + row]
  __shared__ float s_px[TILE];
  __shared__ __align__(16) float s_py[TILE];
  __shared__ float4 s_box_cols[2];  // each column of boxes' first ([0]) and last ([1]) pixel centre
  __shared__ float4 s_bg[TILE];     // the rows' background
  const long long start = clock64();
  const TileXY txy = edges_last_tile(static_cast<int>(gridDim.x), static_cast<int>(gridDim.y));
  const int tile = txy.y * static_cast<int>(gridDim.x) + txy.x;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const View& v = f.view;
  static_assert(kRows8Threads >= 3 * TILE + 8, "a thread for each centre, background row and box column bound");
  {
    const int t = static_cast<int>(threadIdx.x);
    if (!stage_tile_centres<TILE>(t, txy, f, s_px, s_py, s_bg) && t < 3 * TILE + 8) {
      const int k = t - 3 * TILE, last = min(TILE, v.width - txy.x * TILE) - 1;
      reinterpret_cast<float*>(s_box_cols)[k] = v.pixel_x(txy.x * TILE + min(8 * (k % 4) + (k / 4) * 7, last));
    }
  }
  __syncthreads();
  // The lane's row group (lane >> 2): box column bc and row br of the tile's 4 x 8 boxes; its two
  // columns lx, lx + 1 and four rows ly .. ly + 3.
  const int rg = lane >> 2;
  const int bc = 2 * (warp & 1) + (rg & 1), br = 4 * (warp >> 1) + (rg >> 1);
  const int lx = 8 * bc + 2 * (lane & 3), ly = 4 * br;
  const float px0 = s_px[lx], px1 = s_px[lx + 1];
  using Pixel = std::conditional_t<kHalf, HalfPixel, Float4>;
  Pixel c0[4], c1[4];
  unsigned long long tests = 0, blends = 0;  // kCount
  unsigned in_bits = 0u;                     // kCount: bit 2r + k, the lane's pixel (column k, row r) in the image
  {
    const int i = txy.x * TILE + lx;
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      pixel_set(c0[r], s_bg[ly + r]);
      c1[r] = c0[r];
      const int j = txy.y * TILE + ly + r;
      if (kCount && j < v.height) in_bits |= (i < v.width ? 1u : 0u) << (2 * r) | (i + 1 < v.width ? 2u : 0u) << (2 * r);
      if (!a.first && j < v.height) {  // what the previous chunk left
        const std::size_t at = static_cast<std::size_t>(j) * v.width + i;
        const float4 q0 = i < v.width ? f.image[at] : make_float4(0.f, 0.f, 0.f, 0.f);
        const float4 q1 = i + 1 < v.width ? f.image[at + 1] : make_float4(0.f, 0.f, 0.f, 0.f);
        pixel_set(c0[r], q0);
        pixel_set(c1[r], q1);
      }
    }
  }
  wait_for_prior_grid();  // (launched dependent: the ranges, ids and circles after it)
  const uint2 range = a.ranges[tile];
  const unsigned first = range.x, end = range.y, n = end > first ? end - first : 0u;
  const unsigned batches = (n + kStage - 1) / kStage;
  // The next batch's id and position are loaded before this batch is walked, so that staging
  // waits on the colour's load only, not on the chain of two (H100, four pixels a lane: rand1M
  // shade 0.334 -> 0.330 ms, stress10M 3.237 -> 3.190; the colour ahead too was slower than none:
  // docs/bench/shade13/e_ab_summary.txt).
  unsigned ahead_id = 0u;
  float4 ahead_q = make_float4(0.f, 0.f, 0.f, 0.f);
  if (threadIdx.x < n) {
    ahead_id = a.ids[first + threadIdx.x];
    ahead_q = c.pos_rad[ahead_id];
  }
  for (unsigned b = 0; b < batches; ++b) {
    const unsigned base = first + b * kStage;
    const unsigned count = min(end - base, static_cast<unsigned>(kStage));
    const unsigned slot = threadIdx.x;
    float4 q = make_float4(0.f, 0.f, 0.f, 0.f);
    if (slot < count) {
      q = ahead_q;
      const float4 col = c.color[ahead_id];
      const float keep = 1.f - col.w;
      if constexpr (kHalf) {
        s_stage[slot] = make_float4(q.x, __uint_as_float(half2_bits(col.w * col.x, col.w * col.y)),
                                    __uint_as_float(half2_bits(col.w * col.z, col.w)),
                                    __uint_as_float(half2_bits(keep, keep)));
        s_stage[kStage + slot] = make_float4(q.y, q.w * q.w, __uint_as_float(half2_bits(keep, 1.f)), 0.f);
      } else {
        s_stage[slot] = make_float4(q.x, col.w * col.x, col.w * col.y, col.w * col.z);
        s_stage[kStage + slot] = make_float4(q.y, q.w * q.w, keep, col.w);
      }
    }
    if (b + 1 < batches && base + kStage + threadIdx.x < end) {
      ahead_id = a.ids[base + kStage + threadIdx.x];
      ahead_q = c.pos_rad[ahead_id];
    }
    // The boxes its circle may touch (read again each batch: held across the walk, these
    // bounds took 12 registers).
    unsigned bits = 0u;
    if (slot < count) {
      const unsigned cols_in = 0xffffffffu >> (32 - 8 * ((min(TILE, v.width - txy.x * TILE) + 7) / 8));
      const float boxes = static_cast<float>((min(TILE, v.height - txy.y * TILE) + 3) / 4);
      bits = row_box_bits(q.x, (q.y - s_py[0]) * v.scale, cull_radius_sq(q.w), s_box_cols[0], s_box_cols[1],
                          0.25f * v.scale, boxes) & cols_in;
    }
    s_rows[slot] = __brev(transpose_bits(bits, lane));
    __syncwarp();  // the group's geometry, staged by its lanes
    {
      const int quad = lane & 7;
      const float4 py4 = reinterpret_cast<const float4*>(s_py)[quad];
      const float4* geo = s_stage + kStage + warp * 32;
      float* lim = s_lim + (warp * 32) * TILE + 4 * quad;
      // Unrolled (by 4, the four-pixel walk was 5-7% slower: docs/bench/shade15/).
#pragma unroll
      for (int k0 = 0; k0 < 32; k0 += 4) {
        const int k = k0 + (lane >> 3);
        const float2 yr = *reinterpret_cast<const float2*>(geo + k);
        *reinterpret_cast<float4*>(lim + k * TILE) =
            make_float4(coverage_limit(py4.x - yr.x, yr.y), coverage_limit(py4.y - yr.x, yr.y),
                        coverage_limit(py4.z - yr.x, yr.y), coverage_limit(py4.w - yr.x, yr.y));
      }
    }
    __syncthreads();
    {
      const int groups = static_cast<int>((count + 31) / 32);
      unsigned rows_at = shared_address(s_rows + 8 * bc + br), group_at = shared_address(s_stage + 31),
               lims_at = shared_address(s_lim + 31 * TILE + ly);
      for (int g = 0; g < groups; ++g) {
        unsigned mask = lds_u32(rows_at);
        while (mask) {
          const int bit = 31 - __clz(mask);
          mask ^= bit_mask(bit);
          const unsigned off = static_cast<unsigned>(bit) * static_cast<unsigned>(sizeof(float4));
          const float4 qv = lds_f4(group_at - off);                                                    // x, a*rgb
          // 1 - a, a (kHalf: half2 (1 - a, 1), and nothing)
          const float2 ka = kHalf ? make_float2(__uint_as_float(lds_u32(group_at - off + kStage * sizeof(float4) + 2 * sizeof(float))), 0.f)
                                  : lds_f2(group_at - off + kStage * sizeof(float4) + 2 * sizeof(float));
          const float4 lim = lds_f4(lims_at - off * (TILE / 4));
          const float dx0 = px0 - qv.x, dx1 = px1 - qv.x;
          const float d0 = dx0 * dx0, d1 = dx1 * dx1;
          const float l[4] = {lim.x, lim.y, lim.z, lim.w};
#pragma unroll
          for (int r = 0; r < 4; ++r) {
            if constexpr (kHalf) {
              const __half2 crg = bits_half2(qv.y), cba = bits_half2(qv.z), krg = bits_half2(qv.w),
                            kba = bits_half2(ka.x);
              if (d0 <= l[r]) {
                c0[r].rg = __hfma2(c0[r].rg, krg, crg);
                c0[r].ba = __hfma2(c0[r].ba, kba, cba);
              }
              if (d1 <= l[r]) {
                c1[r].rg = __hfma2(c1[r].rg, krg, crg);
                c1[r].ba = __hfma2(c1[r].ba, kba, cba);
              }
            } else {
              const float4 col = make_float4(qv.y, qv.z, qv.w, ka.y);
              if (d0 <= l[r]) blend_over(c0[r], ka.x, col);
              if (d1 <= l[r]) blend_over(c1[r], ka.x, col);
            }
            if (kCount) blends += (d0 <= l[r] && (in_bits >> (2 * r) & 1u)) + (d1 <= l[r] && (in_bits >> (2 * r) & 2u));
          }
          if (kCount) tests += __popc(in_bits);
        }
        rows_at += 32 * sizeof(unsigned);
        group_at += 32 * sizeof(float4);
        lims_at += 32 * TILE * sizeof(float);
      }
    }
    if constexpr (kHalf) {
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        pixel_end_batch(c0[r]);
        pixel_end_batch(c1[r]);
      }
    }
    if (b + 1 < batches) __syncthreads();  // the next batch overwrites the staging arrays
  }
  if (kCount) add_work(a, tests, blends);
  record_tile_cycles(f, start);
  const int i = txy.x * TILE + lx;
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const int j = txy.y * TILE + ly + r;
    if (j >= v.height) continue;
    const std::size_t at = static_cast<std::size_t>(j) * v.width + i;
    if (i < v.width) f.image[at] = pixel_get(c0[r]);
    if (i + 1 < v.width) f.image[at + 1] = pixel_get(c1[r]);
  }
}
// Binned exact frames of tiny flat circles (micro2M: radius 1 pixel, a few pixels each). The
// warps' walk would visit every circle that touches an 8x8 box to blend a pixel or two of its
// 64 (micro2M: 162M pixel tests for 6.6M blends); here the circles go to the pixels instead. A
// block per tile, 256 threads, TILE * TILE / 256 pixels a thread; the tile's circles in batches
// of 256, one a thread: each thread tests its circle at the pixel centres of its own window
// (cpu-ref's test to the bit, at most a few pixels) and sets the circle's bit in each covered
// pixel's 256-bit mask in shared memory (the batch's slot s, bit-reversed: the first circle is
// the highest bit); then each thread walks its pixels' masks from the highest bit, so every
// pixel blends its circles in order, with the shade kernel's own FMA blend (the same bits).
// Fast for tiny circles: work per covered pixel, not per pixel of a box; a big circle tests its
// whole window (up to the tile), still exact but slow. Latency-bound (two barriers a batch,
// shared-memory chains); the next batch's positions are loaded, and its colours copied into
// shared memory (cp.async), while this one is tested and walked (H100, micro2M: shade 0.099 ->
// 0.094 ms with the copy, where the colour was loaded at the batch's start and waited for at its
// end; brought to L2 ahead instead, 0.106).
constexpr int kTinyThreads = 256;
// Where word w of pixel p's mask sits: w ^ tiny_swizzle(p), the pixel's bits above those that
// p * kWords already spreads over the 32 banks (the bank of p's first word, over kWords).
template <int kWords>
__device__ __forceinline__ int tiny_swizzle(int p) {
  static_assert(kWords >= 1 && kWords <= 32 && (kWords & (kWords - 1)) == 0, "a power of two");
  return static_cast<int>(static_cast<unsigned>(p) / (32u / kWords)) & (kWords - 1);
}
template <int TILE, bool kCount>
__global__ void __launch_bounds__(kTinyThreads, 4) tiny_shade_kernel(DeviceCircles c, FrameParams f, ShadeArgs a) {
  constexpr int kPixels = TILE * TILE, kPer = kPixels / kTinyThreads, kWords = kTinyThreads / 32;
  static_assert(kPer * kTinyThreads == kPixels && kWords % 4 == 0, "whole pixels a thread, whole uint4 masks");
  __shared__ uint4 s_cover[kPixels][kWords / 4];  // per pixel: which of the batch's circles cover it
  __shared__ unsigned s_words[kPixels];            // per pixel: which of those words have a bit set
  // The batches' colours as stored (r, g, b, a), this batch's and the next's: a thread's own
  // slot copied a batch ahead (cp.async), premultiplied where it is blended.
  __shared__ float4 s_col[2][kTinyThreads];
  __shared__ float s_px[TILE], s_py[TILE];        // the tile's pixel centres (View's divisions, once)
  const long long start = clock64();
  const View& v = f.view;
  const int tile = blockIdx.y * gridDim.x + blockIdx.x;
  const int x0 = blockIdx.x * TILE, y0 = blockIdx.y * TILE;
  const int x1 = min(x0 + TILE, v.width) - 1, y1 = min(y0 + TILE, v.height) - 1;  // the tile's last pixels
  if (threadIdx.x < TILE) s_px[threadIdx.x] = v.pixel_x(x0 + threadIdx.x);
  else if (threadIdx.x < 2 * TILE) s_py[threadIdx.x - TILE] = v.pixel_y(y0 + threadIdx.x - TILE);
  // The thread's pixels: local index p = threadIdx.x + k * 256 (row-major in the tile).
  Float4 px[kPer];
#pragma unroll
  for (int k = 0; k < kPer; ++k) {
    const int p = threadIdx.x + k * kTinyThreads, i = x0 + p % TILE, j = y0 + p / TILE;
    px[k] = Float4{0.f, 0.f, 0.f, 0.f};
#pragma unroll
    for (int h = 0; h < kWords / 4; ++h) s_cover[p][h] = make_uint4(0u, 0u, 0u, 0u);
    s_words[p] = 0u;
    if (i < v.width && j < v.height) {
      if (a.first) {
        px[k] = background_at(f.background, j, v.height);
      } else {
        const float4 q = f.image[static_cast<std::size_t>(j) * v.width + i];
        px[k] = Float4{q.x, q.y, q.z, q.w};
      }
    }
  }
  // Launched dependent, as shade_kernel is: the ranges and ids the scatter (or the tile ranges)
  // wrote are read after the wait; the image above, the previous chunk's shade wrote.
  wait_for_prior_grid();
  const uint2 range = a.ranges[tile];
  const unsigned first = range.x, end = range.y > range.x ? range.y : range.x;
  unsigned long long tests = 0, blends = 0;
  // This batch's circle (one a thread): its position loaded a batch ahead and its id two (so
  // the position's load never waits for the id's); its colour, needed last, when it is staged
  // (fewer registers held across the walk).
  unsigned id = 0, id_next = 0;
  float4 q = make_float4(0.f, 0.f, 0.f, 0.f);
  if (first + threadIdx.x < end) {
    id = a.ids[first + threadIdx.x];
    q = c.pos_rad[id];
    __pipeline_memcpy_async(&s_col[0][threadIdx.x], c.color + id, sizeof(float4));
  }
  __pipeline_commit();
  if (first + kTinyThreads + threadIdx.x < end) id_next = a.ids[first + kTinyThreads + threadIdx.x];
  int buf = 0;  // s_col's half of this batch
  // The thread's circle is slot threadIdx.x of its batch; its bit in a pixel's mask is reversed
  // (word 7 - slot / 32, bit 31 - slot % 32), so that the walk takes the highest set bit first
  // (one FLO) and meets the batch's circles in order.
  // A pixel's words are stored swizzled (word w of pixel p at w ^ tiny_swizzle(p)): a warp's 32
  // circles set bits in one word of 32 pixels here and there, and unswizzled those words fell in
  // 32 / kWords banks only (p * kWords), an 8-way conflict a shared atomic; swizzled by the
  // pixel's next bits they spread over all 32 (H100, micro2M: shade 0.101 -> 0.099 ms).
  unsigned* const cover = reinterpret_cast<unsigned*>(&s_cover[0][0]);
  const unsigned my_word = kWords - 1 - threadIdx.x / 32;
  const unsigned bit = 1u << (31 - threadIdx.x % 32), word_bit = 1u << my_word;
  __syncthreads();  // s_px, s_py and the cleared masks
  for (unsigned base = first; base < end; base += kTinyThreads) {
    const bool mine = base + threadIdx.x < end;
    const float4 cq = q;
    if (base + kTinyThreads + threadIdx.x < end) {  // the next batches' circles, in flight meanwhile
      id = id_next;
      q = c.pos_rad[id];
      // Its colour copied into shared memory a batch ahead: no register held, and the copy waits
      // for device memory while this batch is tested and walked (a load here, read at the batch's
      // end, waited for device memory once a batch).
      __pipeline_memcpy_async(&s_col[buf ^ 1][threadIdx.x], c.color + id, sizeof(float4));
      // The id two batches ahead, loaded whether or not there is one (clamped to the range's last
      // id, never used past the end): loaded only where there was one, the old value was kept by a
      // predicated move right after the load, which waited for it there (Nsight Compute, micro2M:
      // 16% of the kernel's stall samples).
      id_next = a.ids[min(base + 2 * kTinyThreads + threadIdx.x, end - 1)];
    }
    __pipeline_commit();
    if (mine) {
      // The pixels whose centres the circle may cover: cpu-ref's covered centres lie within the
      // radius plus a few float roundings of it (8 ulps of |c| + r, in pixels, and 1/256 of a
      // pixel besides); clipped to the tile in float before any conversion to int.
      const float rr = cq.w * cq.w;
      const float sx = 8.f * (fabsf(cq.x) + cq.w) * v.scale * 1.1920929e-7f + 1.f / 256.f;
      const float sy = 8.f * (fabsf(cq.y) + cq.w) * v.scale * 1.1920929e-7f + 1.f / 256.f;
      const float cx = cq.x * v.scale + v.off_x - 0.5f, cy = cq.y * v.scale + v.off_y - 0.5f, cr = cq.w * v.scale;
      const float fi0 = fmaxf(ceilf(cx - cr - sx), static_cast<float>(x0));
      const float fi1 = fminf(floorf(cx + cr + sx), static_cast<float>(x1));
      const float fj0 = fmaxf(ceilf(cy - cr - sy), static_cast<float>(y0));
      const float fj1 = fminf(floorf(cy + cr + sy), static_cast<float>(y1));
      if (fi0 <= fi1 && fj0 <= fj1) {
        const int i0 = static_cast<int>(fi0) - x0, i1 = static_cast<int>(fi1) - x0;
        const int j0 = static_cast<int>(fj0) - y0, j1 = static_cast<int>(fj1) - y0;
        // One pixel centre: cpu-ref's coverage test to the bit (covers_dx2, with dx*dx given); a
        // covered one gets the circle's bit.
        auto test = [&](int li, int lj, float dx2, float dy) {
          const bool covers = covers_dx2(dx2, dy, rr);
          if (kCount) {
            ++tests;
            blends += covers;
          }
          if (covers) {
            const int pix = lj * TILE + li;
            atomicOr(cover + pix * kWords + (my_word ^ tiny_swizzle<kWords>(pix)), bit);
            atomicOr(&s_words[pix], word_bit);
          }
        };
        if (i1 - i0 <= 2 && j1 - j0 <= 2) {
          // A window of at most 3x3 (every tiny circle's): its centres loaded at once and the
          // nine tests unrolled, predicated, so the warp's lanes stay together.
          float wdx2[3], wdy[3];  // the window's columns' dx*dx and rows' dy
#pragma unroll
          for (int u = 0; u < 3; ++u) {
            const float dx = s_px[min(i0 + u, i1)] - cq.x;
            wdx2[u] = dx * dx;
            wdy[u] = s_py[min(j0 + u, j1)] - cq.y;
          }
#pragma unroll
          for (int r = 0; r < 3; ++r) {
#pragma unroll
            for (int u = 0; u < 3; ++u)
              if (j0 + r <= j1 && i0 + u <= i1) test(i0 + u, j0 + r, wdx2[u], wdy[r]);
          }
        } else {
          for (int lj = j0; lj <= j1; ++lj) {
            const float dy = s_py[lj] - cq.y;
            for (int li = i0; li <= i1; ++li) {
              const float dx = s_px[li] - cq.x;
              test(li, lj, dx * dx, dy);
            }
          }
        }
      }
    }
    __pipeline_wait_prior(1);  // this batch's colour copy (the next one's may still be in flight)
    __syncthreads();           // the batch's masks and colours
    // Each pixel's circles in order: the nonzero words of its mask (s_words), then each word's
    // bits, highest first (the reversed slots: circle order), in one loop whose passes are the
    // pixel's circles (nested loops over words and bits made each warp pass through every word
    // any lane had bits in). Both are cleared on the way for the next batch (only this thread
    // reads them).
#pragma unroll
    for (int k = 0; k < kPer; ++k) {
      const int p = threadIdx.x + k * kTinyThreads;
      unsigned* words = reinterpret_cast<unsigned*>(&s_cover[p][0]);
      unsigned nonzero = s_words[p];
      if (nonzero) s_words[p] = 0u;
      unsigned m = 0;
      int w = 0;
      while (m || nonzero) {
        if (m == 0) {  // the next nonzero word, cleared for the next batch
          w = 31 - __clz(nonzero);
          nonzero ^= 1u << w;
          const int ws = w ^ tiny_swizzle<kWords>(p);
          m = words[ws];
          words[ws] = 0u;
        }
        const int b = 31 - __clz(m);
        m ^= 1u << b;
        const int s = (kTinyThreads - 1) - (w * 32 + b);  // the circle's slot
        const float4 col = s_col[buf][s];  // premultiplied as the other kernels stage it: the same bits
        blend_over(px[k], 1.f - col.w, make_float4(col.w * col.x, col.w * col.y, col.w * col.z, col.w));
      }
    }
    __syncthreads();  // before the next batch's colours are copied over these and bits are set
    buf ^= 1;
  }
  if (kCount) add_work(a, tests, blends);
  record_tile_cycles(f, start);
#pragma unroll
  for (int k = 0; k < kPer; ++k) {
    const int p = threadIdx.x + k * kTinyThreads, i = x0 + p % TILE, j = y0 + p / TILE;
    if (i < v.width && j < v.height)
      f.image[static_cast<std::size_t>(j) * v.width + i] = make_float4(px[k].x, px[k].y, px[k].z, px[k].w);
  }
}

}  // namespace

namespace {

int bits_for(unsigned n) {
  int b = 0;
  while (b < 32 && (1ull << b) < n) ++b;
  return b;
}

class CudaTileBinnedRenderer final : public CudaRenderer {
 public:
  CudaTileBinnedRenderer(int tile, lab::LaunchFn scan, bool early, bool half_colour, const BinnedChoices& forced)
      : tile_(tile), scan_(scan), early_requested_(early), half_requested_(half_colour), early_(early) {
    if (!scan_) throw std::invalid_argument("cuda-tile-binned: no scan launcher (a build without the lab?)");
    if (tile_ != kSmallTile && tile_ != kLargeTile)  // the registry lets only these through
      throw std::invalid_argument("cuda-tile-binned: tile " + std::to_string(tile_) + ", not 16 or 32");
    CUDA_CHECK(cudaMallocHost(&host_stats_, sizeof *host_stats_));
    *host_stats_ = ChunkStats{0, 0};
    // Choices forced (RendererSettings::binned; tests and experiments), each checked by the
    // registry's resolve_settings.
    if (forced.max_pairs) limit_ = forced.max_pairs;  // a smaller pair budget forces chunking
    forced_ = forced.strategy;
    if (forced.rows) rows_ = forced.rows;
    early_forced_ = forced.force_early;
    sort_forced_ = forced.sort;
    if (forced.block) {  // a power of two from 32 to 1024, rounded down, as the count's shift needs
      forced_block_ = 32;
      while (forced_block_ < kBinMaxCircles && 2 * forced_block_ <= forced.block) forced_block_ *= 2;
    }
    forced_compose_ = forced.compose;
    forced_tiny_ = forced.tiny;
    forced_few_ = forced.few_scatter;
  }
  ~CudaTileBinnedRenderer() override { CUDA_CHECK_PRINT(cudaFreeHost(host_stats_)); }

  void load(const Scene& scene, int width, int height) override {
    const std::size_t n = scene.circles.size();
    const double tiles = std::ceil(width / double(tile_)) * std::ceil(height / double(tile_));
    // The pair budget: at most kMaxChunkPairs a chunk (and never fewer than one circle's worst
    // case, every tile); per pair the keys and ids, double-buffered for the sort, and the sort's
    // temporaries: about 20 bytes.
    budget_ = static_cast<unsigned long long>(std::max(tiles, static_cast<double>(std::min(limit_, kMaxChunkPairs))));
    const unsigned long long estimate = estimate_pairs(scene, width, height);
    const double pairs_bytes = 20.0 * static_cast<double>(std::min<unsigned long long>(budget_, estimate));
    // Binning by counting: a matrix of tiles x blocks of circles and its scan.
    const double matrix_bytes =
        tiles <= kBinMaxTiles ? 8.0 * std::min<double>(kBinMaxMatrix, tiles * std::ceil(n / 32.0)) : 0.0;
    // Per circle a count and an offset (8 B) and at most 4 B of the scan's temporaries; per tile
    // a range (8 B) and a settled flag; early exit a transmittance per pixel.
    const double extra =
        pairs_bytes + matrix_bytes + 12.0 * n + 9.0 * (tiles + 1) + (early_ ? 4.0 * width * height : 0.0);
    const double held = 4.0 * (keys_.size() + ids_.size() + keys_alt_.size() + ids_alt_.size()) +
                        2.0 * (keys16_.size() + keys16_alt_.size()) +
                        4.0 * (counts_.size() + offsets_.size() + matrix_.size() + matrix_offsets_.size()) +
                        8.0 * ranges_.size() + temp_.size() +
                        4.0 * transmittance_.size() + settled_.size();
    check_device_memory(scene, width, height, extra, "cuda-tile-binned/" + std::to_string(tile_),
                        "pair budget " + std::to_string(budget_), held);
    CudaRenderer::load_unchecked(scene, width, height);
    reset_device_memory_peak();
    half_colour_why_not_ = half_colour_refusal(scene);
    half_colour_ = half_requested_ && half_colour_why_not_.empty();
    // Compose runs of circles that cover a warp's whole 8x8 box when the typical circle is big
    // enough to: radius at least 16 pixels (the box's half diagonal is 5.7); and runs that cover
    // the whole tile when the radius is two tiles or more. For smaller circles the checks cost
    // more than they save (measured: rand10k and pattern 20% slower with tile runs).
    std::vector<float> radii;
    for (std::size_t k = 0; k < n; k += std::max<std::size_t>(1, n / 1024)) radii.push_back(scene.circles[k].radius);
    double mean_area = 0;  // in pixels
    for (float r : radii) mean_area += 3.14159265 * (r * std::min(width, height)) * (r * std::min(width, height));
    mean_area = radii.empty() ? 0.0 : mean_area / static_cast<double>(radii.size());
    const double depth_chunk = mean_area > 0 ? kFirstEarlyDepth * width * height / mean_area : static_cast<double>(n);
    first_early_chunk_ = static_cast<int>(std::min<double>(static_cast<double>(n), std::max<double>(kFirstEarlyChunk, depth_chunk)));
    std::nth_element(radii.begin(), radii.begin() + radii.size() / 2, radii.end());
    median_radius_px_ = radii.empty() ? 0.f : radii[radii.size() / 2] * static_cast<float>(std::min(width, height));
    // Early exit pays when pixels settle: flat circles of some size. Snow's flakes fade out from
    // the centre and tiny circles cover a pixel or two: hardly a tile ever settles, and the
    // front-to-back passes would only add chunks. Those scenes are drawn exactly.
    // Shallow scenes too: where a pixel lies under fewer than kEarlyMinDepth circles on average
    // (at alpha .5 it takes 9 to settle one), few tiles stop before their last circle, and the
    // exact kernels (four pixels a lane in direct frames) are the faster way to the same promise.
    const double depth = static_cast<double>(n) * mean_area / (static_cast<double>(width) * height);
    early_ = early_requested_;
    early_note_.clear();
    // Where early exit cannot keep its promise (a colour above 1, an alpha too small to bound the
    // reassociated sums: early_exit_refusal), the frame is drawn exact, test hook or not.
    const std::string bound = early_exit_refusal(scene);
    std::string why_exact;
    if (!bound.empty()) why_exact = bound;
    else if (scene.shading != Shading::Flat) why_exact = "snow shading fades, tiles do not settle";
    else if (median_radius_px_ < kEarlyMinRadiusPixels) why_exact = "median radius under 4 pixels, tiles do not settle";
    else if (depth < kEarlyMinDepth) {
      char d[120];
      std::snprintf(d, sizeof d, "a pixel lies under %.1f circles on average, under %.0f: few tiles settle", depth,
                    kEarlyMinDepth);
      why_exact = d;
    }
    if (early_requested_ && !why_exact.empty() && (!early_forced_ || !bound.empty())) {
      early_ = false;
      early_note_ = "early exit not taken (" + why_exact + "): drawn exact, which meets its promise; ";
    }
    // Tile runs (early exit only, below) from a radius of one and a half tiles, two in its direct
    // frames (whose kernels fold, and spill more with tile runs).
    // Box runs from a radius of 16 pixels, except in binned exact frames of flat circles at four
    // pixels a lane: there a frame without runs walks per row group of 8 lanes (shade_kernel's
    // kSubBoxes), whose smaller boxes pay better up to a radius of one tile (H100, 1024x1024,
    // random circles 320 deep, box runs against row groups: radius 16 pixels 0.343 -> 0.308 ms,
    // 24 0.264-0.267 -> 0.254, 32 0.227-0.229 -> 0.228-0.230, 40 0.202-0.203 -> 0.210-0.212;
    // stress10M at 3840x2160, radius 25: 12.25-12.27 -> 11.74-11.76; docs/bench/shade8).
    const int box = median_radius_px_ >= kComposeRadiusPixels ? 1 : 0;
    const bool row_groups = direct_four_rows() && scene.shading == Shading::Flat;
    const int binned_box = row_groups && median_radius_px_ < static_cast<float>(tile_) ? 0 : box;
    const float direct_runs = early_ ? 2.f : kBinnedTileRunsRadius;
    compose_direct_ = median_radius_px_ >= direct_runs * static_cast<float>(tile_) ? 2 : box;
    compose_binned_ = median_radius_px_ >= kBinnedTileRunsRadius * static_cast<float>(tile_) ? 2 : binned_box;
    if (forced_compose_ >= 0) compose_direct_ = compose_binned_ = forced_compose_;
    // Exact frames never pre-compose tile runs: a run's composed map rounds differently from its
    // circles blended one by one, and exact mode draws cpu-ref's bits. They take box runs instead
    // (each circle blended untested, in order).
    if (!early_) {
      compose_direct_ = std::min(compose_direct_, 1);
      compose_binned_ = std::min(compose_binned_, 1);
    }
    chunk_ = static_cast<int>(n);
    // Binning by counting sizes its blocks of circles from the pairs a circle has (the bounding
    // boxes' tiles, an upper bound, until a frame has counted them).
    pairs_per_circle_ = n ? static_cast<double>(estimate) / static_cast<double>(n) : 0.0;
  }

  std::string plan() const override { return plan_; }
  Mode mode() const override { return mode_; }
  bool count_work(bool on) override {
    counting_ = on;
    return true;
  }
  bool work(Workload* out) override {
    if (!have_work_) return false;
    unsigned long long w[2] = {0, 0};
    CUDA_CHECK(cudaMemcpyAsync(w, work_.get(), sizeof w, cudaMemcpyDeviceToHost, stream()));
    CUDA_CHECK(cudaStreamSynchronize(stream()));
    *out = last_work_;
    out->pixel_tests = w[0];
    out->blends = w[1];
    return true;
  }
  std::uint64_t device_memory_peak() const override { return circles::device_memory_peak(); }

 private:
  // The chunks' pair budget when nothing smaller is asked for: 2^26 pairs, ~1.3 GB of scratch.
  static constexpr unsigned long long kMaxChunkPairs = 1ull << 26;

  // The pairs of the first frame's circles (the host's walk; for the memory check only).
  unsigned long long estimate_pairs(const Scene& scene, int width, int height) const {
    const View v = make_view(width, height);
    unsigned long long pairs = 0;
    for (const Circle& c : scene.circles) {
      const TileRect t = tile_rect(c.x, c.y, c.radius, v, tile_shift());
      if (t.x1 >= t.x0) pairs += static_cast<unsigned long long>(t.x1 - t.x0 + 1) * (t.y1 - t.y0 + 1);
    }
    return pairs;
  }

  template <bool kEarly, bool kCount, int T, int R>
  void launch_shade_rows(dim3 grid, const FrameParams& f, const ShadeArgs& a) {
    constexpr int threads = T * T / R;
    auto launch = [&](auto kernel) { launch_dependent(kernel, grid, threads, 0, stream(), circles(), f, a); };
    if constexpr (!kEarly && !kCount && T == kLargeTile && R == 4) {
      if (a.step.kind != Animation::None) {  // fused_step_here() chose these kernels (exact: no tile runs)
        if (compose_ == 1)
          launch(shade_kernel<Shading::Flat, T, false, false, 1, R, true>);
        else
          launch(shade_kernel<Shading::Flat, T, false, false, 0, R, true>);
        return;
      }
    }
    if (a.step.kind != Animation::None) throw std::logic_error("cuda-tile-binned: a fused step with no kernel for it");
    if constexpr (kEarly) {  // tile runs: early exit only (exact frames draw cpu-ref's bits)
      if (compose_ == 2 && shading() == Shading::Flat) {
        launch(shade_kernel<Shading::Flat, T, kEarly, kCount, 2, R>);
        return;
      }
    }
    if (compose_ == 2 && !kEarly) throw std::logic_error("cuda-tile-binned: tile runs in an exact frame");
    if (shading() == Shading::Snow)
      launch(shade_kernel<Shading::Snow, T, kEarly, kCount, 0, R>);
    else if (compose_ == 1)
      launch(shade_kernel<Shading::Flat, T, kEarly, kCount, 1, R>);
    else if constexpr (!kEarly && T == kLargeTile && R == 4) {
      if (a.ranges)  // the row groups' walk of binned frames, eight pixels a lane
        launch_dependent(half_colour_ ? shade_rows8_kernel<kCount, true> : shade_rows8_kernel<kCount, false>, grid,
                         kRows8Threads, 0, stream(), circles(), f, a);
      else
        launch(shade_kernel<Shading::Flat, T, false, kCount, 0, R>);
    } else {
      launch(shade_kernel<Shading::Flat, T, kEarly, kCount, 0, R>);
    }
  }
  template <bool kEarly, bool kCount>
  void launch_shade(dim3 grid, const FrameParams& f, const ShadeArgs& a) {
    with_tile_size(tile_, [&](auto t) {
      constexpr int T = decltype(t)::value;
      // Exact frames at tile 32 take four pixels a lane (see shade_kernel), direct ones and binned
      // flat ones; the others two. --binned-rows 2 keeps them at two (tests, benchmarks).
      if constexpr (T == kLargeTile && !kEarly) {
        if (a.ranges ? binned_four_rows() : direct_four_rows()) {
          launch_shade_rows<kEarly, kCount, T, 4>(grid, f, a);
          return;
        }
      }
      launch_shade_rows<kEarly, kCount, T, 2>(grid, f, a);
    });
  }
  void shade(dim3 grid, const FrameParams& f, const ShadeArgs& a) {
    if (a.ranges && tiny_) {  // binned exact frames of tiny flat circles (see tiny_shade_kernel)
      with_tile_size(tile_, [&](auto t) {
        constexpr int T = decltype(t)::value;
        if (counting_) launch_dependent(tiny_shade_kernel<T, true>, grid, kTinyThreads, 0, stream(), circles(), f, a);
        else launch_dependent(tiny_shade_kernel<T, false>, grid, kTinyThreads, 0, stream(), circles(), f, a);
      });
      return;
    }
    if (early_) {
      if (counting_) launch_shade<true, true>(grid, f, a);
      else launch_shade<true, false>(grid, f, a);
    } else {
      if (counting_) launch_shade<false, true>(grid, f, a);
      else launch_shade<false, false>(grid, f, a);
    }
  }

  void draw() override {
    const DeviceCircles c = circles();
    const FrameParams f = frame_params();
    const int tiles_x = (f.view.width + tile_ - 1) / tile_;
    const int tiles_y = (f.view.height + tile_ - 1) / tile_;
    const unsigned tiles = static_cast<unsigned>(tiles_x * tiles_y);
    const dim3 grid(tiles_x, tiles_y);
    const int n = c.count;
    last_work_ = Workload{};
    last_work_.circles = static_cast<std::uint64_t>(n);
    ShadeArgs a;
    if (counting_) {
      work_.reserve(2);
      CUDA_CHECK(cudaMemsetAsync(work_.get(), 0, 2 * sizeof(unsigned long long), stream()));
      a.work = work_.get();
    }
    have_work_ = counting_;
    if (early_) {
      transmittance_.reserve(static_cast<std::size_t>(f.view.width) * f.view.height);
      settled_.reserve(tiles);
      a.transmittance = transmittance_.get();
      a.settled = settled_.get();
    }
    stats_.reserve(1);
    a.stats = stats_.get();

    BinnedStrategy why;
    const bool direct =
        forced_ == BinnedChoices::Strategy::Direct ||
        (forced_ != BinnedChoices::Strategy::Binned &&
         (why = binned_strategy(n, tiles, early_, shading() == Shading::Flat, median_radius_px_)).direct);
    compose_ = direct ? compose_direct_ : compose_binned_;
    mode_ = early_ ? Mode::EarlyExit : Mode::Exact;
    // Binned exact frames of tiny flat circles take the coverage-mask kernel.
    tiny_ = !direct && !early_ && shading() == Shading::Flat &&
            (forced_tiny_ >= 0 ? forced_tiny_ == 1 : median_radius_px_ <= kTinyRadiusPixels);
    if (tiny_) compose_ = 0;
    const std::string composing =
        tiny_           ? "; tiny circles: each pixel's covering circles marked in a mask, a thread a circle"
        : compose_ == 2 ? "; runs covering a whole tile or warp box composed"
        : compose_ == 1 ? "; runs covering a whole warp box composed"
                        : "";
    if (direct) {
      stage_begin("clear+shade");
      a.lo = 0;
      a.hi = n;
      // The shade kernel moves the circles where it has a kernel for it (it reads the old state
      // and writes the new aside); elsewhere the step takes a kernel of its own.
      if (fused_step_here()) a.step = take_step(false);
      else flush_step();
      shade(grid, f, a);
      stage("clear+shade");
      plan_ = early_note_ + "direct: " + (forced_ == BinnedChoices::Strategy::Direct ? std::string("--binned-strategy direct") : why.reason) +
              composing + (direct_four_rows() ? "; four pixels a lane" : "") + colour_note(false) +
              (a.step.kind != Animation::None ? "; the animation step done in the shade kernel" : "");
      return;
    }
    // The animation step: in the first count when that walks every circle (exact frames whose
    // pairs fit one chunk), else a kernel of its own now.
    FusedStep step;
    if (!early_ && chunk_ >= n) step = take_step(true);
    else flush_step();
    const bool step_fused = step.kind != Animation::None;

    if (early_) CUDA_CHECK(cudaMemsetAsync(settled_.get(), 0, tiles, stream()));
    // The chunks: exact mode walks the circles forward, early exit backward from the last; a
    // chunk whose pairs exceed the budget is halved until they fit (chunk_ remembers the size
    // that fit for the next frame).
    int done_lo = 0, done_hi = n;  // circles still to do: [done_lo, done_hi)
    int size = early_ ? std::min(n, first_early_chunk_) : std::max(1, std::min(chunk_, n));
    bool first = true, widened = false;
    unsigned long long open_before = tiles;  // open tiles before the last chunk was shaded
    int chunks = 0;
    unsigned long long pairs = 0;
    std::string binning;     // why a chunk that could bin by counting was sorted
    int binning_blocks = 0;  // circles a block where chunks were binned by counting
    bool sorted = false;     // whether any chunk was sorted
    bool ahead = false;      // whether the first chunk went ahead of its count (below)
    for (long long guard = 0; done_lo < done_hi || first; ++guard) {
      // Each pass either shades a chunk or halves one, so this bound is never reached.
      if (guard > 4ll * n + 64) throw std::logic_error("cuda-tile-binned: chunking made no progress");
      int lo = early_ ? std::max(done_lo, done_hi - size) : done_lo;
      int hi = early_ ? done_hi : std::min(done_hi, done_lo + size);
      stage_begin("count");
      CUDA_CHECK(cudaMemsetAsync(stats_.get(), 0, offsetof(ChunkStats, unsettled), stream()));
      counts_.reserve(std::max(hi - lo, 1));
      const unsigned char* settled = early_ && !first ? settled_.get() : nullptr;
      // Binning by counting where its matrix and blocks fit (circles a block; 0: the sort).
      const int per_block = hi > lo ? bin_block_size(hi - lo, tiles) : 0;
      if (per_block) {
        const int blocks = (hi - lo + per_block - 1) / per_block;
        matrix_.reserve(static_cast<std::size_t>(blocks) * tiles);
        // Up to eight matrix columns a count block, as many as the histograms' shared memory
        // takes, and no fewer blocks than SMs.
        const int columns = std::max(
            1, std::min({kBinMaxColumns, kBinHistInts / static_cast<int>(tiles), blocks / lab::sm_count()}));
        count_tile_blocks_kernel<<<(blocks + columns - 1) / columns, kBinCountThreads, columns * tiles * sizeof(int),
                                   stream()>>>(c, lo, hi, per_block, columns, blocks, f.view, tile_, tiles_x,
                                               static_cast<int>(tiles), settled, counts_.get(), matrix_.get(),
                                               stats_.get(), step);
        CUDA_CHECK_LAUNCH();
      } else if (hi > lo) {
        const int blocks = std::min(std::max(1, (hi - lo + kCountThreads - 1) / kCountThreads), lab::sm_count() * 8);
        count_tiles_kernel<<<blocks, kCountThreads, 0, stream()>>>(c, lo, hi, f.view, tile_, tiles_x, settled,
                                                                   counts_.get(), stats_.get(), step);
        CUDA_CHECK_LAUNCH();
      }
      step = FusedStep{};  // done: a count again (a halved chunk) must not move the circles twice
      const bool last = early_ ? lo == done_lo : hi == done_hi;
      unsigned long long total = 0;
      bool counting = per_block > 0;
      if (counting && first && guard == 0 && ids_.size() > 0) {
        // Ahead: the frame's first chunk, binned by counting into the ids buffer the last frames
        // grew, goes on to its scan, scatter and shade without waiting for the count; the
        // scatter checks the count on the device (too many pairs for the buffer, or a block's
        // for the scatter: it bins nothing), and the host reads it once, after the shade, and
        // does the chunk again the waiting way if it did not fit. No wait inside the frame.
        stage("count", true);
        bin_by_counting(c, f, lo, hi, per_block, tiles_x, tiles, settled);
        a.first = true;
        a.last = last;
        shade_chunk(grid, f, a, tiles);
        CUDA_CHECK(cudaMemcpyAsync(host_stats_, stats_.get(), sizeof *host_stats_, cudaMemcpyDeviceToHost, stream()));
        CUDA_CHECK(cudaStreamSynchronize(stream()));
        total = host_stats_->total;
        const unsigned long long worst = host_stats_->max_block;
        pairs_per_circle_ = static_cast<double>(worst) / std::min(per_block, hi - lo);
        if (total > ids_.size() || worst > static_cast<unsigned long long>(scatter_capacity_)) {
          if (early_) CUDA_CHECK(cudaMemsetAsync(settled_.get(), 0, tiles, stream()));
          // The heat map's cycles so far are that shade's, which drew nothing: the frame's count
          // starts again with the chunk (render() cleared them for this frame).
          if (f.tile_cycles) CUDA_CHECK(cudaMemsetAsync(f.tile_cycles, 0, tiles * sizeof *f.tile_cycles, stream()));
          continue;  // did not fit: the same chunk again, waiting for its count
        }
        ahead = true;
      } else {
        // The one wait of a chunk: the sort needs its exact size on the host.
        CUDA_CHECK(cudaMemcpyAsync(host_stats_, stats_.get(), sizeof *host_stats_, cudaMemcpyDeviceToHost, stream()));
        CUDA_CHECK(cudaStreamSynchronize(stream()));
        stage("count");
        total = host_stats_->total;
        const unsigned long long open = host_stats_->unsettled;  // after the last shade (early exit)
        if (!first && early_ && open == 0) break;                 // every tile has stopped
        if (!first && early_ && !widened && lo > done_lo && (open > tiles / 4 || 10 * open >= 9 * open_before)) {
          // Many tiles are still open, or the last chunk settled hardly any (tiles with pixels no
          // circle reaches, such as the margins of a wide frame, never settle): more chunks will
          // not pay, so the rest goes in one chunk (halved again if it exceeds the budget).
          size = done_hi - done_lo;
          widened = true;
          continue;
        }
        if (total > budget_ && hi - lo > 1) {
          size = std::max(1, (hi - lo) / 2);  // too many pairs for the budget: halve, count again
          if (!early_) chunk_ = size;
          continue;
        }
        // The most pairs of a block of circles: over the scatter's capacity, this chunk takes the
        // sort (its per-circle counts are there too) and later frames smaller blocks.
        if (counting) {
          const unsigned long long worst = host_stats_->max_block;
          if (first) pairs_per_circle_ = static_cast<double>(worst) / std::min(per_block, hi - lo);
          if (worst > static_cast<unsigned long long>(kBinCapacity)) {
            counting = false;
            char w[160];
            std::snprintf(w, sizeof w,
                          "; a block of %d circles had %llu pairs, over the %d that binning by counting takes: sorted",
                          per_block, worst, kBinCapacity);
            binning = w;
          }
        } else if (first && hi > lo) {
          // The mean, not the worst block: never lowered here, so a scene whose worst blocks did
          // not fit does not try again every other frame.
          pairs_per_circle_ = std::max(pairs_per_circle_, static_cast<double>(total) / (hi - lo));
        }
        if (!first) open_before = open;
        if (total > 0) {
          // Room for a few more pairs next frame, so that its first chunk can go ahead.
          ids_.reserve(std::min<unsigned long long>(budget_, total + total / 8));
          if (counting) bin_by_counting(c, f, lo, hi, per_block, tiles_x, tiles, settled, host_stats_->max_block);
          else bin(c, f, lo, hi, tiles_x, tiles, static_cast<unsigned>(total), first);
        }
        a.first = first;
        a.last = last;
        if (total > 0 || first || last) shade_chunk(grid, f, a, tiles, total == 0);
      }
      if (counting) binning_blocks = per_block;
      else sorted = true;
      ++chunks;
      last_work_.circles_binned += static_cast<std::uint64_t>(hi - lo);
      pairs += total;
      first = false;
      if (early_) {
        done_hi = lo;
        size = std::min(size * 2, kMaxEarlyChunk);
      } else {
        done_lo = hi;
      }
      if (last) break;
      if (ahead && early_ && host_stats_->unsettled == 0) break;  // read after the shade: every tile has stopped
    }
    last_work_.pairs = pairs;
    last_work_.chunks = static_cast<std::uint64_t>(chunks);
    char buf[200];
    std::snprintf(buf, sizeof buf, "binned%s: %s; %d chunk%s, %llu pairs", early_ ? " (early exit)" : "",
                  forced_ == BinnedChoices::Strategy::Binned ? "--binned-strategy binned" : why.reason.c_str(), chunks,
                  chunks == 1 ? "" : "s", pairs);
    if (binning_blocks)
      binning = "; binned by counting (blocks of " + std::to_string(binning_blocks) + " circles, a block's pairs sorted in " +
                std::to_string(scatter_capacity_) + " slots)" + binning;
    else if (binning.empty() && sorted) binning = "; sorted by tile (CUB radix sort)";
    if (ahead) binning += "; the first chunk shaded without waiting for its count";
    if (binned_eight_rows() && half_colour_) mode_ = Mode::HalfColour;
    plan_ = early_note_ + buf + binning + composing +
            (binned_eight_rows() ? "; eight pixels a lane" : binned_four_rows() ? "; four pixels a lane" : "") +
            colour_note(binned_eight_rows()) +
            (step_fused ? "; the animation step done in the first count" : "");
  }

  // The shade of a binned chunk (`empty`: no pairs, so no ranges were written).
  void shade_chunk(dim3 grid, const FrameParams& f, ShadeArgs& a, unsigned tiles, bool empty = false) {
    stage_begin("clear+shade");
    ranges_.reserve(tiles);
    if (empty) CUDA_CHECK(cudaMemsetAsync(ranges_.get(), 0, tiles * sizeof(uint2), stream()));
    a.ranges = ranges_.get();
    a.ids = ids_sorted_;
    // The unsettled tiles the host reads with the next chunk's total are this shade's.
    if (early_) CUDA_CHECK(cudaMemsetAsync(&stats_.get()->unsettled, 0, sizeof(unsigned long long), stream()));
    shade(grid, f, a);
    stage("clear+shade");
  }

  // Circles a block for binning a chunk of `circles` by counting, or 0 where it does not fit
  // (too many tiles for the shared histogram, a matrix over kBinMaxMatrix, circles with too many
  // pairs even 32 to a block) or --binned-sort. As many as keep a block's pairs
  // (pairs_per_circle_, the worst block's last time) within three quarters of the scatter's
  // capacity and leave two blocks an SM.
  int bin_block_size(int circles, unsigned tiles) const {
    constexpr double fill = 0.75 * kBinCapacity;
    if (sort_forced_ || tiles > static_cast<unsigned>(kBinMaxTiles)) return 0;
    if (forced_block_) return static_cast<long long>((circles + forced_block_ - 1) / forced_block_) * tiles <= kBinMaxMatrix ? forced_block_ : 0;
    if (32 * pairs_per_circle_ > fill) return 0;
    int per = kBinMaxCircles;
    while (per > 32 && (per * pairs_per_circle_ > fill || (circles + per - 1) / per < 2 * lab::sm_count())) per /= 2;
    const long long blocks = (circles + per - 1) / per;
    return blocks * tiles <= kBinMaxMatrix ? per : 0;
  }

  // The "scan" stage: the exclusive scan of n counts that the count kernel just wrote (`--scan`'s
  // launcher, launched dependent on that kernel: the look-back scan overlaps its tail) into out.
  void scan(const DeviceBuffer<int>& in, DeviceBuffer<int>& out, std::size_t n) {
    stage_begin("scan");
    out.reserve(std::max<std::size_t>(n, 1));
    lab::LaunchArgs s;
    s.in = in.get();
    s.out = out.get();
    s.shape.n = n;
    s.type = lab::Elem::i32;
    s.scratch = &scratch_;
    s.stream = stream();
    s.dependent = true;
    scan_(s);
    stage("scan", true);
  }

  // Binning by counting for the chunk [lo, hi) counted in blocks of per_block circles: the scan
  // over its matrix, then the scatter of its pairs' ids (into ids_, as they fit: the scatter
  // checks the count's total against its size) and the tile ranges.
  // `worst`: the chunk's worst block's pairs where the host has read them (0 where it went ahead).
  void bin_by_counting(const DeviceCircles& c, const FrameParams& f, int lo, int hi, int per_block, int tiles_x,
                       unsigned tiles, const unsigned char* settled, unsigned long long worst = 0) {
    const int blocks = (hi - lo + per_block - 1) / per_block;
    const std::size_t cells = static_cast<std::size_t>(blocks) * tiles;
    scan(matrix_, matrix_offsets_, cells);
    stage_begin("scatter");
    ranges_.reserve(tiles);
    // The smaller sort where the worst block's pairs fit it: known, or expected from the last
    // frame's worst block with a tenth to spare (a block over it makes the chunk go again, the
    // waiting way, with the sort that fits).
    const double expect = worst ? static_cast<double>(worst) : pairs_per_circle_ * std::min(per_block, hi - lo);
    const bool few = worst ? expect <= kBinCapacityFew : forced_few_ || expect <= 0.9 * kBinCapacityFew;
    scatter_capacity_ = few ? kBinCapacityFew : kBinCapacity;
    auto scatter = few ? scatter_tile_blocks_kernel<kBinItemsFew> : scatter_tile_blocks_kernel<kBinItems>;
    launch_dependent(scatter, blocks, kBinThreads, tiles * sizeof(int), stream(), c, lo, hi, per_block, f.view, tile_,
                     tiles_x, static_cast<int>(tiles), std::max(1, bits_for(tiles)), settled, counts_.get(),
                     matrix_offsets_.get(), stats_.get(), ids_.size(), ids_.get(), ranges_.get());
    ids_sorted_ = ids_.get();
    stage("scatter", true);
  }

  // Scan, duplicate, sort and ranges for the chunk [lo, hi), whose `total` pairs fit the budget.
  void bin(const DeviceCircles& c, const FrameParams& f, int lo, int hi, int tiles_x, unsigned tiles,
           unsigned total, bool first) {
    scan(counts_, offsets_, static_cast<std::size_t>(hi - lo));
    // Tile keys fit 16 bits up to 65,536 tiles (4096x4096 at tile 16): the sort then moves 6
    // bytes a pair each pass instead of 8.
    if (tiles <= 65536u) sort_pairs(c, f, lo, hi, tiles_x, tiles, total, first, keys16_, keys16_alt_);
    else sort_pairs(c, f, lo, hi, tiles_x, tiles, total, first, keys_, keys_alt_);
  }

  // Duplicate, sort and ranges with tile keys of type Key.
  template <class Key>
  void sort_pairs(const DeviceCircles& c, const FrameParams& f, int lo, int hi, int tiles_x, unsigned tiles,
                  unsigned total, bool first, DeviceBuffer<Key>& keys_buf, DeviceBuffer<Key>& keys_alt_buf) {
    stage_begin("duplicate");
    keys_buf.reserve(total);
    ids_.reserve(total);
    keys_alt_buf.reserve(total);
    ids_alt_.reserve(total);
    // Staged in shared memory where the circles have more than two pairs each on average.
    const bool in_shared = total > 2ull * static_cast<unsigned long long>(hi - lo);
    const std::size_t stage_bytes = in_shared ? kDupStage * (sizeof(unsigned) + sizeof(Key)) : 0;
    duplicate_pairs_kernel<Key><<<(hi - lo + kDupThreads - 1) / kDupThreads, kDupThreads, stage_bytes, stream()>>>(
        c, lo, hi, f.view, tile_, tiles_x, early_ && !first ? settled_.get() : nullptr, counts_.get(), offsets_.get(),
        total, in_shared, keys_buf.get(), ids_.get());
    CUDA_CHECK_LAUNCH();
    stage("duplicate", true);
    stage_begin("sort");
    cub::DoubleBuffer<Key> keys(keys_buf.get(), keys_alt_buf.get());
    cub::DoubleBuffer<unsigned> ids(ids_.get(), ids_alt_.get());
    const int end_bit = std::max(1, bits_for(tiles));
    std::size_t sort_bytes = 0;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys, ids, static_cast<int>(total), 0, end_bit,
                                               stream()));
    temp_.reserve(sort_bytes);
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp_.get(), sort_bytes, keys, ids, static_cast<int>(total), 0,
                                               end_bit, stream()));
    stage("sort", true);
    stage_begin("ranges");
    ranges_.reserve(tiles);
    CUDA_CHECK(cudaMemsetAsync(ranges_.get(), 0, tiles * sizeof(uint2), stream()));
    constexpr unsigned threads = 256, per_block = threads * 8;  // eight pairs a thread
    tile_ranges_kernel<Key><<<(total + per_block - 1) / per_block, threads, 0, stream()>>>(keys.Current(), total,
                                                                                          ranges_.get());
    CUDA_CHECK_LAUNCH();
    ids_sorted_ = ids.Current();
    stage("ranges", true);
  }

  int shade_tile() const override { return tile_; }
  // Each frame's animation step runs inside the direct shade kernel or the first count.
  bool fuses_steps() const override { return true; }
  // Early exit's first chunk: at least this many circles; then each chunk doubles.
  static constexpr int kFirstEarlyChunk = 16384;
  // The first chunk holds enough of the last circles to cover a pixel this many times on
  // average (from the loaded circles' mean area): at alpha .5, 9 layers settle a pixel, but a
  // tile stops only when its thinnest spot has; 48 settled rand1M in one chunk where 24 took two.
  static constexpr double kFirstEarlyDepth = 48.0;
  int first_early_chunk_ = kFirstEarlyChunk;
  static constexpr int kMaxEarlyChunk = 1 << 24;
  const int tile_;
  int tile_shift() const { return tile_ == kLargeTile ? 5 : 4; }  // tile_rect's: tile_ == 1 << tile_shift()
  const lab::LaunchFn scan_;  // a lab exclusive_scan launcher (app/registry.cpp picks it)
  const bool early_requested_;  // --early-exit
  const bool half_requested_;   // --half-colour
  // Why the eight-pixel walk may not keep this scene's colour in half precision (HalfPixel), or
  // "" (half_colour_refusal, at load); half_colour_: it does (asked for, and allowed).
  std::string half_colour_why_not_;
  bool half_colour_ = false;
  // What became of --half-colour in a frame (eight: the frame took the eight-pixel walk); "" when
  // it was not asked for.
  std::string colour_note(bool eight) const {
    if (!half_requested_ || early_) return "";
    if (!eight) return "; colour in float (half colour not taken: only the eight-pixel walk's frames take it)";
    if (half_colour_) return "; colour in half precision (--half-colour: within 2^-10 of cpu-ref)";
    return "; colour in float (half colour not taken: " + half_colour_why_not_ + ")";
  }
  // Whether frames composite front to back and stop early: as requested, unless the scene will
  // not settle (set at load; exact frames meet early exit's promise too, and cost less then).
  bool early_;
  std::string early_note_;  // why early exit was not taken, "" when it was (or not asked for)
  static constexpr float kComposeRadiusPixels = 16.f;
  static constexpr float kEarlyMinRadiusPixels = 4.f;
  static constexpr double kEarlyMinDepth = 16.0;  // circles over a pixel on average
  bool early_forced_ = false;  // BinnedChoices::force_early
  float median_radius_px_ = 0.f;  // of the loaded circles (a sample), in pixels
  // The shade kernel composes runs of circles covering whole warp boxes (1), and also pre-composes
  // runs covering the whole tile (2: median radius of one and a half tiles or more; two in early
  // exit's direct frames); compose_ is this frame's.
  static constexpr float kBinnedTileRunsRadius = 1.5f;  // in tiles
  int compose_ = 0, compose_direct_ = 0, compose_binned_ = 0;
  // Binned exact frames of flat circles this small (median radius, pixels) take
  // tiny_shade_kernel; tiny_ is this frame's choice, forced_tiny_ BinnedChoices::tiny.
  static constexpr float kTinyRadiusPixels = 2.f;
  bool tiny_ = false;
  int forced_tiny_ = -1;
  lab::Scratch scratch_;      // its temporaries; grows to the largest chunk, then stays
  unsigned long long limit_ = ~0ull;
  unsigned long long budget_ = kMaxChunkPairs;
  int chunk_ = 0;  // exact mode: circles per chunk that fit the budget last time
  BinnedChoices::Strategy forced_ = BinnedChoices::Strategy::Choose;
  int rows_ = 4;        // exact frames at tile 32 (direct; binned flat): pixels a lane (BinnedChoices::rows)
  // Whether this renderer's direct frames shade four pixels a lane: the one rule the launch and
  // the plan both read.
  bool direct_four_rows() const { return tile_ == kLargeTile && !early_ && rows_ == 4; }
  // Binned exact frames too, of flat circles the warps' walk shades (not snow's per-pixel alpha,
  // whose shade went 0.058 -> 0.074 ms with four; not the tiny-circle kernel's): H100, rand100k
  // 0.538-0.544 -> 0.499-0.503 ms, rand1M 0.569-0.577 -> 0.563-0.566, stress10M at 4K unchanged
  // (docs/bench/shade3).
  bool binned_four_rows() const { return direct_four_rows() && !tiny_ && shading() == Shading::Flat; }
  // Of those, the frames that compose no runs walk at eight pixels a lane (shade_rows8_kernel:
  // launch_shade_rows's flat, compose-0 branch at four rows, binned).
  bool binned_eight_rows() const { return binned_four_rows() && compose_ == 0; }
  // Whether a direct frame's shade kernel takes the animation step (shade_kernel's kStep): flat
  // exact frames at four pixels a lane, not counting work; never snow's step.
  bool fused_step_here() const {
    return direct_four_rows() && !counting_ && shading() == Shading::Flat && animation() != Animation::Snow;
  }
  std::string plan_;
  Mode mode_ = Mode::Exact;  // the last frame's
  bool counting_ = false, have_work_ = false;
  Workload last_work_;
  DeviceBuffer<unsigned long long> work_;
  DeviceBuffer<unsigned> keys_, ids_, keys_alt_, ids_alt_;
  DeviceBuffer<unsigned short> keys16_, keys16_alt_;  // the keys when the tiles fit 16 bits
  const unsigned* ids_sorted_ = nullptr;
  DeviceBuffer<int> counts_, offsets_;
  DeviceBuffer<int> matrix_, matrix_offsets_;  // binning by counting: tiles x blocks, and scanned
  double pairs_per_circle_ = 0;  // the worst block's last time (binning by counting sizes blocks by it)
  int scatter_capacity_ = kBinCapacity;  // the last scatter's pairs a block (its sort's slots)
  bool forced_few_ = false;               // BinnedChoices::few_scatter
  bool sort_forced_ = false;     // BinnedChoices::sort
  int forced_block_ = 0;         // BinnedChoices::block
  int forced_compose_ = -1;      // BinnedChoices::compose
  DeviceBuffer<ChunkStats> stats_;
  DeviceBuffer<uint2> ranges_;
  DeviceBuffer<unsigned char> temp_, settled_;
  DeviceBuffer<float> transmittance_;
  ChunkStats* host_stats_ = nullptr;  // pinned
};

}  // namespace

std::unique_ptr<Renderer> make_cuda_tile_binned_renderer(const RendererSettings& s, lab::LaunchFn scan) {
  return std::make_unique<CudaTileBinnedRenderer>(s.tile_size, scan, s.early_exit, s.half_colour, s.binned);
}

}  // namespace circles
