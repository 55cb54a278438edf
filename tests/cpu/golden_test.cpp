// cpu-ref against small committed golden PNGs (tests/golden/). To update them after an intended
// change of the picture, run the tests with CIRCLES_UPDATE_GOLDEN=1 (see tests/golden/README.md)
// and review the new images before committing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "render/builtin_scenes.h"
#include "render/png.h"
#include "test_util.h"

namespace circles {
namespace {

struct Golden {
  const char* scene;
  int width, height;
  std::int64_t frame;
};

class GoldenTest : public ::testing::TestWithParam<Golden> {};

std::string golden_path(const Golden& g) {
  return test::source_dir() + "/tests/golden/" + g.scene + "_" +
         std::to_string(g.width) + "x" + std::to_string(g.height) + "_f" + std::to_string(g.frame) +
         ".png";
}

TEST_P(GoldenTest, CpuRefMatchesGoldenPng) {
  const Golden g = GetParam();
  const Image img = test::render_frame("cpu-ref", make_builtin_scene(g.scene), g.width, g.height, g.frame);
  const std::string path = golden_path(g);
  if (test::env_is_1("CIRCLES_UPDATE_GOLDEN")) {
    write_png(path, img);
    SKIP_EXPECTED("golden image rewritten (CIRCLES_UPDATE_GOLDEN=1): " << path);
  }
  ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing (CIRCLES_UPDATE_GOLDEN=1 makes it)";
  const std::vector<std::uint8_t> got = to_rgba8(img);
  const std::vector<std::uint8_t> want = to_rgba8(read_png(path));
  ASSERT_EQ(got.size(), want.size());
  // Exact: cpu-ref's arithmetic is correctly rounded operations only (render/raster.h: no library
  // exp), so every C library and CPU gives the same floats, hence the same 8-bit values.
  int worst = 0;
  std::size_t differing = 0, first = got.size();
  for (std::size_t k = 0; k < got.size(); ++k) {
    const int d = std::abs(int(got[k]) - int(want[k]));
    if (d != 0 && first == got.size()) first = k;
    worst = std::max(worst, d);
    differing += d != 0;
  }
  EXPECT_EQ(differing, 0u) << path << ": " << differing << " of " << got.size() << " 8-bit values differ, by up to "
                           << worst << " steps; the first at column " << first / 4 % g.width << ", row "
                           << first / 4 / g.width << " from the top, channel " << "rgba"[first % 4];
}

INSTANTIATE_TEST_SUITE_P(
    Scenes, GoldenTest,
    ::testing::Values(Golden{"rgb", 128, 128, 0}, Golden{"rgby", 128, 128, 0},
                      Golden{"pattern", 256, 256, 0}, Golden{"rand10k", 200, 120, 0},
                      Golden{"biglittle", 128, 128, 0}, Golden{"snow", 160, 160, 30},
                      Golden{"fireworks", 160, 96, 45}, Golden{"hypnosis", 128, 128, 12},
                      Golden{"bouncingballs", 128, 128, 40}),
    [](const ::testing::TestParamInfo<Golden>& info) {
      return std::string(info.param.scene) + "_" + std::to_string(info.param.width) + "x" +
             std::to_string(info.param.height) + "_f" + std::to_string(info.param.frame);
    });

}  // namespace
}  // namespace circles
