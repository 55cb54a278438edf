// A block's exclusive scan of a few flags a thread by warp ballots: the block's count, and each
// set flag's slot in item order (compaction of a batch without a shared-memory scan).
#pragma once
#include "kernels/primitives/warp.cuh"

namespace circles {

// The block's exclusive scan of P flags a thread, item u * blockDim + thread (u-major, so the
// loads behind the flags coalesce), in two halves: ballot_count_flags writes each warp's counts
// to warp_totals (P * kWarps ints), waits at one barrier and returns the block's count;
// ballot_slots then gives each set flag its slot, in item order, from the same warp_totals, which
// must not be rewritten before the barrier after it (the lab's ballot scan,
// ballot_exclusive_scan_flags, P ballots at a time). ballot_scan_flags does both at once.

// The warps' counts (warp_totals[u * kWarps + w], at most 32) scanned by every warp itself: lane
// l takes count l, an inclusive warp scan, and item u's first slot for this warp is the exclusive
// prefix at u * kWarps + warp (a shuffle); *all is the block's count. A handful of shuffles
// a thread, where summing the kWarps * P counts one by one, with a select for "warps before this
// one", would cost several instructions a count, and the direct shade runs this every batch.
template <int kWarps, int P>
__device__ __forceinline__ void warp_count_bases(const int* warp_totals, unsigned (&base)[P], unsigned* all) {
  constexpr int kCounts = kWarps * P;
  static_assert(kCounts <= 32, "one count a lane");
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const unsigned own = lane < kCounts ? static_cast<unsigned>(warp_totals[lane]) : 0u;
  unsigned incl = own;
#pragma unroll
  for (int d = 1; d < kCounts; d <<= 1) {
    const unsigned t = __shfl_up_sync(kFullMask, incl, d);
    if (lane >= d) incl += t;
  }
  const unsigned excl = incl - own;
#pragma unroll
  for (int u = 0; u < P; ++u) base[u] = __shfl_sync(kFullMask, excl, u * kWarps + warp);
  *all = __shfl_sync(kFullMask, incl, kCounts - 1);
}

template <int kWarps, int P>
__device__ __forceinline__ unsigned ballot_count_flags(const bool (&flag)[P], int* warp_totals) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int u = 0; u < P; ++u) {
    const unsigned ballot = __ballot_sync(kFullMask, flag[u]);
    if (lane == 0) warp_totals[u * kWarps + warp] = __popc(ballot);
  }
  __syncthreads();
#if __CUDA_ARCH__ >= 800
  // The block's count: one warp reduction (REDUX) of the counts, a count a lane.
  return __reduce_add_sync(kFullMask, lane < kWarps * P ? static_cast<unsigned>(warp_totals[lane]) : 0u);
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
  for (int u = 0; u < P; ++u) slot[u] = base[u] + __popc(__ballot_sync(kFullMask, flag[u]) & below);
}

// Both halves at once, the ballots kept across the barrier. Written out rather than built from
// the two halves, whose second ballot after the barrier needs more registers (the two-pixel
// kernels would spill).
template <int kWarps, int P>
__device__ __forceinline__ unsigned ballot_scan_flags(const bool (&flag)[P], unsigned (&slot)[P], int* warp_totals) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const unsigned below = (1u << lane) - 1u;
  unsigned ballot[P];
#pragma unroll
  for (int u = 0; u < P; ++u) {
    ballot[u] = __ballot_sync(kFullMask, flag[u]);
    if (lane == 0) warp_totals[u * kWarps + warp] = __popc(ballot[u]);
  }
  __syncthreads();
  unsigned base[P], all;
  warp_count_bases<kWarps, P>(warp_totals, base, &all);
#pragma unroll
  for (int u = 0; u < P; ++u) slot[u] = base[u] + __popc(ballot[u] & below);
  return all;
}

}  // namespace circles
