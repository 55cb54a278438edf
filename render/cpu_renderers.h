// CPU renderers: cpu-ref (sequential; defines the picture) and cpu-mt (threads over tiles).
#pragma once
#include <memory>

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

}  // namespace circles
