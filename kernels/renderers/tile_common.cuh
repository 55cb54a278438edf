// cuda-tile-scan's device building blocks, which the heat map's count kernel (base.cu) shares: a
// block owns a TILE x TILE tile, one thread per pixel; circles are staged through shared memory
// and blended in order.
#pragma once
#include "kernels/renderers/base.cuh"
#include "kernels/primitives/block_scan.cuh"

namespace circles {

// This thread's pixel and its tile's extreme pixel centres (clipped to the image).
struct TilePixel {
  int i, j;            // pixel (may lie outside the image in edge tiles)
  float px, py;        // its centre
  float x0, y0, x1, y1;  // the tile's extreme pixel centres
};

template <int TILE>
__device__ __forceinline__ TilePixel tile_pixel(const View& v) {
  TilePixel t;
  const int i0 = blockIdx.x * TILE, j0 = blockIdx.y * TILE;
  t.i = i0 + static_cast<int>(threadIdx.x) % TILE;
  t.j = j0 + static_cast<int>(threadIdx.x) / TILE;
  t.px = v.pixel_x(t.i);
  t.py = v.pixel_y(t.j);
  t.x0 = v.pixel_x(i0);
  t.x1 = v.pixel_x(min(i0 + TILE, v.width) - 1);
  t.y0 = v.pixel_y(j0);
  t.y1 = v.pixel_y(min(j0 + TILE, v.height) - 1);
  return t;
}

__device__ __forceinline__ Float4 tile_background(const FrameParams& f, const TilePixel& t) {
  return background_at(f.background, t.j < f.view.height ? t.j : f.view.height - 1, f.view.height);
}

__device__ __forceinline__ void store_pixel(const FrameParams& f, const TilePixel& t, const Float4& c) {
  if (t.i < f.view.width && t.j < f.view.height)
    f.image[static_cast<std::size_t>(t.j) * f.view.width + t.i] = make_float4(c.x, c.y, c.z, c.w);
}

// Blends the first n staged circles over *c, in order.
template <Shading S>
__device__ __forceinline__ void blend_staged(const float4* s_pos, const float4* s_col, int n,
                                             float px, float py, Float4* c) {
  for (int s = 0; s < n; ++s) {
    const float4 q = s_pos[s];
    const float4 col = s_col[s];
    blend_circle(S, px, py, q.x, q.y, q.z, q.w, col.x, col.y, col.z, col.w, c);
  }
}

// The block's scan of its cull flags: one of the block-level scans (kernels/primitives/block_scan.cuh),
// picked by cuda-tile-scan's `--scan`; TileScanStorage is its shared memory.
template <BlockScanAlgo A, int TILE>
using TileScanStorage = typename BlockFlagScan<A, TILE * TILE>::Storage;

// The tile-scan loop: all N circles in batches of `batch` (one per thread); each thread tests one
// circle against the tile, the scan (algorithm A) compacts the survivors into shared memory in
// order, every thread blends them. Every block reads every circle: N x tiles tests.
template <Shading S, int TILE, BlockScanAlgo A>
__device__ __forceinline__ void cull_scan_shade_all(const DeviceCircles& circles, const TilePixel& t,
                                                    int batch, float4* s_pos, float4* s_col,
                                                    TileScanStorage<A, TILE>& s_scan, Float4* c) {
  constexpr int kThreads = TILE * TILE;
  for (int base = 0; base < circles.count; base += batch) {
    const int k = base + static_cast<int>(threadIdx.x);
    float4 p = make_float4(0.f, 0.f, 0.f, 0.f);
    bool touches = false;
    if (static_cast<int>(threadIdx.x) < batch && k < circles.count) {
      p = circles.pos_rad[k];
      touches = circle_touches_box(p.x, p.y, p.w, t.x0, t.y0, t.x1, t.y1);
    }
    int total;
    const int slot = BlockFlagScan<A, kThreads>::exclusive(touches, s_scan, &total);
    if (touches) {
      s_pos[slot] = p;
      s_col[slot] = circles.color[k];
    }
    __syncthreads();
    blend_staged<S>(s_pos, s_col, total, t.px, t.py, c);
    __syncthreads();  // the next batch overwrites the list and the scan's storage
  }
}

}  // namespace circles
