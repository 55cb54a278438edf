// The pixel inspector's walk: its last colour is cpu-ref's pixel bit for bit, its steps are
// exactly the circles that cover the pixel, in order, and the tile count bounds them.
#include <gtest/gtest.h>

#include <stdexcept>

#include "app/viewer/inspector.h"
#include "render/builtin_scenes.h"
#include "render/cpu_renderers.h"
#include "render/inspect.h"
#include "render/raster.h"
#include "test_util.h"

namespace circles {
namespace {

bool same(const Float4& a, const Float4& b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }

void expect_walk_matches_cpu_ref(const std::string& name, std::int64_t frame, int w, int h) {
  SCOPED_TRACE(name + " frame " + std::to_string(frame));
  Scene scene = make_builtin_scene(name);
  const Image ref = test::render_frame("cpu-ref", scene, w, h, frame);
  advance_scene(&scene, frame - scene.frame);
  const View v = make_view(w, h);
  for (const auto& [i, j] : std::vector<std::pair<int, int>>{{0, 0}, {w - 1, h - 1}, {w / 2, h / 2}, {13, h - 3}, {w - 7, 5}}) {
    const PixelReport r = inspect_pixel(scene, w, h, i, j, 16);
    EXPECT_TRUE(same(r.final_colour, ref.at(i, j))) << "pixel " << i << "," << j;
    // The covering circles, found independently.
    std::vector<std::uint32_t> covering;
    const float px = v.pixel_x(i), py = v.pixel_y(j);
    for (std::size_t k = 0; k < scene.circles.size(); ++k) {
      const Circle& c = scene.circles[k];
      const float dx = px - c.x, dy = py - c.y;
      if (covers_point(dx, dy, c.radius * c.radius)) covering.push_back(static_cast<std::uint32_t>(k));
    }
    ASSERT_EQ(r.covering, covering.size()) << "pixel " << i << "," << j;
    ASSERT_EQ(r.steps.size(), covering.size());
    for (std::size_t s = 0; s < covering.size(); ++s) EXPECT_EQ(r.steps[s].index, covering[s]);
    if (!r.steps.empty()) EXPECT_TRUE(same(r.steps.back().after, r.final_colour));
    else EXPECT_TRUE(same(r.background, r.final_colour));
    EXPECT_GE(r.tile_circles, r.covering);
    EXPECT_LE(r.tile_circles, scene.circles.size());
    EXPECT_EQ(r.tile_x, i / 16);
    EXPECT_EQ(r.tile_y, j / 16);
  }
}

TEST(Inspector, WalkIsCpuRefOnFlatAndShadedScenes) {
  expect_walk_matches_cpu_ref("rand10k", 0, 99, 61);
  expect_walk_matches_cpu_ref("snow", 3, 64, 48);
  expect_walk_matches_cpu_ref("fireworks", 7, 50, 70);
}

TEST(Inspector, StepsAreCappedButTheColourIsNot) {
  const Scene scene = make_builtin_scene("biglittle");  // hundreds of circles over the middle
  const PixelReport all = inspect_pixel(scene, 64, 64, 32, 32, 16);
  const PixelReport few = inspect_pixel(scene, 64, 64, 32, 32, 16, 3);
  ASSERT_GT(all.covering, 3u);
  EXPECT_EQ(few.steps.size(), 3u);
  EXPECT_EQ(few.covering, all.covering);
  EXPECT_TRUE(same(few.final_colour, all.final_colour));
  // A flat circle's blend alpha is its own alpha.
  EXPECT_EQ(all.steps[0].alpha, all.steps[0].colour.w);
}

// The viewer's worker: the answer arrives through poll() (off the caller's thread), equals the
// direct walk, reuses the advanced scene for a later frame, and a request made while one is
// under way replaces any still waiting, so the newest pixel is the one answered last.
TEST(Inspector, WorkerAnswersTheNewestRequest) {
  auto scene = std::make_shared<const Scene>(make_builtin_scene("snow"));
  PixelInspector inspector;
  EXPECT_FALSE(inspector.poll().has_value());
  InspectRequest q;
  q.scene = scene;
  q.frame = 4;
  q.width = 80;
  q.height = 60;
  q.i = 40;
  q.j = 30;
  q.renderer = "test";
  inspector.request(q);
  q.i = 41;
  inspector.request(q);  // waits behind the first
  q.frame = 6;
  q.i = 42;
  inspector.request(q);  // replaces the one waiting
  std::optional<InspectResult> r = inspector.poll(true);
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(inspector.busy());
  ASSERT_TRUE(r->error.empty()) << r->error;
  EXPECT_EQ(r->request.i, 42);
  Scene direct = *scene;
  advance_scene(&direct, 6);
  const PixelReport want = inspect_pixel(direct, 80, 60, 42, 30, 16);
  EXPECT_TRUE(same(r->report.final_colour, want.final_colour));
  EXPECT_EQ(r->report.covering, want.covering);
  EXPECT_NE(describe_inspection(*r).find("pixel 42,30 of 80x60 at frame 6"), std::string::npos) << describe_inspection(*r);
  // Outside the frame: an error in the answer, not an exception out of the worker.
  q.i = 500;
  inspector.request(q);
  r = inspector.poll(true);
  ASSERT_TRUE(r.has_value());
  EXPECT_NE(r->error.find("outside"), std::string::npos);
}

TEST(Inspector, PixelOutsideTheFrameIsRefused) {
  const Scene scene = make_builtin_scene("rgb");
  EXPECT_THROW(inspect_pixel(scene, 10, 10, 10, 0, 16), std::out_of_range);
  EXPECT_THROW(inspect_pixel(scene, 10, 10, 0, -1, 16), std::out_of_range);
}

}  // namespace
}  // namespace circles
