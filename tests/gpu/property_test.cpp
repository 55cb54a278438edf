// The property test on the GPU: random valid scenes from the whole range the format allows
// (tests/random_scene.h: colours to 1e6, alphas 0, 1 and tiny, radii from a thousandth of a
// pixel to 1e6, centres far outside the frame, one to two million circles, odd sizes, snow and
// flat, still and animated at later frames), through every CUDA renderer in every mode, each frame
// reporting a mode the scene and options allow (render/modes.h's refusals) and keeping that mode's
// promise against cpu-ref. Each run draws fresh seeds and prints them; CIRCLES_PROPERTY_SEED
// replays one, CIRCLES_PROPERTY_SCENES sets how many (a positive integer, default 300), and a
// failing scene is saved as a file for `circles check`. Skips without a GPU (fails with
// CIRCLES_REQUIRE_GPU=1).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "app/common/registry.h"
#include "gpu/gpu_test_util.h"
#include "random_scene.h"
#include "render/compare.h"
#include "render/modes.h"
#include "render/scene_io.h"
#include "test_util.h"

namespace circles {
namespace {

TEST(GpuProperty, RandomValidScenesKeepEveryModesPromise) {
  std::vector<std::pair<std::string, RendererSettings>> runs;
  for (const RendererInfo& info : renderer_registry()) {
    if (!info.needs_gpu) continue;
    REQUIRE_RENDERER(info);
    for (int tile : info.tile_sizes.empty() ? std::vector<int>{0} : info.tile_sizes) {
      RendererSettings s;
      s.tile_size = tile;
      runs.push_back({info.name, s});
      if (info.early_exit) {
        RendererSettings e = s;
        e.early_exit = true;
        runs.push_back({info.name, e});
      }
      if (info.half_colour) {
        RendererSettings h = s;
        h.half_colour = true;
        runs.push_back({info.name, h});
      }
    }
  }
  const std::vector<std::uint64_t> seeds = test::property_seeds(300);
  int failed = 0, frames = 0, early_taken = 0, half_taken = 0, animated = 0;
  for (const std::uint64_t seed : seeds) {
    const test::RandomScene rs = test::random_scene(seed);
    const Scene scene = parse_scene(format_scene(rs.scene), rs.scene.name);  // valid, as a file
    const Image ref = test::render_frame("cpu-ref", scene, rs.width, rs.height, rs.frame);
    animated += scene.animation != Animation::None;
    for (const auto& [name, settings] : runs) {
      const AllowedModes allowed = allowed_modes(name, scene, settings);
      auto r = make_renderer(name, settings);
      Image img;
      r->load(scene, rs.width, rs.height);
      r->seek(rs.frame);
      r->render();
      r->read_image(&img);
      const std::string plan = r->plan();
      const Mode mode = r->mode();
      early_taken += mode == Mode::EarlyExit;
      half_taken += mode == Mode::HalfColour;
      ++frames;
      const std::string broken = frame_broken(allowed, mode, ref, img);
      if (!broken.empty()) {
        const std::string path = ::testing::TempDir() + "gpu-property-" + std::to_string(seed) + ".scene";
        save_scene_file(scene, path);
        ADD_FAILURE() << "seed " << seed << " (" << rs.about << "), " << name << " "
                      << describe_settings(*find_renderer(name), settings) << " [" << plan << "]: " << broken
                      << "; replay: CIRCLES_PROPERTY_SEED=" << seed << ", or circles check " << path << " -r " << name
                      << " -s " << rs.width << "x" << rs.height << " --frames " << rs.frame << ":" << rs.frame + 1
                      << " --exact-bytes";
        ++failed;
      }
    }
    std::printf("[ property ] seed %llu: %s\n", static_cast<unsigned long long>(seed), rs.about.c_str());
  }
  std::printf("[ property ] %zu scenes (%d animated), %d frames (%d early exit, %d half colour, the rest exact), "
              "%d broken\n",
              seeds.size(), animated, frames, early_taken, half_taken, failed);
  EXPECT_EQ(failed, 0);
  if (seeds.size() >= 100) {  // the fast modes and the animations really ran on some scenes
    EXPECT_GT(early_taken, 0);
    EXPECT_GT(half_taken, 0);
    EXPECT_GT(animated, 0);
  }
}

}  // namespace
}  // namespace circles
