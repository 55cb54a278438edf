// Which tiles a circle's pairs go to: its bounding box's tiles (tile_rect), less those that
// cpu-ref's conservative circle-box test rules out (circle_touches_tile); host and device alike.
#pragma once
#include "kernels/renderers/base.cuh"
#include "render/raster.h"

namespace circles::binned {

// The tiles whose pixel centres a circle's bounding box may reach (span_slack pixels of margin),
// clamped to the grid; empty (x0 > x1) when the box misses the image.
struct TileRect {
  int x0, y0, x1, y1;
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

// Tiles are 2^tile_shift pixels a side (16 or 32): a shift, because a division by a tile size
// known only at run time is a long instruction sequence, and each circle needs four of them.
CIRCLES_HD TileRect tile_rect(float x, float y, float r, const View& v, int tile_shift) {
  TileRect t{0, 0, -1, -1};
  int i0, i1, j0, j1;
  if (!axis_span(x, r, v.scale, v.off_x, v.width, &i0, &i1) ||
      !axis_span(y, r, v.scale, v.off_y, v.height, &j0, &j1))
    return t;  // off image: empty
  t.x0 = i0 >> tile_shift;  // pixel indices are never negative here
  t.x1 = i1 >> tile_shift;
  t.y0 = j0 >> tile_shift;
  t.y1 = j1 >> tile_shift;
  return t;
}

// Whether the circle may cover a pixel centre of tile (tx, ty): cpu-ref's conservative
// circle-box test (render/raster.h) against the tile's extreme pixel centres, so the corners of
// a circle's bounding box that the circle misses get no pairs. Host and device.
// The tile's box is computed with a multiply by 1/scale instead of View's division: an ulp off
// at most, far inside circle_touches_box's slack, and a division fewer per corner.
CIRCLES_HD bool circle_touches_tile(float x, float y, float r, const View& v, float inv_scale, int tile, int tx,
                                    int ty) {
  const int i0 = tx * tile, j0 = ty * tile;
  const int i1 = (i0 + tile < v.width ? i0 + tile : v.width) - 1;
  const int j1 = (j0 + tile < v.height ? j0 + tile : v.height) - 1;
  const float x0 = (static_cast<float>(i0) + 0.5f - v.off_x) * inv_scale;
  const float x1 = (static_cast<float>(i1) + 0.5f - v.off_x) * inv_scale;
  const float y0 = (static_cast<float>(j0) + 0.5f - v.off_y) * inv_scale;
  const float y1 = (static_cast<float>(j1) + 0.5f - v.off_y) * inv_scale;
  return circle_touches_box(x, y, r, x0, y0, x1, y1);
}

// Whether circle p gets a pair for tile (tx, ty) of its tile_rect: it may touch the tile and,
// when `settled` is given, the tile has not stopped yet (early exit).
__device__ __forceinline__ bool tile_pair_kept(const float4& p, const View& v, float inv_scale, int tile, int tiles_x,
                                               const unsigned char* settled, int tx, int ty) {
  return (!settled || !settled[ty * tiles_x + tx]) && circle_touches_tile(p.x, p.y, p.w, v, inv_scale, tile, tx, ty);
}

// Calls f(tx, ty) for each tile of the circle's tile_rect that tile_pair_kept keeps. The one
// walk that count, scatter and duplicate share, so they agree (the duplicate's block-wide walk
// of a big circle visits the same rect with the same test). Even a one-tile rect's tile is
// tested: a shortcut for it would make warps of mixed circles run both paths.
// kRolled: a row's tiles one at a time. Unrolled (the compiler unrolls by four), the boxes of
// four columns are computed before the loop knows how many it has: wasted work for small circles
// of a tile or two, the common case, so the default is rolled. count_tiles_kernel walks unrolled:
// the sort path it counts for is taken mostly where circles span several tiles (a block's pairs
// too many for binning by counting), where the unrolled boxes are used.
template <bool kRolled = true, class F>
__device__ __forceinline__ void for_each_tile(const float4& p, const View& v, int tile, int tiles_x,
                                              const unsigned char* settled, F&& f) {
  const TileRect t = tile_rect(p.x, p.y, p.w, v, __ffs(tile) - 1);
  const float inv_scale = 1.f / v.scale;
  for (int ty = t.y0; ty <= t.y1; ++ty) {
    if (kRolled) {
#pragma unroll 1
      for (int tx = t.x0; tx <= t.x1; ++tx)
        if (tile_pair_kept(p, v, inv_scale, tile, tiles_x, settled, tx, ty)) f(tx, ty);
    } else {
      for (int tx = t.x0; tx <= t.x1; ++tx)
        if (tile_pair_kept(p, v, inv_scale, tile, tiles_x, settled, tx, ty)) f(tx, ty);
    }
  }
}

}  // namespace circles::binned
