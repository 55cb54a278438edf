// Binning by counting, the default where it fits: per block of circles, how many touch each
// tile, into a tile x block matrix whose exclusive scan gives every (tile, block) its slots; the
// scatter sorts a block's pairs by tile in shared memory and writes its circle ids there.
#pragma once
#include <cub/block/block_radix_sort.cuh>

#include <algorithm>

#include "kernels/cuda/dependent_launch.cuh"
#include "kernels/renderers/base.cuh"
#include "render/raster.h"
#include "kernels/renderers/binned/chunk_args.cuh"
#include "kernels/renderers/binned/geometry.cuh"
#include "kernels/renderers/binned/sort_path.cuh"

namespace circles::binned {

// Binning by counting (where it fits; sort_path.cuh is the fallback). The chunk's circles go
// in blocks of `per_block` (at most kBinMaxCircles); the count writes, per block, how many of its
// circles touch each tile into a tile-major matrix (matrix[tile * blocks + block]), so one
// exclusive scan over the matrix gives every (tile, block) its first slot in the tile-ordered
// pair list; the scatter then writes each block's circle ids straight to their slots. No global
// sort, no keys in memory, and the tile ranges come from the scanned matrix.
constexpr int kBinThreads = 256;
constexpr int kBinItems = 8;                             // pairs a thread in the scatter's block sort
constexpr int kBinCapacity = kBinThreads * kBinItems;    // pairs a block of circles may have
// The scatter's smaller sort (1,280 slots), for blocks whose pairs fit it: a block of small
// circles, about one pair each, would leave the 2,048-slot sort half padding.
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

// Counts each block of circles' pairs per tile: shared-memory atomics, whole-sector matrix stores.
// So it is bound by memory (reading the circles, writing the matrix).
// A thread block takes `columns` blocks of `per_block` circles of [lo, hi) (one matrix column
// each); each circle's tiles are counted into its column's shared histogram and into counts (the
// per-circle counts the sort needs if the chunk falls back to it). The histograms then go out as
// the matrix's columns, a tile's `columns` entries side by side (eight ints: one sector, where
// an entry a column would cost a sector each), and each column's pair total into stats (sum and
// maximum: the host checks the maximum against the scatter's kBinCapacity). 1024 threads, so
// that two blocks of eight columns fill an SM.
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
  // A tile's kBinMaxColumns entries a step of the loop (those past `mine` skipped), so that the
  // index splits by shifts, not by a division by `mine`, a long instruction sequence an entry.
  for (int i = threadIdx.x; i < tiles * kBinMaxColumns; i += kBinCountThreads) {
    const int t = i / kBinMaxColumns, g = i % kBinMaxColumns;
    if (g < mine) matrix[static_cast<long long>(t) * blocks + column0 + g] = s_hist[g * tiles + t];
  }
  if (threadIdx.x < mine && s_total[threadIdx.x]) {
    atomicAdd(&stats->total, static_cast<unsigned long long>(s_total[threadIdx.x]));
    atomicMax(&stats->max_block, static_cast<unsigned long long>(s_total[threadIdx.x]));
  }
}

// Writes each block of circles' ids to their tile-ordered slots: fast, its only sort on chip.
// No global sort and no keys in memory, and a tile's ids from a block go out as one run.
// A thread block per block of circles (as counted): each thread takes up to four consecutive
// circles, a block scan of their counts places every circle's (tile, index) keys in circle
// order in shared memory, a block radix sort on the tile bits alone (stable, so each tile's
// circles stay in order) groups them by tile, and each key's id goes to its tile's slot for
// this block (from the scanned matrix) plus its rank in the tile. Every block also writes a
// share of the tile ranges. The count's total and worst block are checked before anything is
// written: when the pairs do not fit `capacity` ids or a block's do not fit the sort (the host
// went ahead without reading them), every range is empty, nothing else is written, and the
// host does the chunk again. kItems: pairs a thread in the block sort (kBinItems, or
// kBinItemsFew where the host expects a block's pairs to fit).
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
  // Launched dependent after the scan (kernels/cuda/dependent_launch.cuh): its offsets are read after
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
  // Each run's first key takes its tile's slot for this block from the scanned matrix. Every
  // item loads (a padding key or a run's later key loads tile 0's entry and drops it), so the
  // kItems loads are all issued before the first is used, instead of a conditional load an
  // item that each waits for in turn.
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

// The launches of binning by counting, in the order a chunk takes them.

// The count of the chunk's blocks of `per_block` circles: up to eight matrix columns a count
// block, as many as the histograms' shared memory takes, and no fewer blocks than SMs.
inline void launch_count_tile_blocks(const ChunkArgs& a, int per_block, int sms, int* matrix, cudaStream_t stream) {
  const int blocks = (a.hi - a.lo + per_block - 1) / per_block;
  const int columns = std::max(1, std::min({kBinMaxColumns, kBinHistInts / a.tiles, blocks / sms}));
  count_tile_blocks_kernel<<<(blocks + columns - 1) / columns, kBinCountThreads, columns * a.tiles * sizeof(int),
                             stream>>>(a.c, a.lo, a.hi, per_block, columns, blocks, a.v, a.tile, a.tiles_x, a.tiles,
                                       a.settled, a.counts, matrix, a.stats, a.step);
  CUDA_CHECK_LAUNCH();
}

// The scatter of the chunk's blocks into `capacity` ids and the tile ranges, launched dependent on
// the scan before it; `few`: the smaller block sort (kBinItemsFew pairs a thread).
inline void launch_scatter(const ChunkArgs& a, int per_block, bool few, const int* offsets,
                           unsigned long long capacity, unsigned* ids, uint2* ranges, cudaStream_t stream) {
  const int blocks = (a.hi - a.lo + per_block - 1) / per_block;
  auto kernel = few ? scatter_tile_blocks_kernel<kBinItemsFew> : scatter_tile_blocks_kernel<kBinItems>;
  launch_dependent(kernel, blocks, kBinThreads, a.tiles * sizeof(int), stream, a.c, a.lo, a.hi, per_block, a.v, a.tile,
                   a.tiles_x, a.tiles, tile_bits(static_cast<unsigned>(a.tiles)), a.settled, a.counts, offsets, a.stats,
                   capacity, ids, ranges);
}

}  // namespace circles::binned
