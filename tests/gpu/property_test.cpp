// The property test on the GPU: random valid scenes from the whole range the format allows
// (tests/random_scene.h: colours to 1e6, alphas 0, 1 and tiny, radii from a thousandth of a
// pixel to 1e6, centres far outside the frame, one to two million circles, odd sizes, snow and
// flat), through every CUDA renderer in every mode, each frame held to its mode's promise against
// cpu-ref (render/modes.h). The seeds are printed; CIRCLES_PROPERTY_SEED replays one,
// CIRCLES_PROPERTY_SCENES sets how many (default 300), and a failing scene is saved as a file for
// `circles check`. Skips without a GPU (fails with CIRCLES_REQUIRE_GPU=1).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "app/common/registry.h"
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
    const std::string why = unavailable_reason(info);
    if (!why.empty()) {
      const char* need = std::getenv("CIRCLES_REQUIRE_GPU");
      if (need && std::string(need) == "1") FAIL() << "CIRCLES_REQUIRE_GPU=1 but " << info.name << ": " << why;
      GTEST_SKIP() << info.name << ": " << why;
    }
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
  const char* count_env = std::getenv("CIRCLES_PROPERTY_SCENES");
  const char* seed_env = std::getenv("CIRCLES_PROPERTY_SEED");
  const int count = seed_env ? 1 : count_env ? std::atoi(count_env) : 300;
  const std::uint64_t first = seed_env ? std::strtoull(seed_env, nullptr, 10) : 1;
  int failed = 0, frames = 0, early_taken = 0, half_taken = 0;
  for (int k = 0; k < count; ++k) {
    const std::uint64_t seed = first + static_cast<std::uint64_t>(k);
    const test::RandomScene rs = test::random_scene(seed);
    const Scene scene = parse_scene(format_scene(rs.scene), rs.scene.name);  // valid, as a file
    const Image ref = test::render_frame("cpu-ref", scene, rs.width, rs.height, 0);
    for (const auto& [name, settings] : runs) {
      auto r = make_renderer(name, settings);
      Image img;
      r->load(scene, rs.width, rs.height);
      r->render();
      r->read_image(&img);
      const std::string plan = r->plan();
      const Mode mode = r->mode();
      early_taken += mode == Mode::EarlyExit;
      half_taken += mode == Mode::HalfColour;
      ++frames;
      const std::string broken = promise_broken(mode, ref, img);
      if (!broken.empty()) {
        const std::string path = ::testing::TempDir() + "gpu-property-" + std::to_string(seed) + ".scene";
        save_scene_file(scene, path);
        ADD_FAILURE() << "seed " << seed << " (" << rs.about << "), " << name << " "
                      << describe_settings(*find_renderer(name), settings) << " [" << plan << "]: " << broken
                      << "; replay: CIRCLES_PROPERTY_SEED=" << seed << ", or circles check " << path << " -r " << name
                      << " -s " << rs.width << "x" << rs.height << " --exact-bytes";
        ++failed;
      }
    }
    std::printf("[ property ] seed %llu: %s\n", static_cast<unsigned long long>(seed), rs.about.c_str());
  }
  std::printf("[ property ] %d scenes, %d frames (%d early exit, %d half colour, the rest exact), %d broken\n", count,
              frames, early_taken, half_taken, failed);
  EXPECT_EQ(failed, 0);
  if (count >= 100) {  // the fast modes really ran on some scenes
    EXPECT_GT(early_taken, 0);
    EXPECT_GT(half_taken, 0);
  }
}

}  // namespace
}  // namespace circles
