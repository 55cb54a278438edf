// Block-level exclusive scans, shared by the kernel lab's device-wide scan ladder
// (kernels/primitives/device_scan.cu: its tile scans) and cuda-tile-scan's in-block compaction (`--scan`,
// kernels/renderers/tile_common.cuh). Header-only device code. Every scan here contains
// __syncthreads(): every thread of the block must call it, and a caller that reuses the shared
// storage must pass a barrier first.
#pragma once
#include <cub/block/block_scan.cuh>

#include <type_traits>

#include "kernels/primitives/warp.cuh"

namespace circles {

// ---------------------------------------------------------------------------------------------
// Building blocks (the lab's tile kernels call these directly).

// GPU Gems 3, ch. 39: one pad word after every 32, so strided tree accesses spread over the banks.
__device__ __forceinline__ int padded_index(int i) { return i + (i >> 5); }
template <bool kPad>
__device__ __forceinline__ int tree_index(int i) { return kPad ? padded_index(i) : i; }

__device__ __forceinline__ int shfl_up(int v, int d) { return __shfl_up_sync(kFullMask, v, d); }
__device__ __forceinline__ float shfl_up(float v, int d) { return __shfl_up_sync(kFullMask, v, d); }

// Hillis-Steele inclusive scan of one value per thread over the first N threads, double-buffered
// in shared memory (buf: 2N elements): log2(N) steps of N adds, a barrier each (N log N work, but
// every step is one conflict-free pass). Returns the half of buf that holds the inclusive scan.
template <int N, class T, class Op>
__device__ __forceinline__ const T* hillis_steele_inclusive(T v, T* buf, Op op) {
  const int t = threadIdx.x;
  buf[t] = v;
  __syncthreads();
  int cur = 0;
#pragma unroll
  for (int off = 1; off < N; off <<= 1) {
    T x = buf[cur * N + t];
    if (t >= off) x = op(buf[cur * N + t - off], x);
    buf[(cur ^ 1) * N + t] = x;
    cur ^= 1;
    __syncthreads();
  }
  return buf + cur * N;
}

// Blelloch's work-efficient exclusive scan of s[0..N) in place (N a power of two, element i at
// padded_index(i) when kPad): up-sweep then down-sweep, 2N adds over 2 log2(N) levels with a
// barrier each, the active threads halving; without the pad the strided pairs pile onto few
// banks. Thread 0 stores the total in *total (when not null). The caller's stores into s need no
// barrier before the call; the results may be read right after it.
template <int N, bool kPad, class T, class Op>
__device__ __forceinline__ void blelloch_exclusive(T* s, T* total, Op op) {
  const int t = threadIdx.x;
  int offset = 1;
#pragma unroll
  for (int d = N >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (t < d) {
      const int ai = tree_index<kPad>(offset * (2 * t + 1) - 1);
      const int bi = tree_index<kPad>(offset * (2 * t + 2) - 1);
      s[bi] = op(s[bi], s[ai]);
    }
    offset <<= 1;
  }
  if (t == 0) {  // thread 0 made the last up-sweep add itself
    if (total) *total = s[tree_index<kPad>(N - 1)];
    s[tree_index<kPad>(N - 1)] = T(0);
  }
#pragma unroll
  for (int d = 1; d < N; d <<= 1) {
    offset >>= 1;
    __syncthreads();
    if (t < d) {
      const int ai = tree_index<kPad>(offset * (2 * t + 1) - 1);
      const int bi = tree_index<kPad>(offset * (2 * t + 2) - 1);
      const T l = s[ai];
      s[ai] = s[bi];
      s[bi] = op(s[bi], l);
    }
  }
  __syncthreads();
}

// Exclusive scan of one value per thread across a block of kWarps full warps (op applied in
// thread order): warp inclusive scans in registers with __shfl_up_sync, warp totals through
// shared memory (one barrier), every thread then folds the earlier warps' totals itself. Few
// instructions and one barrier. Returns the thread's exclusive prefix and sets `block_total`.
// V{} is op's identity; shfl_up(V, int) must exist for V (found by ADL for the lab's pairs).
template <int kWarps, class V, class Op>
__device__ __forceinline__ V block_exclusive_scan(V v, V* s_warp, V& block_total, Op op) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  V inc = v;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const V y = shfl_up(inc, d);
    if (lane >= d) inc = op(y, inc);
  }
  if (lane == 31) s_warp[warp] = inc;
  __syncthreads();
  V warp_prefix{}, total{};
#pragma unroll
  for (int w = 0; w < kWarps; ++w) {
    const V t = s_warp[w];
    if (w < warp) warp_prefix = op(warp_prefix, t);
    total = op(total, t);
  }
  block_total = total;
  const V ex = shfl_up(inc, 1);
  return lane == 0 ? warp_prefix : op(warp_prefix, ex);
}

// Exclusive scan of one 0/1 flag per thread: a ballot and a popcount inside each warp (one
// instruction each, no shuffles), then every thread sums the kWarps warp totals from shared
// memory. One barrier; only works on flags, which is all a compaction needs.
template <int kWarps>
__device__ __forceinline__ int ballot_exclusive_scan_flags(bool flag, int* warp_totals, int* total) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const unsigned ballot = __ballot_sync(kFullMask, flag);
  if (lane == 0) warp_totals[warp] = __popc(ballot);
  __syncthreads();
  int before = 0, sum = 0;
#pragma unroll
  for (int w = 0; w < kWarps; ++w) {
    const int t = warp_totals[w];
    before += w < warp ? t : 0;
    sum += t;
  }
  *total = sum;
  return before + __popc(ballot & ((1u << lane) - 1u));
}

// ---------------------------------------------------------------------------------------------
// Flag scans for a compaction: one 0/1 flag per thread of a kThreads-thread block, each
// algorithm behind the same interface, so a kernel is templated on the choice.

enum class BlockScanAlgo { ballot, hillis_steele, blelloch_shared, blelloch_padded, warp_shuffle, cub };

struct FlagSum {  // counts of at most kThreads flags: plain int adds cannot overflow
  __device__ __forceinline__ int operator()(int a, int b) const { return a + b; }
};

// BlockFlagScan<A, kThreads>::Storage lives in shared memory; exclusive(flag, storage, &total)
// returns the thread's exclusive offset among the set flags and the block's count in *total
// (every thread). Contains barriers; a caller passes a barrier before reusing the storage.
template <BlockScanAlgo A, int kThreads>
struct BlockFlagScan;

// ballot: __ballot_sync + __popc per warp, one barrier: the fewest instructions; flags only.
template <int kThreads>
struct BlockFlagScan<BlockScanAlgo::ballot, kThreads> {
  struct Storage {
    int warp_totals[kThreads / 32];
  };
  static __device__ __forceinline__ int exclusive(bool flag, Storage& s, int* total) {
    return ballot_exclusive_scan_flags<kThreads / 32>(flag, s.warp_totals, total);
  }
};

// scan-hillis-steele: log2(kThreads) steps of kThreads adds, a barrier each: the most barriers.
template <int kThreads>
struct BlockFlagScan<BlockScanAlgo::hillis_steele, kThreads> {
  struct Storage {
    int buf[2 * kThreads];
  };
  static __device__ __forceinline__ int exclusive(bool flag, Storage& s, int* total) {
    const int* inc = hillis_steele_inclusive<kThreads>(static_cast<int>(flag), s.buf, FlagSum{});
    *total = inc[kThreads - 1];
    return threadIdx.x > 0 ? inc[threadIdx.x - 1] : 0;
  }
};

// scan-blelloch-shared / -padded: 2 log2(kThreads) barriers, most threads idle at the narrow
// levels; unpadded, the strided pairs also conflict on banks.
template <int kThreads, bool kPad>
struct BlellochFlagScan {
  struct Storage {
    int s[kThreads + (kPad ? kThreads / 32 : 0)];
    int total;
  };
  static __device__ __forceinline__ int exclusive(bool flag, Storage& st, int* total) {
    const int i = kPad ? padded_index(threadIdx.x) : static_cast<int>(threadIdx.x);
    st.s[i] = static_cast<int>(flag);
    blelloch_exclusive<kThreads, kPad>(st.s, &st.total, FlagSum{});
    *total = st.total;
    return st.s[i];
  }
};
template <int kThreads>
struct BlockFlagScan<BlockScanAlgo::blelloch_shared, kThreads> : BlellochFlagScan<kThreads, false> {};
template <int kThreads>
struct BlockFlagScan<BlockScanAlgo::blelloch_padded, kThreads> : BlellochFlagScan<kThreads, true> {};

// scan-warp-shuffle: 5 shuffles per warp, one barrier: close to the ballot, which needs no shuffles.
template <int kThreads>
struct BlockFlagScan<BlockScanAlgo::warp_shuffle, kThreads> {
  struct Storage {
    int warp_totals[kThreads / 32];
  };
  static __device__ __forceinline__ int exclusive(bool flag, Storage& s, int* total) {
    int t;
    const int ex = block_exclusive_scan<kThreads / 32>(static_cast<int>(flag), s.warp_totals, t, FlagSum{});
    *total = t;
    return ex;
  }
};

// scan-cub: cub::BlockScan, the library line; its default (raking) algorithm stores the flags,
// one warp sums and scans serial segments of them, and every thread reads its offset back.
template <int kThreads>
struct BlockFlagScan<BlockScanAlgo::cub, kThreads> {
  using Scan = cub::BlockScan<int, kThreads>;
  using Storage = typename Scan::TempStorage;
  static __device__ __forceinline__ int exclusive(bool flag, Storage& s, int* total) {
    int ex, t;
    Scan(s).ExclusiveSum(static_cast<int>(flag), ex, t);
    *total = t;
    return ex;
  }
};

// Host side: calls f(std::integral_constant<BlockScanAlgo, A>{}) for the algorithm `a`, so a
// launch site instantiates its kernel once per choice.
template <class F>
void with_block_scan(BlockScanAlgo a, F&& f) {
  using A = BlockScanAlgo;
  switch (a) {
    case A::hillis_steele: f(std::integral_constant<A, A::hillis_steele>{}); break;
    case A::blelloch_shared: f(std::integral_constant<A, A::blelloch_shared>{}); break;
    case A::blelloch_padded: f(std::integral_constant<A, A::blelloch_padded>{}); break;
    case A::warp_shuffle: f(std::integral_constant<A, A::warp_shuffle>{}); break;
    case A::cub: f(std::integral_constant<A, A::cub>{}); break;
    case A::ballot:
    default: f(std::integral_constant<A, A::ballot>{}); break;
  }
}

}  // namespace circles
