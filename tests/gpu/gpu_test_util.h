// What the GPU tests share (tests/gpu/*_test.cpp): skipping (or failing, with
// CIRCLES_REQUIRE_GPU=1) where a renderer cannot run, the GPU renderers, cuda-tile-binned's
// choices forced by name, scenes and cpu-ref's frames cached once per process, and each mode's
// promise against cpu-ref (render/modes.h).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "app/common/registry.h"
#include "render/builtin_scenes.h"
#include "render/compare.h"
#include "render/modes.h"
#include "render/raster.h"
#include "test_util.h"

namespace circles {

// Skips (or fails, when a GPU is required) if `info` cannot run here.
#define REQUIRE_RENDERER(info)                                          \
  do {                                                                  \
    const std::string why_ = unavailable_reason(info);                  \
    NEED_GPU(why_.empty() ? why_ : (info).name + ": " + why_);          \
  } while (0)

inline std::vector<std::string> gpu_renderers() {
  std::vector<std::string> names;
  for (const RendererInfo& r : renderer_registry())
    if (r.needs_gpu) names.push_back(r.name);
  return names;
}

// `s` with cuda-tile-binned's choices forced by name (matrix_test.cpp's Variant::strategy names;
// "" forces nothing): the strategy ("direct", "binned"), "rows2", "early-force", "sort" and
// "block1024", "tiny" and "rows4" (binned), "compose0|1|2".
inline RendererSettings forced(const std::string& name, RendererSettings s = {}) {
  BinnedChoices& b = s.binned;
  if (name == "direct") b.strategy = BinnedChoices::Strategy::Direct;
  else if (name == "binned") b.strategy = BinnedChoices::Strategy::Binned;
  else if (name == "rows2") b.rows = 2;
  else if (name == "rows4") b.rows = 4;
  else if (name == "early-force") b.force_early = true;
  else if (name == "sort") b.sort = true;
  else if (name == "block1024") b.block = 1024;
  else if (name == "compose2") b.compose = 2;
  else if (name == "compose1") b.compose = 1;
  else if (name == "compose0") b.compose = 0;
  else if (name == "tiny") b.tiny = 1;
  else if (!name.empty()) throw std::invalid_argument("no forced choice named '" + name + "'");
  if (name == "sort" || name == "block1024" || name == "tiny" || name == "rows4") b.strategy = BinnedChoices::Strategy::Binned;
  return s;
}

// Loads `scene` at w x h into `gpu` and into cpu-ref and renders `frames` frames in both, each
// advanced from the last, calling check(f, ref's image, gpu's image) after frame f.
template <class Check>
inline void render_beside_cpu_ref(Renderer* gpu, const Scene& scene, int w, int h, int frames, Check&& check) {
  auto ref = make_renderer("cpu-ref");
  gpu->load(scene, w, h);
  ref->load(scene, w, h);
  Image a, b;
  for (int f = 0; f < frames; ++f) {
    if (f > 0) gpu->advance(), ref->advance();
    gpu->render();
    ref->render();
    ref->read_image(&a);
    gpu->read_image(&b);
    check(f, a, b);
  }
}

struct Size {
  int w, h;
};

// Scenes are generated once per process; the large ones take seconds.
inline const Scene& cached_scene(const std::string& name) {
  static std::map<std::string, Scene> cache;
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, make_builtin_scene(name)).first;
  return it->second;
}

// cpu-ref's images of a scene at one size and the given frames. The two sizes every variant runs
// are computed once per process (a dozen scan variants compare against the same images, about
// 1 MiB each); the 1023x1023 ones (default variants only) are not kept.
inline std::vector<Image> reference_frames(const std::string& scene_name, const Size& sz,
                                           const std::vector<std::int64_t>& frames) {
  static std::map<std::string, std::vector<Image>> cache;
  std::string key = scene_name + " " + std::to_string(sz.w) + "x" + std::to_string(sz.h) + " frames";
  for (std::int64_t f : frames) key += " " + std::to_string(f);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  auto ref = make_renderer("cpu-ref");
  ref->load(cached_scene(scene_name), sz.w, sz.h);
  std::vector<Image> images(frames.size());
  for (std::size_t k = 0; k < frames.size(); ++k) {
    ref->seek(frames[k]);
    ref->render();
    ref->read_image(&images[k]);
  }
  if (sz.w != 1023) cache.emplace(key, images);
  return images;
}

// The plan text of a frame whose colour the eight-pixel walk kept in half precision.
inline constexpr const char* kHalfColourPlan = "colour in half precision";

// An exact frame against cpu-ref's: its floats to the bit (render/modes.h), so its PNG bytes.
// `what` names the frame in the message.
inline void expect_exact_matches(const Image& ref, const Image& b, const std::string& what) {
  EXPECT_EQ(promise_broken(Mode::Exact, ref, b), "") << what;
}

// The modes a frame may take, from the scene and the options alone: the pure functions users read
// in render/modes.h, never the renderer's own report. Exact always; half colour where the
// renderer's registry entry takes it, it was asked for and half_colour_refusal(scene) is "";
// early exit likewise with early_exit_refusal(scene). The refusals read colours, alphas, depths,
// the background and the shading, which no animation changes, so one answer holds for every
// frame of a scene. (A renderer may still draw an allowed frame exact: its own heuristics.)
struct AllowedModes {
  bool half_colour = false, early_exit = false;
  std::string why_not;  // the refusals of the fast modes that were asked for, for messages
  bool allows(Mode m) const {
    return m == Mode::Exact || (m == Mode::HalfColour && half_colour) || (m == Mode::EarlyExit && early_exit);
  }
};

inline AllowedModes allowed_modes(const std::string& renderer, const Scene& scene, const RendererSettings& s) {
  const RendererInfo* info = find_renderer(renderer);
  if (!info) throw std::invalid_argument("no renderer named '" + renderer + "'");
  AllowedModes a;
  if (s.half_colour && info->half_colour) {
    const std::string why = half_colour_refusal(scene);
    a.half_colour = why.empty();
    if (!why.empty()) a.why_not += "half colour refused: " + why + "; ";
  }
  if (s.early_exit && info->early_exit) {
    const std::string why = early_exit_refusal(scene);
    a.early_exit = why.empty();
    if (!why.empty()) a.why_not += "early exit refused: " + why + "; ";
  }
  return a;
}

// A frame's check: the mode the renderer reports is one that `allowed` permits, and the image
// keeps that mode's promise against cpu-ref's (exact: its floats to the bit). "" when it does,
// else what broke.
inline std::string frame_broken(const AllowedModes& allowed, Mode reported, const Image& ref, const Image& img) {
  if (!allowed.allows(reported))
    return std::string("the renderer reports ") + mode_name(reported) + ", which the scene and options do not allow (" +
           (allowed.why_not.empty() ? "not asked for" : allowed.why_not) + ")";
  return promise_broken(reported, ref, img);
}

// The largest difference between the two images' 8-bit channels (to_byte, as PNG files get).
inline int max_byte_difference(const Image& a, const Image& b) {
  EXPECT_EQ(a.width, b.width);
  EXPECT_EQ(a.height, b.height);
  return compare_images(a, b, 0.f).max_steps;
}

}  // namespace circles
