// Decoupled look-back, the heart of the one-pass scans: each tile publishes its aggregate and
// walks back over its predecessors' published values until it meets an inclusive prefix, so a
// scan reads its input once and writes its output once. Used by scan-lookback (device_scan.cu),
// which the renderer cuda-tile-binned runs, and by the lab's compaction and segmented scan.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

#include "kernels/cuda/scratch.h"
#include "kernels/primitives/scan_tile.cuh"

namespace circles::scan {

// Each tile has a 64-bit status word: the high half holds the status (0 = nothing yet, 1 = the
// tile's own aggregate, 2 = the inclusive prefix through this tile; a value type may add bits of
// its own by specialising StatusWord, as the lab's segmented scan does with its segment flag in
// bit 2) and, in its top 24 bits, the launch's epoch (Scratch::lookback: a word of another
// epoch, left by an earlier launch, reads as nothing yet, so no launch clears the words first),
// the low half the value's 32 bits. One word, so status and value are published and read together
// by single relaxed 64-bit accesses; nothing else in memory depends on them, so no fences are
// needed.

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

// The counter (word 0) and the status words (one per tile) for a launch over `tiles` tiles.
inline LookbackState lookback_state(Scratch& scratch, std::size_t tiles, cudaStream_t stream) {
  const Scratch::Lookback lb = scratch.lookback(tiles + 1, stream);
  static_assert(Scratch::kMaxEpoch < (1u << (64 - kEpochShift)), "the epoch fits the status word");
  return {lb.words + 1, reinterpret_cast<unsigned*>(lb.words), lb.epoch};
}

}  // namespace circles::scan
