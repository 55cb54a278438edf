// cuda-tile-binned: circles are binned into tiles (16x16 by default) before shading, so each tile reads only
// the circles that touch it instead of all N (cuda-tile-scan's cost). The forward pass is a list
// of stages, one launcher each:
//   count tiles per circle (and their exact 64-bit total) -> exclusive scan (offsets) ->
//   duplicate (tile, circle) pairs -> stable radix sort by tile -> tile ranges -> per-tile shade
//   (clear fused).
// The scan is one of the kernel lab's device-wide exclusive scans over 32-bit counts (`--scan`;
// CUB's by default), handed in by the registry as a launcher. The sort is stable and the pairs
// are emitted in circle order, so each tile's list stays in circle order: the picture is the same
// as cpu-ref's. The host never waits inside a frame.
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "kernels/config.h"
#include "kernels/cuda_renderer_base.cuh"
#include "kernels/cuda_renderers.h"
#include "kernels/lab/lab_launch.h"
#include "kernels/lab/lab_util.cuh"
#include "kernels/tile_common.cuh"
#include "render/renderer.h"

namespace circles {

namespace {

// The tiles whose pixel centres a circle's bounding box may reach (span_slack pixels of margin),
// clamped to the grid; empty (x0 > x1) when the box misses the image. Host and device (the host
// counts the loaded state's pairs with it).
struct TileRect {
  int x0, y0, x1, y1;
  CIRCLES_HD unsigned long long count() const {
    return x1 < x0 ? 0ull : static_cast<unsigned long long>(x1 - x0 + 1) * (y1 - y0 + 1);
  }
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

CIRCLES_HD TileRect tile_rect(float x, float y, float r, const View& v, int tile) {
  TileRect t{0, 0, -1, -1};
  int i0, i1, j0, j1;
  if (!axis_span(x, r, v.scale, v.off_x, v.width, &i0, &i1) ||
      !axis_span(y, r, v.scale, v.off_y, v.height, &j0, &j1))
    return t;  // off image: empty
  t.x0 = i0 / tile;
  t.x1 = i1 / tile;
  t.y0 = j0 / tile;
  t.y1 = j1 / tile;
  return t;
}

constexpr int kCountThreads = 256;

// Grid-stride over the circles: how many tiles each one's bounding box covers, as a 32-bit count
// for the lab's scans (at most the image's tiles, 2^20 at 16384^2 in 16-pixel tiles), and the
// exact 64-bit sum of all of them, added to *total once per block (a warp reduction, then a block
// one): the 32-bit offsets may wrap, this total cannot. Memory-bound, trivial; *total starts at 0.
__global__ void __launch_bounds__(kCountThreads)
    count_tiles_kernel(DeviceCircles c, View v, int tile, int* counts, unsigned long long* total) {
  __shared__ unsigned long long s_warp[kCountThreads / 32];
  unsigned long long sum = 0;
  for (int k = blockIdx.x * kCountThreads + threadIdx.x; k < c.count; k += gridDim.x * kCountThreads) {
    const float4 p = c.pos_rad[k];
    const unsigned long long n = tile_rect(p.x, p.y, p.w, v, tile).count();
    counts[k] = static_cast<int>(n);
    sum += n;
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
    if (block) atomicAdd(total, block);
  }
}

// One thread per circle: writes a (tile, circle) pair for each tile it covers, at its scanned
// offset, so pairs come out in circle order. A frame with more pairs than the buffers hold
// (*total > capacity, which also covers totals past INT_MAX, where the 32-bit offsets wrap)
// writes nothing: the shade kernel's fallback needs no pairs. Big circles make long threads
// (load imbalance).
__global__ void duplicate_pairs_kernel(DeviceCircles c, View v, int tile, int tiles_x, const int* offsets,
                                       const unsigned long long* total, unsigned capacity, unsigned* keys,
                                       unsigned* ids) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= c.count || *total > capacity) return;
  const float4 p = c.pos_rad[k];
  const TileRect t = tile_rect(p.x, p.y, p.w, v, tile);
  // Offsets are exact here (total <= capacity <= INT_MAX); the bound only guards a faulty scan.
  unsigned o = static_cast<unsigned>(offsets[k]);
  for (int ty = t.y0; ty <= t.y1; ++ty)
    for (int tx = t.x0; tx <= t.x1 && o < capacity; ++tx, ++o) {
      keys[o] = static_cast<unsigned>(ty * tiles_x + tx);
      ids[o] = static_cast<unsigned>(k);
    }
}

// Grid-stride: keys [total, capacity) get the sentinel (one past the last tile), so the sort of
// `capacity` keys puts the unused slots last; in an overflowing frame duplicate wrote nothing,
// so every key gets it. Bandwidth-bound.
__global__ void pad_keys_kernel(const unsigned long long* total, unsigned capacity, unsigned sentinel,
                                unsigned* keys) {
  const unsigned long long from = *total > capacity ? 0ull : *total;
  for (unsigned long long i = from + blockIdx.x * blockDim.x + threadIdx.x; i < capacity;
       i += static_cast<unsigned long long>(gridDim.x) * blockDim.x)
    keys[i] = sentinel;
}

// One thread per sorted slot: where a run of equal tile keys starts or ends, record it (the
// sentinel run is ignored). Bandwidth-bound.
__global__ void tile_ranges_kernel(const unsigned* keys, unsigned capacity, unsigned sentinel,
                                   uint2* ranges) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= capacity) return;
  const unsigned key = keys[i];
  if (key == sentinel) return;
  if (i == 0 || keys[i - 1] != key) ranges[key].x = i;
  if (i == capacity - 1 || keys[i + 1] != key) ranges[key].y = i + 1;
}

// One block per tile, one thread per pixel: stage the tile's circles through shared memory
// TILE^2 at a time (gathers by id) and blend them in order. Work is proportional to the circles
// that touch the tile, not N. If this frame had more pairs than the buffers hold (read on the
// device, so the host never waits), the block culls all N circles itself, like cuda-tile-scan:
// slower, but the same picture.
template <Shading S, int TILE>
__global__ void __launch_bounds__(TILE * TILE) shade_tiles_kernel(DeviceCircles c, FrameParams f,
                                                                  const uint2* ranges, const unsigned* ids,
                                                                  const unsigned long long* total,
                                                                  unsigned capacity) {
  constexpr int kThreads = TILE * TILE;
  __shared__ float4 s_pos[kThreads];
  __shared__ float4 s_col[kThreads];
  __shared__ TileScanStorage<BlockScanAlgo::ballot, TILE> s_scan;
  const long long start = clock64();
  const TilePixel t = tile_pixel<TILE>(f.view);
  Float4 color = tile_background(f, t);
  if (*total > capacity) {
    cull_scan_shade_all<S, TILE, BlockScanAlgo::ballot>(c, t, kThreads, s_pos, s_col, s_scan, &color);
  } else {
    const uint2 range = ranges[blockIdx.y * gridDim.x + blockIdx.x];
    for (unsigned base = range.x; base < range.y; base += kThreads) {
      const unsigned k = base + threadIdx.x;
      if (k < range.y) {
        const unsigned id = ids[k];
        s_pos[threadIdx.x] = c.pos_rad[id];
        s_col[threadIdx.x] = c.color[id];
      }
      __syncthreads();
      blend_staged<S>(s_pos, s_col, static_cast<int>(min(range.y - base, static_cast<unsigned>(kThreads))),
                      t.px, t.py, &color);
      __syncthreads();  // the next chunk overwrites the staging arrays
    }
  }
  record_tile_cycles(f, start);
  store_pixel(f, t, color);
}

int bits_for(unsigned n) {
  int b = 0;
  while (b < 32 && (1ull << b) < n) ++b;
  return b;
}

// Capacity for `pairs` circle-tile pairs with headroom for animation, within the sort's int range.
unsigned capacity_for(unsigned long long pairs, unsigned long long limit) {
  const unsigned long long want = pairs + pairs / 4 + 1024;
  return static_cast<unsigned>(std::min<unsigned long long>(std::min(want, limit), INT_MAX));
}

// The pair buffers are sized without waiting for the GPU: at load from the first frame's exact
// count (computed on the host), then grown from each frame's total, read back asynchronously.
// A frame with more pairs than the capacity is still drawn exactly (the shade fallback).
class CudaTileBinnedRenderer final : public CudaRenderer {
 public:
  CudaTileBinnedRenderer(int tile, lab::LaunchFn scan) : tile_(tile), scan_(scan) {
    if (!scan_) throw std::invalid_argument("cuda-tile-binned: no scan launcher (a build without the lab?)");
    CUDA_CHECK(cudaMallocHost(&host_total_, sizeof *host_total_));
    *host_total_ = 0;
    // Test hook: a cap on the capacity forces the fallback (tests/test_gpu_render.cpp).
    if (const char* cap = std::getenv("CIRCLES_BINNED_MAX_PAIRS"))
      limit_ = std::max(1ull, std::strtoull(cap, nullptr, 10));
  }
  ~CudaTileBinnedRenderer() override { CUDA_CHECK_PRINT(cudaFreeHost(host_total_)); }

  void load(const Scene& scene, int width, int height) override {
    const View v = make_view(width, height);
    unsigned long long pairs = 0;
    for (const Circle& c : scene.circles) pairs += tile_rect(c.x, c.y, c.radius, v, tile_).count();
    const unsigned capacity = capacity_for(pairs, limit_);
    // Pairs: keys and ids, double-buffered for the sort (16 B a pair); per circle a count and an
    // offset (8 B) and at most 4 B of the scan's temporaries (scan-blelloch-global's padding to a
    // power of two; the others need far less); per tile a range (8 B); the sort's temporary
    // storage (about 4 B a pair). The scan's scratch already held is not counted as held (the
    // lab's Scratch does not say its size): the check errs on the safe side.
    const double tiles = std::ceil(width / double(tile_)) * std::ceil(height / double(tile_));
    const double extra = 20.0 * capacity + 12.0 * scene.circles.size() + 8.0 * (tiles + 1);
    const double held = 4.0 * (keys_.size() + ids_.size() + keys_alt_.size() + ids_alt_.size()) +
                        4.0 * (counts_.size() + offsets_.size()) + 8.0 * ranges_.size() + temp_.size();
    check_device_memory(scene, width, height, extra, "cuda-tile-binned/" + std::to_string(tile_),
                        std::to_string(pairs) + " circle-tile pairs", held);
    CudaRenderer::load_unchecked(scene, width, height);
    capacity_ = capacity;
    total_pending_ = false;
  }

 private:
  void draw() override {
    stage_begin("count");
    const DeviceCircles c = circles();
    const FrameParams f = frame_params();
    const int tile = tile_;
    const int tiles_x = (f.view.width + tile - 1) / tile;
    const int tiles_y = (f.view.height + tile - 1) / tile;
    const unsigned tiles = static_cast<unsigned>(tiles_x * tiles_y);
    const unsigned sentinel = tiles;
    const int n = c.count;
    const int threads = 256;
    const int blocks = std::max(1, (n + threads - 1) / threads);
    // The count kernel is grid-stride over a grid that fills the GPU, so its total costs one
    // atomic per block, not per warp.
    const int count_blocks =
        std::min(std::max(1, (n + kCountThreads - 1) / kCountThreads), lab::sm_count() * 8);
    grow_from_last_total();
    const unsigned capacity = capacity_;

    counts_.reserve(std::max(n, 1));
    offsets_.reserve(std::max(n, 1));
    ranges_.reserve(tiles + 1);
    keys_.reserve(capacity);
    ids_.reserve(capacity);
    keys_alt_.reserve(capacity);
    ids_alt_.reserve(capacity);
    CUDA_CHECK(cudaMemsetAsync(ranges_.get(), 0, (tiles + 1) * sizeof(uint2), stream()));
    CUDA_CHECK(cudaMemsetAsync(total_.get(), 0, sizeof(unsigned long long), stream()));

    count_tiles_kernel<<<count_blocks, kCountThreads, 0, stream()>>>(c, f.view, tile, counts_.get(),
                                                                     total_.get());
    CUDA_CHECK_LAUNCH();
    stage("count");
    stage_begin("scan");

    // The lab's scans are 32-bit: offsets past INT_MAX wrap (ints add as uint32 there), but such a
    // frame's exact total (from count) exceeds the capacity, and duplicate then trusts no offset.
    if (n > 0) {  // the lab's launchers take n >= 1
      lab::LaunchArgs a;
      a.in = counts_.get();
      a.out = offsets_.get();
      a.shape.n = static_cast<std::size_t>(n);
      a.type = lab::Elem::i32;
      a.scratch = &scratch_;
      a.stream = stream();
      scan_(a);
    }
    stage("scan");
    stage_begin("duplicate");

    duplicate_pairs_kernel<<<blocks, threads, 0, stream()>>>(c, f.view, tile, tiles_x, offsets_.get(),
                                                             total_.get(), capacity, keys_.get(), ids_.get());
    CUDA_CHECK_LAUNCH();
    pad_keys_kernel<<<std::min<unsigned>((capacity + threads - 1) / threads, 4096), threads, 0, stream()>>>(
        total_.get(), capacity, sentinel, keys_.get());
    CUDA_CHECK_LAUNCH();
    stage("duplicate");
    stage_begin("sort");

    cub::DoubleBuffer<unsigned> keys(keys_.get(), keys_alt_.get()), ids(ids_.get(), ids_alt_.get());
    const int end_bit = std::max(1, bits_for(sentinel + 1));
    std::size_t sort_bytes = 0;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys, ids, static_cast<int>(capacity), 0,
                                               end_bit, stream()));
    temp_.reserve(sort_bytes);
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp_.get(), sort_bytes, keys, ids, static_cast<int>(capacity), 0,
                                               end_bit, stream()));
    stage("sort");
    stage_begin("ranges");

    tile_ranges_kernel<<<(capacity + threads - 1) / threads, threads, 0, stream()>>>(keys.Current(), capacity,
                                                                                    sentinel, ranges_.get());
    CUDA_CHECK_LAUNCH();
    stage("ranges");
    stage_begin("clear+shade");

    const dim3 grid(tiles_x, tiles_y);
    with_tile_size(tile, [&](auto t) {
      constexpr int T = decltype(t)::value;
      if (shading() == Shading::Snow)
        shade_tiles_kernel<Shading::Snow, T><<<grid, T * T, 0, stream()>>>(c, f, ranges_.get(), ids.Current(),
                                                                           total_.get(), capacity);
      else
        shade_tiles_kernel<Shading::Flat, T><<<grid, T * T, 0, stream()>>>(c, f, ranges_.get(), ids.Current(),
                                                                           total_.get(), capacity);
    });
    CUDA_CHECK_LAUNCH();
    stage("clear+shade");

    // This frame's total comes back without a wait; the next frame sizes its buffers by it.
    CUDA_CHECK(cudaMemcpyAsync(host_total_, total_.get(), sizeof *host_total_, cudaMemcpyDeviceToHost, stream()));
    total_ready_.record(stream());
    total_pending_ = true;
  }

  // Grows the capacity if the last frame whose total has arrived needed (nearly) more.
  void grow_from_last_total() {
    if (!total_pending_) return;
    if (!total_ready_.done()) return;  // look again next frame
    total_pending_ = false;
    const unsigned long long total = *host_total_;
    if (total + total / 16 > capacity_) capacity_ = std::max(capacity_, capacity_for(total, limit_));
  }

  int shade_tile() const override { return tile_; }
  const int tile_;
  const lab::LaunchFn scan_;  // a lab exclusive_scan launcher (app/registry.cpp picks it)
  lab::Scratch scratch_;      // its temporaries; grows to the largest frame, then stays
  unsigned long long limit_ = ~0ull;
  unsigned capacity_ = 1024;
  bool total_pending_ = false;
  CudaEvent total_ready_;
  DeviceBuffer<unsigned> keys_, ids_, keys_alt_, ids_alt_;
  DeviceBuffer<int> counts_, offsets_;
  DeviceBuffer<unsigned long long> total_{1};
  DeviceBuffer<uint2> ranges_;
  DeviceBuffer<unsigned char> temp_;
  unsigned long long* host_total_ = nullptr;  // pinned
};

}  // namespace

std::unique_ptr<Renderer> make_cuda_tile_binned_renderer(const RendererSettings& s, lab::LaunchFn scan) {
  return std::make_unique<CudaTileBinnedRenderer>(s.tile_size, scan);
}

}  // namespace circles
