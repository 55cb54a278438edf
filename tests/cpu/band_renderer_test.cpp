// A band of rows (render/band_renderer.h) against cpu-ref's whole frame: every float of every
// band row bit-identical to the same row of the whole frame, on square, wide and tall frames
// (the unit square fitted with offsets), flat and snow shading, solid and gradient backgrounds,
// still and animated scenes several frames in, one thread and many; empty bands and bands of one
// row too. A band outside its frame is refused.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "render/band_renderer.h"
#include "render/builtin_scenes.h"
#include "test_util.h"

namespace circles {
namespace {

struct Case {
  const char* scene;
  int width, height;
  std::int64_t frame;
};

// Whether row j of `band` (the frame's row first + j) is row first + j of `whole`, to the bit.
void expect_rows_equal(const Image& whole, const Image& band, int first, const std::string& what) {
  ASSERT_EQ(band.width, whole.width) << what;
  for (int j = 0; j < band.height; ++j)
    ASSERT_EQ(std::memcmp(&band.at(0, j), &whole.at(0, first + j), sizeof(Float4) * whole.width), 0)
        << what << ": row " << first + j << " differs";
}

TEST(BandRenderer, RowsAreCpuRefsWholeFrameRows) {
  const std::vector<Case> cases = {{"rand10k", 200, 120, 0}, {"rand10k", 61, 173, 0}, {"snow", 97, 61, 30},
                                   {"bouncingballs", 128, 128, 40}, {"fireworks", 160, 96, 45},
                                   {"pattern", 64, 64, 0}};
  for (const Case& c : cases) {
    const Scene scene = make_builtin_scene(c.scene);
    const Image whole = test::render_frame("cpu-ref", scene, c.width, c.height, c.frame);
    // Bands that split the frame in 1, 3 and 4 (height not divisible), one row, no rows, and a band
    // touching the top and one the bottom.
    const int h = c.height;
    const std::vector<std::pair<int, int>> bands = {{0, h}, {0, h / 3}, {h / 3, h / 3}, {2 * (h / 3), h - 2 * (h / 3)},
                                                    {h / 2, 1}, {h / 2, 0}, {h - 5, 5}, {0, 7}, {h / 4, h / 4 + 1}};
    for (unsigned threads : {1u, 0u, 3u})
      for (const auto& [first, rows] : bands) {
        std::unique_ptr<Renderer> r = make_band_renderer(first, rows, threads);
        Image band;
        run_frames(*r, scene, c.width, c.height, c.frame, c.frame + 1, [&](std::int64_t) { r->read_image(&band); });
        ASSERT_EQ(band.height, rows);
        expect_rows_equal(whole, band, first,
                          std::string(c.scene) + " " + std::to_string(c.width) + "x" + std::to_string(h) + " frame " +
                              std::to_string(c.frame) + ", band " + std::to_string(first) + "+" +
                              std::to_string(rows) + ", threads " + std::to_string(threads));
      }
  }
}

TEST(BandRenderer, FollowsAnAnimationFrameByFrame) {
  const Scene scene = make_builtin_scene("snow");
  const int w = 80, h = 50, first = 17, rows = 20;
  for (unsigned threads : {1u, 0u}) {
    std::unique_ptr<Renderer> r = make_band_renderer(first, rows, threads);
    Image band;
    run_frames(*r, scene, w, h, 3, 7, [&](std::int64_t f) {
      r->read_image(&band);
      expect_rows_equal(test::render_frame("cpu-mt", scene, w, h, f), band, first, "snow frame " + std::to_string(f));
    });
    EXPECT_EQ(r->frame(), 6);
  }
}

TEST(BandRenderer, RefusesABandOutsideTheFrame) {
  const Scene scene = make_builtin_scene("rgb");
  for (const auto& [first, rows] : std::vector<std::pair<int, int>>{{-1, 2}, {0, 11}, {10, 1}, {5, -1}}) {
    std::unique_ptr<Renderer> r = make_band_renderer(first, rows, 1);
    EXPECT_THROW(r->load(scene, 10, 10), std::invalid_argument) << first << "+" << rows;
  }
}

}  // namespace
}  // namespace circles
