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

// Runs fn(begin, end) over [0, n) split into chunks on up to `threads` threads (0 = all cores).
void parallel_for(std::size_t n, std::size_t chunk, void (*fn)(void*, std::size_t, std::size_t),
                  void* ctx, unsigned threads = 0);

}  // namespace circles
