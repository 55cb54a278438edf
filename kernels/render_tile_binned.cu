// cuda-tile-binned: circles are binned into tiles (16x16 by default) before shading, so each tile reads only
// the circles that touch it instead of all N (cuda-tile-scan's cost). The forward pass is a list
// of stages, one launcher each:
//   count tiles per circle -> exclusive scan (offsets) -> duplicate (tile, circle) pairs ->
//   stable radix sort by tile -> tile ranges -> per-tile shade (clear fused).
// The sort is stable and the pairs are emitted in circle order, so each tile's list stays in
// circle order: the picture is the same as cpu-ref's.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <climits>
#include <stdexcept>

#include "kernels/config.h"
#include "kernels/cuda_renderer_base.cuh"
#include "kernels/cuda_renderers.h"
#include "render/registry.h"

namespace circles {

namespace {

// The tiles whose pixel centres a circle's bounding box may reach, clamped to the grid; empty
// (x0 > x1) when it misses the image. One pixel of margin absorbs rounding.
struct TileRect {
  int x0, y0, x1, y1;
};

__device__ __forceinline__ int clamp_floor(float v, int lo, int hi) {
  return static_cast<int>(fminf(fmaxf(floorf(v), static_cast<float>(lo)), static_cast<float>(hi)));
}

__device__ __forceinline__ TileRect tile_rect(const float4 p, const View& v, int tile) {
  const int i0 = clamp_floor((p.x - p.w) * v.scale + v.off_x - 0.5f, -2, v.width) - 1;
  const int i1 = clamp_floor((p.x + p.w) * v.scale + v.off_x - 0.5f, -2, v.width) + 2;
  const int j0 = clamp_floor((p.y - p.w) * v.scale + v.off_y - 0.5f, -2, v.height) - 1;
  const int j1 = clamp_floor((p.y + p.w) * v.scale + v.off_y - 0.5f, -2, v.height) + 2;
  TileRect t;
  t.x0 = max(i0, 0) / tile;
  t.x1 = min(i1, v.width - 1) / tile;
  t.y0 = max(j0, 0) / tile;
  t.y1 = min(j1, v.height - 1) / tile;
  if (i1 < 0 || j1 < 0 || i0 > v.width - 1 || j0 > v.height - 1) t.x1 = t.x0 - 1;  // off image
  return t;
}

// One thread per circle: how many tiles its bounding box covers. Memory-bound, trivial.
__global__ void count_tiles_kernel(DeviceCircles c, View v, int tile, unsigned long long* counts) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= c.count) return;
  const TileRect t = tile_rect(c.pos_rad[k], v, tile);
  counts[k] = t.x1 < t.x0 ? 0ull : static_cast<unsigned long long>(t.x1 - t.x0 + 1) * (t.y1 - t.y0 + 1);
}

// One thread per circle: writes a (tile, circle) pair for each tile it covers, at its scanned
// offset, so pairs come out in circle order. Big circles make long threads (load imbalance).
__global__ void duplicate_pairs_kernel(DeviceCircles c, View v, int tile, int tiles_x,
                                       const unsigned long long* offsets, unsigned* keys,
                                       unsigned* ids) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= c.count) return;
  const TileRect t = tile_rect(c.pos_rad[k], v, tile);
  unsigned long long o = offsets[k];
  for (int ty = t.y0; ty <= t.y1; ++ty)
    for (int tx = t.x0; tx <= t.x1; ++tx, ++o) {
      keys[o] = static_cast<unsigned>(ty * tiles_x + tx);
      ids[o] = static_cast<unsigned>(k);
    }
}

// Total pairs = last offset + last count (one thread; saves scanning n + 1 values).
__global__ void total_pairs_kernel(const unsigned long long* counts, const unsigned long long* offsets,
                                   int n, unsigned long long* total) {
  *total = offsets[n - 1] + counts[n - 1];
}

// One thread per sorted pair: where a run of equal tile keys starts or ends, record it.
__global__ void tile_ranges_kernel(const unsigned* keys, int total, uint2* ranges) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= total) return;
  const unsigned key = keys[i];
  if (i == 0 || keys[i - 1] != key) ranges[key].x = static_cast<unsigned>(i);
  if (i == total - 1 || keys[i + 1] != key) ranges[key].y = static_cast<unsigned>(i + 1);
}

// One block per tile, one thread per pixel: stage the tile's circles through shared memory 256
// at a time (coalesced gathers by id) and blend them in order. Work is proportional to the
// circles that touch the tile, not N.
template <Shading S, int TILE>
__global__ void __launch_bounds__(TILE * TILE) shade_tiles_kernel(DeviceCircles c, FrameParams f,
                                                                  const uint2* ranges,
                                                                  const unsigned* ids) {
  constexpr int kTileSize = TILE, kTileThreads = TILE * TILE;
  __shared__ float4 s_pos[kTileThreads];
  __shared__ float4 s_col[kTileThreads];
  const View& v = f.view;
  const int i = blockIdx.x * kTileSize + static_cast<int>(threadIdx.x) % kTileSize;
  const int j = blockIdx.y * kTileSize + static_cast<int>(threadIdx.x) / kTileSize;
  const float px = v.pixel_x(i), py = v.pixel_y(j);
  Float4 color = background_at(f.background, j < v.height ? j : v.height - 1, v.height);
  const uint2 range = ranges[blockIdx.y * gridDim.x + blockIdx.x];
  for (unsigned base = range.x; base < range.y; base += kTileThreads) {
    const unsigned k = base + threadIdx.x;
    if (k < range.y) {
      const unsigned id = ids[k];
      s_pos[threadIdx.x] = c.pos_rad[id];
      s_col[threadIdx.x] = c.color[id];
    }
    __syncthreads();
    const int n = static_cast<int>(min(range.y - base, static_cast<unsigned>(kTileThreads)));
    for (int s = 0; s < n; ++s) {
      const float4 q = s_pos[s];
      const float4 col = s_col[s];
      blend_circle(S, px, py, q.x, q.y, q.z, q.w, col.x, col.y, col.z, col.w, &color);
    }
    __syncthreads();  // the next chunk overwrites the staging arrays
  }
  if (i < v.width && j < v.height)
    f.image[static_cast<std::size_t>(j) * v.width + i] = make_float4(color.x, color.y, color.z, color.w);
}

int bits_for(unsigned n) {
  int b = 0;
  while (b < 32 && (1ull << b) < n) ++b;
  return b;
}

class CudaTileBinnedRenderer final : public CudaRenderer {
 public:
  explicit CudaTileBinnedRenderer(int tile) : tile_(tile) { CUDA_CHECK(cudaMallocHost(&host_total_, sizeof *host_total_)); }
  ~CudaTileBinnedRenderer() override { CUDA_CHECK_PRINT(cudaFreeHost(host_total_)); }

 private:
  void draw() override {
    const DeviceCircles c = circles();
    const FrameParams f = frame_params();
    const int tile = tile_;
    const int tiles_x = (f.view.width + tile - 1) / tile;
    const int tiles_y = (f.view.height + tile - 1) / tile;
    const unsigned tiles = static_cast<unsigned>(tiles_x * tiles_y);
    const int n = c.count;
    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;
    ranges_.reserve(tiles);
    CUDA_CHECK(cudaMemsetAsync(ranges_.get(), 0, tiles * sizeof(uint2), stream()));
    int total = 0;
    if (n > 0) {
      counts_.reserve(n);
      offsets_.reserve(static_cast<std::size_t>(n) + 1);
      count_tiles_kernel<<<blocks, threads, 0, stream()>>>(c, f.view, tile, counts_.get());
      CUDA_CHECK_LAUNCH();
      stage("count");

      // 64-bit offsets: a pathological scene cannot overflow them silently.
      std::size_t scan_bytes = 0;
      CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts_.get(), offsets_.get(), n, stream()));
      temp_.reserve(scan_bytes);
      CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp_.get(), scan_bytes, counts_.get(), offsets_.get(), n, stream()));
      total_pairs_kernel<<<1, 1, 0, stream()>>>(counts_.get(), offsets_.get(), n, total_.get());
      CUDA_CHECK_LAUNCH();
      // The pair buffers are sized by the total: one 8-byte read back per frame.
      CUDA_CHECK(cudaMemcpyAsync(host_total_, total_.get(), sizeof *host_total_, cudaMemcpyDeviceToHost, stream()));
      CUDA_CHECK(cudaStreamSynchronize(stream()));
      stage("scan");
      if (*host_total_ > static_cast<unsigned long long>(INT_MAX))
        throw std::runtime_error("cuda-tile-binned: " + std::to_string(*host_total_) +
                                 " circle-tile pairs exceed 2^31; use cuda-tile-scan for this scene");
      total = static_cast<int>(*host_total_);
    }
    if (total > 0) {
      keys_.reserve(total);
      ids_.reserve(total);
      keys_alt_.reserve(total);
      ids_alt_.reserve(total);
      duplicate_pairs_kernel<<<blocks, threads, 0, stream()>>>(c, f.view, tile, tiles_x, offsets_.get(),
                                                               keys_.get(), ids_.get());
      CUDA_CHECK_LAUNCH();
      stage("duplicate");

      cub::DoubleBuffer<unsigned> keys(keys_.get(), keys_alt_.get()), ids(ids_.get(), ids_alt_.get());
      const int end_bit = std::max(1, bits_for(tiles));
      std::size_t sort_bytes = 0;
      CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys, ids, total, 0, end_bit, stream()));
      temp_.reserve(sort_bytes);
      CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp_.get(), sort_bytes, keys, ids, total, 0, end_bit, stream()));
      stage("sort");

      tile_ranges_kernel<<<(total + threads - 1) / threads, threads, 0, stream()>>>(keys.Current(), total,
                                                                                 ranges_.get());
      CUDA_CHECK_LAUNCH();
      stage("ranges");
      sorted_ids_ = ids.Current();
    }
    const dim3 grid(tiles_x, tiles_y);
    const unsigned* ids_ptr = total > 0 ? sorted_ids_ : ids_.get();
    with_tile_size(tile, [&](auto t) {
      constexpr int T = decltype(t)::value;
      if (shading() == Shading::Snow)
        shade_tiles_kernel<Shading::Snow, T><<<grid, T * T, 0, stream()>>>(c, f, ranges_.get(), ids_ptr);
      else
        shade_tiles_kernel<Shading::Flat, T><<<grid, T * T, 0, stream()>>>(c, f, ranges_.get(), ids_ptr);
    });
    CUDA_CHECK_LAUNCH();
    stage("clear+shade");
  }

  const int tile_;
  DeviceBuffer<unsigned> keys_, ids_, keys_alt_, ids_alt_;
  DeviceBuffer<unsigned long long> counts_, offsets_, total_{1};
  DeviceBuffer<uint2> ranges_;
  DeviceBuffer<unsigned char> temp_;
  unsigned long long* host_total_ = nullptr;  // pinned
  const unsigned* sorted_ids_ = nullptr;
};

}  // namespace

std::unique_ptr<Renderer> make_cuda_tile_binned_renderer(const RendererSettings& s) {
  return std::make_unique<CudaTileBinnedRenderer>(s.tile_size);
}

}  // namespace circles
