// Drawing rows in stripes on threads (draw_in_stripes), the band and layer renderers' way.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "render/cpu_renderers.h"
#include "render/interrupt.h"
#include "render/progress.h"

namespace circles {

// Stripes of kStripeRows rows shaded in parallel, each stripe's circles binned in order first
// (render/band_renderer.cpp, render/layer_renderer.cpp). `bins` ([chunk][stripe] -> circle ids) is
// the caller's, kept from frame to frame for its storage.
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
