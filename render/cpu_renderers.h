// CPU renderers: cpu-ref (sequential; defines the picture) and cpu-mt (threads over tiles).
#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "render/interrupt.h"
#include "render/progress.h"
#include "render/renderer.h"

namespace circles {

struct RendererSettings;
std::unique_ptr<Renderer> make_cpu_ref_renderer(const RendererSettings& settings);
// Moves circles [begin, end) of `scene` from scene->frame to the next frame (the caller then
// increments scene->frame once all circles have moved).
void animate_circles(Scene* scene, std::size_t begin, std::size_t end);
// Advances the whole scene by `frames` frames, sequentially (for `scene save --frame N`).
void advance_scene(Scene* scene, std::int64_t frames, Progress* progress = nullptr);
std::unique_ptr<Renderer> make_cpu_mt_renderer(const RendererSettings& settings);

// The CPU renderers' two pieces of raster, shared with the band renderer (render/band_renderer.h):
// the pixel indices [lo, hi] (clamped to [0, n-1]; empty when lo > hi) whose centres may lie
// within [c - r, c + r], and circle c blended over pixels [i0, i1] of one row (centres px[i], py).
void pixel_span(float c, float r, float scale, float off, int n, int* lo, int* hi);
void blend_row(Shading shading, const Circle& c, const float* px, float py, Float4* row, int i0, int i1);

// Runs fn(begin, end) over [0, n) split into chunks on up to `threads` threads (0 = all cores).
void parallel_for(std::size_t n, std::size_t chunk, void (*fn)(void*, std::size_t, std::size_t),
                  void* ctx, unsigned threads = 0);

// Drawing in stripes, the threaded way of the band and layer renderers (render/band_renderer.cpp,
// render/layer_renderer.cpp): stripes of kStripeRows rows shaded in parallel, each stripe's circles
// binned in order first. `bins` ([chunk][stripe] -> circle ids) is the caller's, kept from frame to
// frame for its storage.
constexpr int kStripeRows = 32;  // rows a thread shades at a time
using StripeBins = std::vector<std::vector<std::vector<std::uint32_t>>>;

// Rows [0, rows) of circles [0, n) drawn in stripes on up to `threads` threads (0 = all cores).
// rows_of(k, &j0, &j1) says whether circle k may touch the picture, and if so its rows [j0, j1]
// (within [0, rows - 1]); shade(s, r0, r1) draws stripe s, rows [r0, r1], from the ids of
// (*bins)[chunk][s], chunk by chunk. Throws Interrupted when an interrupt stops the threads.
template <class RowsOf, class Shade>
void draw_in_stripes(int rows, std::size_t n, unsigned threads, StripeBins* bins, RowsOf rows_of, Shade shade) {
  if (rows == 0) return;
  struct Work {
    RowsOf* rows_of;
    Shade* shade;
    StripeBins* bins;
    std::size_t n, chunk;
    int rows, stripes;
    std::atomic<int> stripes_done{0};
  } w;
  w.rows_of = &rows_of, w.shade = &shade, w.bins = bins, w.n = n, w.rows = rows;
  w.stripes = (rows + kStripeRows - 1) / kStripeRows;
  // Bin: chunk k of the circles lists, per stripe, its circles that may touch it, in order; the
  // chunks are kept in order, so each stripe sees its circles in the scene's order.
  w.chunk = std::max<std::size_t>(4096, (n + 63) / 64);
  const std::size_t chunks = n ? (n + w.chunk - 1) / w.chunk : 0;
  bins->resize(chunks);
  for (auto& b : *bins) {
    b.resize(w.stripes);
    for (auto& v : b) v.clear();
  }
  parallel_for(chunks, 1, [](void* self, std::size_t b, std::size_t e) {
    auto* me = static_cast<Work*>(self);
    for (std::size_t k = b; k < e && !interrupt_requested(); ++k) {
      const std::size_t begin = k * me->chunk, end = std::min(me->n, begin + me->chunk);
      std::vector<std::vector<std::uint32_t>>& out = (*me->bins)[k];
      for (std::size_t idx = begin; idx < end; ++idx) {
        int j0, j1;
        if (!(*me->rows_of)(idx, &j0, &j1)) continue;
        for (int s = j0 / kStripeRows; s <= j1 / kStripeRows; ++s) out[s].push_back(static_cast<std::uint32_t>(idx));
      }
    }
  }, &w, threads);
  stop_if_interrupted();
  parallel_for(static_cast<std::size_t>(w.stripes), 1, [](void* self, std::size_t b, std::size_t e) {
    auto* me = static_cast<Work*>(self);
    for (std::size_t s = b; s < e && !interrupt_requested(); ++s) {
      const int r0 = static_cast<int>(s) * kStripeRows, r1 = std::min(me->rows, r0 + kStripeRows) - 1;
      (*me->shade)(static_cast<int>(s), r0, r1);
      progress_within(static_cast<double>(++me->stripes_done) / me->stripes);
    }
  }, &w, threads);
  stop_if_interrupted();
}

}  // namespace circles
