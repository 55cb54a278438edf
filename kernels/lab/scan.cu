// The lab's scan ladder (task exclusive_scan, int and float) and three applications built on its
// last rung. The ladder's rungs are the device-wide scans of kernels/primitives/device_scan.cu,
// which the renderer cuda-tile-binned runs too; this file gives them the lab's launcher and adds:
//   find_repeats, compact_scan  the look-back scan over 0/1 flags with the scatter fused in (one
//                               pass: reads n, writes only the survivors).
//   compact_cub                 cub::DeviceSelect::If, the library line.
//   segmented_scan              the look-back scan over (head flag, value) pairs (one pass).
#include <cub/device/device_select.cuh>

#include <cstddef>

#include "kernels/cuda/check.h"
#include "kernels/lab/lab_launch.h"
#include "kernels/primitives/block_scan.cuh"
#include "kernels/primitives/device_scan.h"
#include "kernels/primitives/lookback.cuh"
#include "kernels/primitives/scan_tile.cuh"
#include "kernels/primitives/warp.cuh"

namespace circles::lab {

namespace {

using namespace circles::scan;
using circles::shfl_up;         // int and float (kernels/primitives/block_scan.cuh), beside the pair's below
using circles::scan::shfl_idx;  // int and float (kernels/primitives/scan_tile.cuh), beside the pair's below

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

template <class T>
__device__ __forceinline__ SegPair<T> shfl_up(SegPair<T> p, int d) {
  return SegPair<T>{shfl_up(p.f, d), shfl_up(p.v, d)};
}
template <class T>
__device__ __forceinline__ SegPair<T> shfl_idx(SegPair<T> p, int src) {
  return SegPair<T>{shfl_idx(p.f, src), shfl_idx(p.v, src)};
}

}  // namespace
}  // namespace circles::lab

// The segment flag rides in bit 2 of the look-back status word.
namespace circles::scan {
template <class T>
struct StatusWord<lab::SegPair<T>> {
  static __device__ __forceinline__ Word pack(unsigned status, lab::SegPair<T> p) {
    return (static_cast<Word>(status | (p.f ? 4u : 0u)) << 32) | bits_of(p.v);
  }
  static __device__ __forceinline__ lab::SegPair<T> value(Word w) {
    return lab::SegPair<T>{static_cast<int>((w >> 34) & 1), from_bits<T>(static_cast<unsigned>(w))};
  }
};
}  // namespace circles::scan

namespace circles::lab {
namespace {

// The select kernel fits full occupancy (32 registers) without spills on sm_90; elsewhere 3/4 of it.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
constexpr int kSelectBlocksPerSm = kBlocksPerSm * 3 / 4;
#else
constexpr int kSelectBlocksPerSm = kBlocksPerSm;
#endif

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
  const LookbackState st = lookback_state(*a.scratch, tiles, a.stream);
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
  const LookbackState st = lookback_state(*a.scratch, tiles, a.stream);
  segmented_scan_lookback_kernel<T><<<static_cast<unsigned>(tiles), kThreads, 0, a.stream>>>(
      static_cast<const T*>(a.in), a.flags, static_cast<T*>(a.out), n, st);
  CUDA_CHECK_LAUNCH();
}

struct IsPositive {
  __device__ __forceinline__ bool operator()(int x) const { return x > 0; }
};

// An exclusive_scan rung: the primitive on the launch's element type.
void exclusive_scan(DeviceScan s, const LaunchArgs& a) {
  if (a.type == Elem::f32)
    device_exclusive_sum(s, static_cast<const float*>(a.in), static_cast<float*>(a.out), a.shape.n, *a.scratch, a.stream,
                         a.dependent);
  else
    device_exclusive_sum(s, static_cast<const int*>(a.in), static_cast<int*>(a.out), a.shape.n, *a.scratch, a.stream,
                         a.dependent);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Launchers.

void scan_blelloch_global(const LaunchArgs& a) { exclusive_scan(DeviceScan::blelloch_global, a); }
void scan_hillis_steele(const LaunchArgs& a) { exclusive_scan(DeviceScan::hillis_steele, a); }
void scan_blelloch_shared(const LaunchArgs& a) { exclusive_scan(DeviceScan::blelloch_shared, a); }
void scan_blelloch_padded(const LaunchArgs& a) { exclusive_scan(DeviceScan::blelloch_padded, a); }
void scan_warp_shuffle(const LaunchArgs& a) { exclusive_scan(DeviceScan::warp_shuffle, a); }
void scan_lookback(const LaunchArgs& a) { exclusive_scan(DeviceScan::lookback, a); }
void scan_cub(const LaunchArgs& a) { exclusive_scan(DeviceScan::cub, a); }

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
