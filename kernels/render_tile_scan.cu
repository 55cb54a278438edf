// cuda-tile-scan: one block per tile (16x16 by default); circles in batches of one per thread; a block-wide
// exclusive scan compacts the batch's circles that touch the tile into shared memory, in order;
// then each thread shades its own pixel from that list. No atomics, no races on pixels.
#include "kernels/config.h"
#include "kernels/cuda_renderer_base.cuh"
#include "kernels/cuda_renderers.h"
#include "render/registry.h"

namespace circles {

namespace {

// Exclusive scan of one 0/1 flag per thread across the block: a ballot and popcount inside each
// warp, then a scan of the kWarps warp totals held in shared memory. Returns this thread's
// offset; *total gets the block's sum. Contains __syncthreads(): every thread must call it.
template <int kWarps>
__device__ __forceinline__ int exclusive_scan_flags(bool flag, int* warp_totals, int* total) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const unsigned ballot = __ballot_sync(0xffffffffu, flag);
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

// One block per TILE x TILE tile, one thread per pixel. Each batch: the first `batch` threads
// test one circle each against the tile, the scan packs survivors into shared memory, every
// thread blends them in order. Fast where few circles touch a tile; but every block still reads
// all N circles (N x tiles tests), which dominates for very large N.
template <Shading S, int TILE>
__global__ void __launch_bounds__(TILE * TILE) render_tile_scan_kernel(DeviceCircles circles,
                                                                       FrameParams f, int batch) {
  constexpr int kTileSize = TILE, kThreads = TILE * TILE, kWarps = kThreads / 32;
  __shared__ float4 s_pos[kThreads];
  __shared__ float4 s_col[kThreads];
  __shared__ int s_warp_totals[kWarps];

  const View& v = f.view;
  const int i0 = blockIdx.x * kTileSize, j0 = blockIdx.y * kTileSize;
  const int i = i0 + static_cast<int>(threadIdx.x) % kTileSize;
  const int j = j0 + static_cast<int>(threadIdx.x) / kTileSize;
  // The tile's extreme pixel centres (clipped to the image).
  const float x0 = v.pixel_x(i0), x1 = v.pixel_x(min(i0 + kTileSize, v.width) - 1);
  const float y0 = v.pixel_y(j0), y1 = v.pixel_y(min(j0 + kTileSize, v.height) - 1);
  const float px = v.pixel_x(i), py = v.pixel_y(j);
  Float4 c = background_at(f.background, j < v.height ? j : v.height - 1, v.height);

  for (int base = 0; base < circles.count; base += batch) {
    const int k = base + static_cast<int>(threadIdx.x);
    float4 p = make_float4(0.f, 0.f, 0.f, 0.f);
    bool touches = false;
    if (static_cast<int>(threadIdx.x) < batch && k < circles.count) {
      p = circles.pos_rad[k];
      touches = circle_touches_box(p.x, p.y, p.w, x0, y0, x1, y1);
    }
    int total;
    const int slot = exclusive_scan_flags<kWarps>(touches, s_warp_totals, &total);
    if (touches) {
      s_pos[slot] = p;
      s_col[slot] = circles.color[k];
    }
    __syncthreads();
    for (int s = 0; s < total; ++s) {
      const float4 q = s_pos[s];
      const float4 col = s_col[s];
      blend_circle(S, px, py, q.x, q.y, q.z, q.w, col.x, col.y, col.z, col.w, &c);
    }
    __syncthreads();  // the next batch overwrites the list and the warp totals
  }
  if (i < v.width && j < v.height)
    f.image[static_cast<std::size_t>(j) * v.width + i] = make_float4(c.x, c.y, c.z, c.w);
}

class CudaTileScanRenderer final : public CudaRenderer {
 public:
  CudaTileScanRenderer(int tile, int batch) : tile_(tile), batch_(batch) {}

 private:
  void draw() override {
    const FrameParams f = frame_params();
    with_tile_size(tile_, [&](auto tile) {
      constexpr int T = decltype(tile)::value;
      const dim3 grid((f.view.width + T - 1) / T, (f.view.height + T - 1) / T);
      if (shading() == Shading::Snow)
        render_tile_scan_kernel<Shading::Snow, T><<<grid, T * T, 0, stream()>>>(circles(), f, batch_);
      else
        render_tile_scan_kernel<Shading::Flat, T><<<grid, T * T, 0, stream()>>>(circles(), f, batch_);
    });
    CUDA_CHECK_LAUNCH();
    stage("clear+cull+scan+shade");
  }
  const int tile_, batch_;
};

}  // namespace

std::unique_ptr<Renderer> make_cuda_tile_scan_renderer(const RendererSettings& s) {
  return std::make_unique<CudaTileScanRenderer>(s.tile_size, s.batch_size);
}

}  // namespace circles
