// Every CUDA renderer in the registry against cpu-ref, on every built-in scene, at sizes that are
// not multiples of the tile, over several animation frames; every tile size, scan and forced
// choice of cuda-tile-binned too. Each frame reports a mode the scene and options allow (from
// render/modes.h's refusals, not the renderer's word) and keeps that mode's promise: exact frames
// are cpu-ref's floats to the bit. Without a GPU these tests skip; with
// CIRCLES_REQUIRE_GPU=1 set they fail instead.
#include <gtest/gtest.h>

#include <cctype>
#include <cstddef>
#include <ostream>
#include <tuple>

#include "gpu/gpu_test_util.h"

namespace circles {
namespace {

// A GPU renderer with settings: the default, each other tile size, the smallest batch, and each
// other scan (at the default tile size).
struct Variant {
  std::string renderer;
  RendererSettings settings;
  bool is_default = true;
  bool every_scene = true;  // all built-in scenes (else those up to 100k circles)
  // cuda-tile-binned's choices forced (RendererSettings::binned, by forced()): "direct" or
  // "binned", "rows2" its exact frames at two pixels a lane, "rows4" binned ones at four,
  // "early-force" early exit even on scenes it would draw exact, "sort" binned by CUB's sort
  // instead of by counting, "block1024" binned by counting in blocks of 1024 circles, falling
  // back to the sort where a block's pairs do not fit;
  // "compose2" runs of circles covering a tile (early exit) or a warp box composed whatever the
  // circles' size, "compose1" runs covering a warp box only (binned exact frames take them from a
  // radius of one tile, 32 pixels, so no built-in scene does), "compose0" none composed, so that
  // every exact frame of flat circles at four pixels a lane culls per row group; "tiny" binned
  // exact flat frames through the tiny-circle kernel whatever the circles' size; "" its own
  // choices.
  std::string strategy{};
  std::string label() const {
    std::string s = renderer;
    if (settings.tile_size) s += "_tile" + std::to_string(settings.tile_size);
    if (settings.batch_size) s += "_batch" + std::to_string(settings.batch_size);
    if (!settings.scan.empty()) s += "_" + settings.scan;
    if (settings.early_exit) s += "_early";
    if (settings.half_colour) s += "_half";
    if (!strategy.empty()) s += "_" + strategy;
    return s;
  }
};

void PrintTo(const Variant& v, std::ostream* os) { *os << v.label(); }

std::vector<Variant> gpu_variants() {
  std::vector<Variant> out;
  for (const RendererInfo& r : renderer_registry()) {
    if (!r.needs_gpu) continue;
    out.push_back({r.name, {}, true, true});
    for (std::size_t t = 1; t < r.tile_sizes.size(); ++t)
      out.push_back({r.name, {r.tile_sizes[t], 0}, false, false});
    if (!r.batch_sizes.empty()) out.push_back({r.name, {0, r.batch_sizes.front()}, false, false});
    // A scan changes which offsets every pair or circle lands at: each runs every scene.
    for (std::size_t k = 1; k < r.scans.size(); ++k) out.push_back({r.name, {0, 0, r.scans[k]}, false, true});
    if (r.early_exit) {
      // Early exit on every scene at every size (its own check: 8-bit, within one step).
      RendererSettings early;
      early.early_exit = true;
      out.push_back({r.name, early, true, true});
      RendererSettings early32 = early;
      early32.tile_size = r.tile_sizes.back();
      out.push_back({r.name, early32, false, false});
    }
    if (r.name == "cuda-tile-binned") {
      // Each strategy where the choice would take the other: binning for the small scenes,
      // the direct walk for the larger ones (up to 100k circles), in both modes.
      for (bool e : {false, true}) {
        RendererSettings s;
        s.early_exit = e;
        out.push_back({r.name, s, false, false, "binned"});
        out.push_back({r.name, s, false, false, "direct"});
        // Binning by counting is the default where it fits: the sort keeps every scene, and
        // blocks too big for their pairs make it fall back chunk by chunk.
        out.push_back({r.name, s, false, true, "sort"});
        out.push_back({r.name, s, false, false, "block1024"});
        // Composed runs (tile runs pre-composed per group of staged circles, box runs folded by
        // each warp) on every flat scene, small circles and all, direct or binned as each
        // scene's choice goes.
        out.push_back({r.name, s, false, false, "compose2"});
        // Box runs alone (blended untested in exact mode, folded in early exit).
        out.push_back({r.name, s, false, false, "compose1"});
        // And none: exact frames of flat circles at four pixels a lane then cull and walk per row
        // group of 8 lanes (kSubBoxes), big circles and all.
        out.push_back({r.name, s, false, false, "compose0"});
      }
      // The tiny-circle kernel (coverage masks, a thread a circle) on every flat scene up to
      // 100k circles, big circles and all, at both tiles (micro2M takes it by default).
      for (int tile : r.tile_sizes) {
        RendererSettings exact_tile;
        exact_tile.tile_size = tile;
        out.push_back({r.name, exact_tile, false, false, "tiny"});
      }
      // Exact frames at tile 32 take four pixels a lane (direct ones, and binned ones of flat
      // circles: rand100k here, every scene in the "binned" variant); two is the other kernel.
      const RendererSettings exact;
      out.push_back({r.name, exact, false, false, "rows2"});
      // And binned frames at four (--binned-rows 4, the ladder's four-rows rung) instead of the
      // eight-pixel walk: every scene up to 100k circles binned.
      out.push_back({r.name, exact, false, false, "rows4"});
      // Half colour on every scene (the eight-pixel walk's frames: rand1M, stress10M; the others
      // exact), by its own promise.
      RendererSettings half;
      half.half_colour = true;
      out.push_back({r.name, half, false, true});
      // Early exit's kernels on the scenes it would draw exact (shallow, tiny or snow circles).
      RendererSettings early;
      early.early_exit = true;
      out.push_back({r.name, early, false, false, "early-force"});
    }
  }
  return out;
}

// The default and scan variants on every scene; the other settings on the scenes up to 100k
// circles.
std::vector<std::tuple<Variant, std::string>> cases() {
  std::vector<std::tuple<Variant, std::string>> out;
  for (const Variant& v : gpu_variants())
    for (const SceneInfo& s : scene_registry())
      if (v.every_scene || s.circle_count <= 100000) out.emplace_back(v, s.name);
  return out;
}

class GpuMatchesCpuRef : public ::testing::TestWithParam<std::tuple<Variant, std::string>> {};

TEST_P(GpuMatchesCpuRef, AllSizesAndFrames) {
  const auto& [variant, scene_name] = GetParam();
  const std::string& renderer = variant.renderer;
  REQUIRE_RENDERER(*find_renderer(renderer));
  const Scene& scene = cached_scene(scene_name);
  const std::size_t n = scene.circles.size();
  // 1023 and 257 are not multiples of 16 or 32; 300x200 is not square. The largest scenes skip
  // 1023 only to keep cpu-ref's share of the run short.
  std::vector<Size> sizes = {{257, 257}, {300, 200}};
  if (n <= 2000000 && variant.is_default) sizes.push_back({1023, 1023});
  const std::vector<std::int64_t> frames = scene.animation == Animation::None
                                               ? std::vector<std::int64_t>{0}
                                               : std::vector<std::int64_t>{0, 1, 2, 90};
  const RendererSettings settings = forced(variant.strategy, variant.settings);
  const AllowedModes allowed = allowed_modes(renderer, scene, settings);
  for (const Size& sz : sizes) {
    const std::vector<Image> refs = reference_frames(scene_name, sz, frames);
    auto gpu = make_renderer(renderer, settings);
    gpu->load(scene, sz.w, sz.h);
    Image b;
    for (std::size_t k = 0; k < frames.size(); ++k) {
      const std::int64_t f = frames[k];
      const Image& a = refs[k];
      gpu->seek(f);
      gpu->render();
      gpu->read_image(&b);
      SCOPED_TRACE(scene_name + " " + std::to_string(sz.w) + "x" + std::to_string(sz.h) + " frame " +
                   std::to_string(f) + " (" + gpu->plan() + ")");
      // The mode reported is one the scene and options allow (a default frame: exact only), and
      // the frame keeps it: early exit every 8-bit value within one step of cpu-ref's, half
      // colour R, G, B within 2^-10 and alpha exact, exact frames cpu-ref's floats to the bit.
      EXPECT_EQ(frame_broken(allowed, gpu->mode(), a, b), "") << mode_name(gpu->mode());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Registry, GpuMatchesCpuRef,
    ::testing::ValuesIn(cases()),
    [](const ::testing::TestParamInfo<GpuMatchesCpuRef::ParamType>& info) {
      std::string s = std::get<0>(info.param).label() + "_" + std::get<1>(info.param);
      for (char& c : s)
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
      return s;
    });

}  // namespace
}  // namespace circles
