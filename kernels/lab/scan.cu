// The scan ladder (task exclusive_scan, int and float) and three applications built on its last
// rung (find_repeats, compact, segmented_scan).
//
//   scan-blelloch-global  Blelloch's up-sweep/down-sweep straight in global memory, one launch per
//                         level: 2 log2(n) passes over memory, the later ones strided.
//   scan-hillis-steele    one tile per block scanned in shared memory (Hillis-Steele, n log n adds),
//                         then the tile totals scanned the same way (recursively) and added back.
//   scan-blelloch-shared  the tile scan becomes Blelloch's work-efficient tree (2n adds); its
//                         strided shared accesses pile up on few banks.
//   scan-blelloch-padded  the same tree with one pad word every 32 (GPU Gems 3, ch. 39).
//   scan-warp-shuffle     16 items per thread in registers (16-byte vector loads), warp scans with
//                         __shfl_up_sync, one shared slot per warp: few instructions and barriers
//                         per element; still the block-sums pass.
//   scan-lookback         one pass: tiles take ids from a counter, publish their sum and look back
//                         at their predecessors' (decoupled look-back, Merrill & Garland 2016).
//   scan-cub              cub::DeviceScan::ExclusiveSum, the library line.
// find_repeats and compact_scan are the look-back scan over 0/1 flags with the scatter fused in
// (one pass); segmented_scan is the look-back scan over (head flag, value) pairs (one pass).
// Every multi-pass rung handles any n: the tile totals are scanned recursively by the same kernel.
// The block-level scans inside the tiles (Hillis-Steele, Blelloch with and without padding, the
// warp-shuffle block scan) are in block_scan.cuh, where cuda-tile-scan's `--scan` also finds them.
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "kernels/cuda/check.h"
#include "kernels/cuda/dependent_launch.cuh"
#include "kernels/primitives/block_scan.cuh"
#include "kernels/lab/lab_launch.h"
#include "kernels/primitives/warp.cuh"

namespace circles::lab {

namespace {

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

// Segmented scan's element: f = "a segment starts in here", v = the sum since the last start.
template <class T>
struct SegPair {
  int f;
  T v;
};
// (f1, v1) + (f2, v2) = (f1 | f2, f2 ? v2 : v1 + v2): associative, not commutative.
struct SegOp {
  template <class T>
  __device__ __forceinline__ SegPair<T> operator()(SegPair<T> a, SegPair<T> b) const {
    return SegPair<T>{a.f | b.f, b.f ? b.v : add(a.v, b.v)};
  }
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

using circles::shfl_up;  // int and float (kernels/primitives/block_scan.cuh); the pair's overload joins them here
template <class T>
__device__ __forceinline__ SegPair<T> shfl_up(SegPair<T> p, int d) {
  return SegPair<T>{shfl_up(p.f, d), shfl_up(p.v, d)};
}
__device__ __forceinline__ int shfl_idx(int v, int src) { return __shfl_sync(kFullMask, v, src); }
__device__ __forceinline__ float shfl_idx(float v, int src) { return __shfl_sync(kFullMask, v, src); }
template <class T>
__device__ __forceinline__ SegPair<T> shfl_idx(SegPair<T> p, int src) {
  return SegPair<T>{shfl_idx(p.f, src), shfl_idx(p.v, src)};
}

// ---------------------------------------------------------------------------------------------
// Rung 1: Blelloch in global memory. The tree runs over a virtual power-of-two length P >= n:
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
void blelloch_global(const LaunchArgs& a) {
  const std::size_t n = a.shape.n;
  T* out = static_cast<T*>(a.out);
  std::size_t p = 1;
  while (p < n) p <<= 1;
  T* tail = a.scratch->get_as<T>(p - n, 0);
  CUDA_CHECK(cudaMemcpyAsync(out, a.in, n * sizeof(T), cudaMemcpyDeviceToDevice, a.stream));
  if (p > n) CUDA_CHECK(cudaMemsetAsync(tail, 0, (p - n) * sizeof(T), a.stream));
  const VirtualArray<T> v{out, tail, n};
  constexpr int kThreads = 256;
  const std::size_t max_blocks = static_cast<std::size_t>(sm_count()) * 8;
  // A pair whose block of 2*stride elements starts at or past n only touches virtual elements
  // that no real one depends on: only the first ceil(n / (2*stride)) pairs of a level run.
  for (std::size_t s = 1; s < p; s <<= 1) {
    const std::size_t pairs = ceil_div(n, 2 * s);
    const unsigned blocks = static_cast<unsigned>(std::min(ceil_div(pairs, kThreads), max_blocks));
    scan_blelloch_global_upsweep_kernel<T><<<blocks, kThreads, 0, a.stream>>>(v, s, pairs);
    CUDA_CHECK_LAUNCH();
  }
  // The root (index P-1) holds the total; the exclusive scan starts from zero there.
  T* root = p == n ? out + (n - 1) : tail + (p - 1 - n);
  CUDA_CHECK(cudaMemsetAsync(root, 0, sizeof(T), a.stream));
  for (std::size_t s = p >> 1; s > 0; s >>= 1) {
    const std::size_t pairs = ceil_div(n, 2 * s);
    const unsigned blocks = static_cast<unsigned>(std::min(ceil_div(pairs, kThreads), max_blocks));
    scan_blelloch_global_downsweep_kernel<T><<<blocks, kThreads, 0, a.stream>>>(v, s, pairs);
    CUDA_CHECK_LAUNCH();
  }
}

// ---------------------------------------------------------------------------------------------
// Rungs 2-5: a tile per block, then the block sums. A tile kernel scans its tile (exclusive),
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
void run_hierarchy(const LaunchArgs& a, std::size_t tile, TileScanFn<T> fn) {
  const std::size_t n = a.shape.n;
  T* sums = a.scratch->get_as<T>(hierarchy_sums(n, tile), 0);
  scan_hierarchy<T>(static_cast<const T*>(a.in), static_cast<T*>(a.out), n, tile, fn, sums, a.stream);
}

// --- Rung 2: Hillis-Steele.
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

// --- Rungs 3 and 4: Blelloch in shared memory, 256 threads x 2 elements.
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
// Block-level building blocks of rungs 5 and 6 (and the applications): 256 threads, 16 items
// each, a tile of 4096 elements.

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
// The select kernel fits full occupancy (32 registers) without spills on sm_90; elsewhere 3/4 of it.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
constexpr int kSelectBlocksPerSm = kBlocksPerSm * 3 / 4;
#else
constexpr int kSelectBlocksPerSm = kBlocksPerSm;
#endif

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

// --- Rung 5: warp shuffles, still with the block-sums pass.

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
// Rung 6: decoupled look-back. Each tile has a 64-bit status word: the high half holds the
// status (0 = nothing yet, 1 = the tile's own aggregate, 2 = the inclusive prefix through this
// tile; for SegPair also the segment flag in bit 2) and, in its top 24 bits, the launch's epoch
// (Scratch::lookback: a word of another epoch, left by an earlier launch, reads as nothing yet,
// so no launch clears the words first), the low half the value's 32 bits. One word, so status and
// value are published and read together by single relaxed 64-bit accesses; nothing else in
// memory depends on them, so no fences are needed.

constexpr unsigned kStatusInvalid = 0, kStatusAggregate = 1, kStatusPrefix = 2;
constexpr unsigned kSpinNs = 100;  // back-off between polls of a window with empty tiles
using Word = unsigned long long;

__device__ __forceinline__ Word load_relaxed(const Word* p) {
  Word w;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(w) : "l"(p) : "memory");
  return w;
}
__device__ __forceinline__ void store_relaxed(Word* p, Word w) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(w) : "memory");
}

constexpr int kEpochShift = 40;  // the epoch's place in a status word (its top 24 bits)
template <class V>
struct StatusWord {
  static __device__ __forceinline__ Word pack(unsigned status, V v) {
    return (static_cast<Word>(status) << 32) | bits_of(v);
  }
  static __device__ __forceinline__ V value(Word w) { return from_bits<V>(static_cast<unsigned>(w)); }
};
template <class T>
struct StatusWord<SegPair<T>> {
  static __device__ __forceinline__ Word pack(unsigned status, SegPair<T> p) {
    return (static_cast<Word>(status | (p.f ? 4u : 0u)) << 32) | bits_of(p.v);
  }
  static __device__ __forceinline__ SegPair<T> value(Word w) {
    return SegPair<T>{static_cast<int>((w >> 34) & 1), from_bits<T>(static_cast<unsigned>(w))};
  }
};
__device__ __forceinline__ Word with_epoch(Word w, unsigned epoch) {
  return w | (static_cast<Word>(epoch) << kEpochShift);
}
// A word's status in this launch: nothing yet where an earlier launch (another epoch) wrote it.
__device__ __forceinline__ unsigned status_of(Word w, unsigned epoch) {
  return static_cast<unsigned>(w >> kEpochShift) == epoch ? static_cast<unsigned>(w >> 32) & 3u : kStatusInvalid;
}

// Run by all 32 lanes of one warp: publishes the tile's aggregate, then walks back over its
// predecessors 32 at a time (lane l reads tile end-32+l), waiting until none of the window is
// still empty, and folds the window's values from the nearest inclusive prefix on; stops at the
// first window holding one. Publishes the tile's inclusive prefix and returns its exclusive one.
template <class V, class Op>
__device__ V lookback_exclusive_prefix(Word* status, unsigned epoch, unsigned tile, V aggregate, Op op, int lane) {
  using SW = StatusWord<V>;
  if (tile == 0) {
    if (lane == 0) store_relaxed(&status[0], with_epoch(SW::pack(kStatusPrefix, aggregate), epoch));
    return V{};
  }
  if (lane == 0) store_relaxed(&status[tile], with_epoch(SW::pack(kStatusAggregate, aggregate), epoch));
  V prefix{};
  long long end = tile;  // the window is tiles [end - 32, end)
  for (;;) {
    const long long idx = end - 32 + lane;
    Word w;
    for (;;) {
      w = idx >= 0 ? load_relaxed(&status[idx]) : with_epoch(SW::pack(kStatusPrefix, V{}), epoch);
      if (!__any_sync(kFullMask, status_of(w, epoch) == kStatusInvalid)) break;
      __nanosleep(kSpinNs);  // let the predecessors' stores through instead of hammering L2
    }
    const unsigned prefixes = __ballot_sync(kFullMask, status_of(w, epoch) == kStatusPrefix);
    const int from = prefixes ? 31 - __clz(static_cast<int>(prefixes)) : 0;
    V v = lane >= from ? SW::value(w) : V{};
    // Ordered fold of the window (lane order is tile order): inclusive scan, take lane 31.
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const V y = shfl_up(v, d);
      if (lane >= d) v = op(y, v);
    }
    prefix = op(shfl_idx(v, 31), prefix);
    if (prefixes) break;
    end -= 32;
  }
  if (lane == 0) store_relaxed(&status[tile], with_epoch(SW::pack(kStatusPrefix, op(prefix, aggregate)), epoch));
  return prefix;
}

// The tile this block works on, in the order blocks start (so every tile it may wait for has a
// running block), and the shared words the look-back kernels use. The block that takes the last
// tile puts the counter back to 0 for the next launch: every block of this one has taken its tile
// by then.
__device__ __forceinline__ unsigned take_tile(unsigned* counter, unsigned* s_tile) {
  if (threadIdx.x == 0) {
    const unsigned t = atomicAdd(counter, 1u);
    if (t == gridDim.x - 1) atomicExch(counter, 0u);
    *s_tile = t;
  }
  __syncthreads();
  return *s_tile;
}

// A look-back launch's words (Scratch::lookback): the tile counter, a status word a tile, and
// the launch's epoch.
struct LookbackState {
  Word* status;
  unsigned* counter;
  unsigned epoch;
};

// Single-pass scan, decoupled look-back: tiles in counter order, warp 0 folds predecessors' published sums; 1 read + 1 write.
// Launched dependent (LaunchArgs::dependent), it waits for the kernel before it first, and lets
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

// The counter (word 0) and the status words (one per tile) for a launch over `tiles` tiles.
LookbackState lookback_state(const LaunchArgs& a, std::size_t tiles) {
  const Scratch::Lookback lb = a.scratch->lookback(tiles + 1, a.stream);
  static_assert(Scratch::kMaxEpoch < (1u << (64 - kEpochShift)), "the epoch fits the status word");
  return {lb.words + 1, reinterpret_cast<unsigned*>(lb.words), lb.epoch};
}

template <class T>
void lookback_scan(const LaunchArgs& a) {
  const std::size_t n = a.shape.n, tiles = ceil_div(n, kTile);
  const LookbackState st = lookback_state(a, tiles);
  if (a.dependent) {
    launch_dependent(scan_lookback_kernel<T>, dim3(static_cast<unsigned>(tiles)), dim3(kThreads), 0, a.stream,
                     static_cast<const T*>(a.in), static_cast<T*>(a.out), n, st);
  } else {
    scan_lookback_kernel<T><<<static_cast<unsigned>(tiles), kThreads, 0, a.stream>>>(
        static_cast<const T*>(a.in), static_cast<T*>(a.out), n, st);
    CUDA_CHECK_LAUNCH();
  }
}

// ---------------------------------------------------------------------------------------------
// find_repeats and compact: the look-back scan over 0/1 flags, with the scatter fused in.

// One-pass select (flag, look-back scan of counts, pack in shared, coalesced write): reads n, writes only the survivors.
template <bool kRepeats>
__global__ void __launch_bounds__(kThreads, kSelectBlocksPerSm)  // full occupancy: 32 registers on sm_90
    select_lookback_kernel(const int* __restrict__ in, int* __restrict__ out, int* __restrict__ count,
                           std::size_t n, unsigned tiles, LookbackState st) {
  __shared__ int s_slots[kWarps * kWarpSlots];  // the load exchange, then the packed survivors
  __shared__ int s_warp[kWarps];
  __shared__ int s_prefix;
  __shared__ unsigned s_tile;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const unsigned tile = take_tile(st.counter, &s_tile);
  const std::size_t base = static_cast<std::size_t>(tile) * kTile;
  const int valid = tile_valid(n, base);
  int x[kItems];
  load_tile(in + base, valid, x, s_slots + warp * kWarpSlots, 0);
  const std::size_t first = base + static_cast<std::size_t>(threadIdx.x) * kItems;  // x[0]'s index
  int after = 0;  // the element after x[kItems-1]
  if constexpr (kRepeats) {
    after = __shfl_down_sync(kFullMask, x[0], 1);
    if (lane == 31) after = first + kItems < n ? in[first + kItems] : 0;
  }
  unsigned keep = 0;
  int c = 0;
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    bool sel;
    if constexpr (kRepeats)
      sel = first + k + 1 < n && x[k] == (k + 1 < kItems ? x[k + 1] : after);
    else
      sel = first + k < n && x[k] > 0;
    keep |= static_cast<unsigned>(sel) << k;
    c += sel;
  }
  int tile_count;
  int pos = block_exclusive_scan<kWarps>(c, s_warp, tile_count, SumOp{});
  if (warp == 0) {
    const int p = lookback_exclusive_prefix(st.status, st.epoch, tile, tile_count, SumOp{}, lane);
    if (lane == 0) s_prefix = p;
  }
  // Every warp is past its load exchange (the scan's barrier), so the slots can take survivors.
#pragma unroll
  for (int k = 0; k < kItems; ++k)
    if (keep >> k & 1u) s_slots[pos++] = kRepeats ? static_cast<int>(first + k) : x[k];
  __syncthreads();
  const std::size_t dst = static_cast<std::size_t>(s_prefix);
  for (int j = threadIdx.x; j < tile_count; j += kThreads) out[dst + j] = s_slots[j];
  if (tile == tiles - 1 && threadIdx.x == 0) *count = s_prefix + tile_count;
}

template <bool kRepeats>
void select_lookback(const LaunchArgs& a) {
  const std::size_t n = a.shape.n, tiles = ceil_div(n, kTile);
  const LookbackState st = lookback_state(a, tiles);
  select_lookback_kernel<kRepeats><<<static_cast<unsigned>(tiles), kThreads, 0, a.stream>>>(
      static_cast<const int*>(a.in), static_cast<int*>(a.out), a.count, n, static_cast<unsigned>(tiles), st);
  CUDA_CHECK_LAUNCH();
}

// ---------------------------------------------------------------------------------------------
// segmented_scan: the look-back scan over (head flag, value) pairs.

// Single-pass segmented scan: the look-back scan with the (head flag, value) operator; values and flags read once, out written once.
template <class T>
__global__ void __launch_bounds__(kThreads, kBlocksPerSm < 5 ? kBlocksPerSm : 5)  // 48 registers, no spills
    segmented_scan_lookback_kernel(const T* __restrict__ in, const int* __restrict__ flags, T* __restrict__ out,
                                   std::size_t n, LookbackState st) {
  using P = SegPair<T>;
  __shared__ T s_slots[kWarps][kWarpSlots];
  __shared__ int s_flag_slots[kWarps][kWarpSlots];
  __shared__ P s_warp[kWarps];
  __shared__ P s_prefix;
  __shared__ unsigned s_tile;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const unsigned tile = take_tile(st.counter, &s_tile);
  const std::size_t base = static_cast<std::size_t>(tile) * kTile;
  const int valid = tile_valid(n, base);
  const int warp_valid = valid - warp * 32 * kItems;  // may be <= 0 in the last tile
  const std::size_t warp_base = base + static_cast<std::size_t>(warp) * 32 * kItems;
  T x[kItems];
  unsigned heads = 0;  // bit k: item k starts a segment (16 flags in one register)
  {
    int f[kItems];
    load_tile(flags + base, valid, f, s_flag_slots[warp], 0);
#pragma unroll
    for (int k = 0; k < kItems; ++k) heads |= static_cast<unsigned>(f[k] != 0) << k;
  }
  load_tile(in + base, valid, x, s_slots[warp], T(0));
  P agg{0, T(0)};
#pragma unroll
  for (int k = 0; k < kItems; ++k) agg = SegOp{}(agg, P{static_cast<int>(heads >> k & 1u), x[k]});
  P total;
  const P excl = block_exclusive_scan<kWarps>(agg, s_warp, total, SegOp{});
  if (warp == 0) {
    const P p = lookback_exclusive_prefix(st.status, st.epoch, tile, total, SegOp{}, lane);
    if (lane == 0) s_prefix = p;
  }
  __syncthreads();
  P run = SegOp{}(s_prefix, excl);
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const P e{static_cast<int>(heads >> k & 1u), x[k]};
    x[k] = e.f ? T(0) : run.v;  // a head restarts at zero; otherwise the sum since the last head
    run = SegOp{}(run, e);
  }
  store_blocked(out + warp_base, warp_valid, x, s_slots[warp], lane);
}

template <class T>
void segmented_lookback(const LaunchArgs& a) {
  const std::size_t n = a.shape.n, tiles = ceil_div(n, kTile);
  const LookbackState st = lookback_state(a, tiles);
  segmented_scan_lookback_kernel<T><<<static_cast<unsigned>(tiles), kThreads, 0, a.stream>>>(
      static_cast<const T*>(a.in), a.flags, static_cast<T*>(a.out), n, st);
  CUDA_CHECK_LAUNCH();
}

// ---------------------------------------------------------------------------------------------
// CUB references.

template <class T>
void cub_scan(const LaunchArgs& a) {
  const T* in = static_cast<const T*>(a.in);
  T* out = static_cast<T*>(a.out);
  const auto n = static_cast<long long>(a.shape.n);
  std::size_t bytes = 0;
  CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, n, a.stream));
  void* temp = a.scratch->get(bytes, 0);
  CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp, bytes, in, out, n, a.stream));
}

struct IsPositive {
  __device__ __forceinline__ bool operator()(int x) const { return x > 0; }
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// Launchers.

void scan_blelloch_global(const LaunchArgs& a) {
  if (a.type == Elem::f32) blelloch_global<float>(a);
  else blelloch_global<int>(a);
}

void scan_hillis_steele(const LaunchArgs& a) {
  if (a.type == Elem::f32) run_hierarchy<float>(a, kHsThreads, launch_hillis_steele<float>);
  else run_hierarchy<int>(a, kHsThreads, launch_hillis_steele<int>);
}

void scan_blelloch_shared(const LaunchArgs& a) {
  if (a.type == Elem::f32) run_hierarchy<float>(a, kBlTile, launch_blelloch_shared<float>);
  else run_hierarchy<int>(a, kBlTile, launch_blelloch_shared<int>);
}

void scan_blelloch_padded(const LaunchArgs& a) {
  if (a.type == Elem::f32) run_hierarchy<float>(a, kBlTile, launch_blelloch_padded<float>);
  else run_hierarchy<int>(a, kBlTile, launch_blelloch_padded<int>);
}

void scan_warp_shuffle(const LaunchArgs& a) {
  if (a.type == Elem::f32) run_hierarchy<float>(a, kTile, launch_warp_shuffle<float>);
  else run_hierarchy<int>(a, kTile, launch_warp_shuffle<int>);
}

void scan_lookback(const LaunchArgs& a) {
  if (a.type == Elem::f32) lookback_scan<float>(a);
  else lookback_scan<int>(a);
}

void scan_cub(const LaunchArgs& a) {
  if (a.type == Elem::f32) cub_scan<float>(a);
  else cub_scan<int>(a);
}

void find_repeats(const LaunchArgs& a) { select_lookback<true>(a); }

void compact_scan(const LaunchArgs& a) { select_lookback<false>(a); }

void compact_cub(const LaunchArgs& a) {
  const int* in = static_cast<const int*>(a.in);
  int* out = static_cast<int*>(a.out);
  const auto n = static_cast<long long>(a.shape.n);
  std::size_t bytes = 0;
  CUDA_CHECK(cub::DeviceSelect::If(nullptr, bytes, in, out, a.count, n, IsPositive{}, a.stream));
  void* temp = a.scratch->get(bytes, 0);
  CUDA_CHECK(cub::DeviceSelect::If(temp, bytes, in, out, a.count, n, IsPositive{}, a.stream));
}

void segmented_scan(const LaunchArgs& a) {
  if (a.type == Elem::f32) segmented_lookback<float>(a);
  else segmented_lookback<int>(a);
}

}  // namespace circles::lab
