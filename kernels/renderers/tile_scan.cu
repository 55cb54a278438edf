// cuda-tile-scan: one block per tile (16x16 by default); circles in batches of one per thread; a
// block-wide exclusive scan compacts the batch's circles that touch the tile into shared memory,
// in order; then each thread shades its own pixel from that list. No atomics, no races on
// pixels. The scan is one of the lab's block-level scans (kernels/primitives/block_scan.cuh),
// chosen by name (`--scan`).
#include <stdexcept>
#include <string>

#include "kernels/renderers/config.h"
#include "kernels/renderers/base.cuh"
#include "kernels/renderers/cuda_renderers.h"
#include "kernels/renderers/tile_common.cuh"
#include "render/renderer.h"

namespace circles {

namespace {

// Shades a tile a block from the circles culled per batch: fast for few circles, slow for large N.
// Pixels blend only the circles that touch their tile, but every block still reads and tests all N
// circles (N x tiles tests). One thread per pixel. Each batch: the first `batch` threads test one
// circle each against the tile, the scan packs the survivors into shared memory in order, every
// thread blends them.
template <Shading S, int TILE, BlockScanAlgo A>
__global__ void __launch_bounds__(TILE * TILE) render_tile_scan_kernel(DeviceCircles circles,
                                                                       FrameParams f, int batch) {
  constexpr int kThreads = TILE * TILE;
  __shared__ float4 s_pos[kThreads];
  __shared__ float4 s_col[kThreads];
  __shared__ TileScanStorage<A, TILE> s_scan;

  const long long start = clock64();
  const TilePixel t = tile_pixel<TILE>(f.view);
  Float4 c = tile_background(f, t);
  cull_scan_shade_all<S, TILE, A>(circles, t, batch, s_pos, s_col, s_scan, &c);
  record_tile_cycles(f, start);
  store_pixel(f, t, c);
}

// The registry's names for the block scans (app/common/registry.cpp lists them, the default first).
BlockScanAlgo block_scan_named(const std::string& name) {
  if (name.empty() || name == "ballot") return BlockScanAlgo::ballot;
  if (name == "scan-hillis-steele") return BlockScanAlgo::hillis_steele;
  if (name == "scan-blelloch-shared") return BlockScanAlgo::blelloch_shared;
  if (name == "scan-blelloch-padded") return BlockScanAlgo::blelloch_padded;
  if (name == "scan-warp-shuffle") return BlockScanAlgo::warp_shuffle;
  if (name == "scan-cub") return BlockScanAlgo::cub;
  throw std::invalid_argument("cuda-tile-scan has no block scan '" + name + "'");
}

class CudaTileScanRenderer final : public CudaRenderer {
 public:
  CudaTileScanRenderer(int tile, int batch, BlockScanAlgo scan) : tile_(tile), batch_(batch), scan_(scan) {}

 private:
  void draw() override {
    stage_begin("clear+cull+scan+shade");
    const FrameParams f = frame_params();
    with_tile_size(tile_, [&](auto tile) {
      with_block_scan(scan_, [&](auto scan) {
        constexpr int T = decltype(tile)::value;
        constexpr BlockScanAlgo A = decltype(scan)::value;
        const dim3 grid((f.view.width + T - 1) / T, (f.view.height + T - 1) / T);
        if (shading() == Shading::Snow)
          render_tile_scan_kernel<Shading::Snow, T, A><<<grid, T * T, 0, stream()>>>(circles(), f, batch_);
        else
          render_tile_scan_kernel<Shading::Flat, T, A><<<grid, T * T, 0, stream()>>>(circles(), f, batch_);
      });
    });
    CUDA_CHECK_LAUNCH();
    stage("clear+cull+scan+shade");
  }
  int shade_tile() const override { return tile_; }
  const int tile_, batch_;
  const BlockScanAlgo scan_;
};

}  // namespace

std::unique_ptr<Renderer> make_cuda_tile_scan_renderer(const RendererSettings& s) {
  return std::make_unique<CudaTileScanRenderer>(s.tile_size, s.batch_size, block_scan_named(s.scan));
}

}  // namespace circles
