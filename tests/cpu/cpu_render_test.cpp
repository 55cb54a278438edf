// The CPU renderers: exact pixel values from the definition, framing, and cpu-mt == cpu-ref.
#include <gtest/gtest.h>

#include <cstring>

#include "render/builtin_scenes.h"
#include "render/compare.h"
#include "render/raster.h"
#include "test_util.h"

namespace circles {
namespace {

using test::render_frame;

TEST(Raster, SquareFramingIsThePixelCentreMapping) {
  const View v = make_view(1024, 1024);
  EXPECT_EQ(v.pixel_x(0), .5f / 1024.f);
  EXPECT_EQ(v.pixel_y(1023), 1023.5f / 1024.f);
  const View w = make_view(200, 100);  // the unit square is the middle 100x100
  EXPECT_EQ(w.pixel_x(50), .5f / 100.f);
  EXPECT_EQ(w.pixel_y(0), .5f / 100.f);
  EXPECT_LT(w.pixel_x(0), 0.f);
}

TEST(Raster, CoverageIsDistSquaredAtMostRSquared) {
  Float4 dst{1, 1, 1, 1};
  EXPECT_TRUE(blend_circle(Shading::Flat, .75f, .5f, .5f, .5f, 0, .25f, 0, 0, 0, 1, &dst));  // on the edge
  EXPECT_EQ(dst.x, 0.f);
  EXPECT_FALSE(blend_circle(Shading::Flat, .7500001f, .5f, .5f, .5f, 0, .25f, 0, 0, 0, 1, &dst));
}

TEST(CpuRef, RgbCentrePixelBlendsInOrder) {
  // White, then red, green and blue at alpha .5: every step is exact in binary floating point.
  const Image img = render_frame("cpu-ref", make_builtin_scene("rgb"), 64, 64, 0);
  const Float4 p = img.at(32, 32);  // centre (.5078, .5078): inside all three circles
  EXPECT_EQ(p.x, .25f);
  EXPECT_EQ(p.y, .375f);
  EXPECT_EQ(p.z, .625f);
  EXPECT_EQ(p.w, 2.5f);
  const Float4 corner = img.at(0, 63);  // top-left: outside every circle
  EXPECT_EQ(corner.x, 1.f);
  EXPECT_EQ(corner.w, 1.f);
}

TEST(CpuRef, RowZeroIsTheBottom) {
  Scene s;
  Circle c;
  c.x = .5f, c.y = .1f, c.radius = .05f, c.r = 0, c.g = 0, c.b = 0, c.a = 1;
  s.circles = {c};
  const Image img = render_frame("cpu-ref", s, 100, 100, 0);
  EXPECT_EQ(img.at(50, 10).x, 0.f);   // near the bottom: covered
  EXPECT_EQ(img.at(50, 89).x, 1.f);   // near the top: background
}

TEST(CpuRef, CirclesStayRoundAtNonSquareSizes) {
  Scene s;
  Circle c;
  c.x = .5f, c.y = .5f, c.radius = .25f, c.a = 1;
  s.circles = {c};
  const Image img = render_frame("cpu-ref", s, 300, 100, 0);
  int wide = 0, tall = 0;
  for (int i = 0; i < 300; ++i) wide += img.at(i, 50).x == 0.f;
  for (int j = 0; j < 100; ++j) tall += img.at(150, j).x == 0.f;
  EXPECT_EQ(wide, 50);
  EXPECT_EQ(tall, 50);
}

TEST(CpuRef, SnowShadingAndGradient) {
  Scene s = make_builtin_scene("snow");
  s.circles.clear();
  const Image img = render_frame("cpu-ref", s, 10, 20, 0);
  EXPECT_FLOAT_EQ(img.at(0, 0).x, .4f + .45f * 20.f / 20.f);   // bottom row: brightest
  EXPECT_FLOAT_EQ(img.at(0, 19).x, .4f + .45f * 1.f / 20.f);   // top row
  Circle c;
  c.x = .5f, c.y = .5f, c.z = 0.f, c.radius = .5f, c.r = c.g = c.b = 1, c.a = .5f;
  s.circles = {c};
  s.background.kind = Background::Kind::Solid;
  s.background.top = s.background.bottom = Float4{0, 0, 0, 1};
  const Image one = render_frame("cpu-ref", s, 2, 2, 0);
  // Pixel (1,1) centre (.75,.75): nd = sqrt(.125)/.5; alpha = .5 * 1 * exp(-4 nd^2) = .5 e^-2.
  const float nd = std::sqrt(.125f) / .5f;
  const float a = .5f * std::exp(-4.f * nd * nd);
  EXPECT_NEAR(one.at(1, 1).w, 1.f + a, 1e-6f);
  EXPECT_NEAR(one.at(1, 1).z, a * 1.f, 1e-6f);  // blue stays 1 along the ramp
}

// cpu-mt must equal cpu-ref bit for bit: same circles, same order, same arithmetic per pixel.
TEST(CpuMt, EqualsCpuRefOnEveryBuiltinScene) {
  struct Size { int w, h; };
  for (const SceneInfo& info : scene_registry()) {
    const Scene s = info.make(kDefaultSeed);
    const bool huge = info.circle_count > 1000000;
    const std::vector<Size> sizes = huge ? std::vector<Size>{{67, 45}}
                                         : std::vector<Size>{{67, 45}, {257, 130}};
    const std::vector<std::int64_t> frames =
        s.animation == Animation::None ? std::vector<std::int64_t>{0} : std::vector<std::int64_t>{0, 1, 7};
    for (const Size& sz : sizes) {
      for (std::int64_t f : frames) {
        const Image a = render_frame("cpu-ref", s, sz.w, sz.h, f);
        const Image b = render_frame("cpu-mt", s, sz.w, sz.h, f);
        ASSERT_EQ(a.pixels.size(), b.pixels.size());
        EXPECT_EQ(std::memcmp(a.pixels.data(), b.pixels.data(), a.pixels.size() * sizeof(Float4)), 0)
            << info.name << " " << sz.w << "x" << sz.h << " frame " << f << ": "
            << compare_images(a, b, 0.f).summary();
      }
    }
  }
}

TEST(CpuMt, EveryTileSizeEqualsCpuRef) {
  const Scene s = make_builtin_scene("rand10k");
  const Image ref = render_frame("cpu-ref", s, 131, 77, 0);
  for (int tile : find_renderer("cpu-mt")->tile_sizes) {
    std::unique_ptr<Renderer> r = make_renderer("cpu-mt", {tile, 0});
    Image img;
    run_frames(*r, s, 131, 77, 0, 1, [&](std::int64_t) { r->read_image(&img); });
    EXPECT_EQ(std::memcmp(ref.pixels.data(), img.pixels.data(), ref.pixels.size() * sizeof(Float4)), 0)
        << "tile " << tile;
  }
}

TEST(Registry, SettingsAreCheckedAgainstTheEntry) {
  const RendererInfo& mt = *find_renderer("cpu-mt");
  EXPECT_EQ(resolve_settings(mt, {}).tile_size, mt.tile_sizes.front());
  EXPECT_THROW(resolve_settings(mt, {7, 0}), std::invalid_argument);
  EXPECT_THROW(resolve_settings(mt, {0, 64}), std::invalid_argument);
  EXPECT_THROW(resolve_settings(*find_renderer("cpu-ref"), {16, 0}), std::invalid_argument);
  const RendererInfo& scan = *find_renderer("cuda-tile-scan");
  EXPECT_EQ(resolve_settings(scan, {16, 0}).batch_size, 256);
  EXPECT_EQ(resolve_settings(scan, {32, 0}).batch_size, 1024);
  EXPECT_THROW(resolve_settings(scan, {16, 512}), std::invalid_argument);  // batch > 16^2
  EXPECT_EQ(describe_settings(scan, {32, 64}), "tile 32, batch 64, scan ballot");
  EXPECT_EQ(default_renderer_name(), unavailable_reason(scan).empty() ? "cuda-tile-binned" : "cpu-mt");
}

TEST(Compare, CountsPixelsOverTolerance) {
  Image a(4, 1), b(4, 1);
  b.at(2, 0).y = .5f;
  const Comparison c = compare_images(a, b, .1f);
  EXPECT_EQ(c.over_tolerance, 1);
  EXPECT_EQ(c.max_abs[1], .5f);
  EXPECT_FALSE(c.passed());
  EXPECT_TRUE(compare_images(a, a, 0.f).passed());
  EXPECT_TRUE(std::isinf(compare_images(a, a, 0.f).psnr_db));
  EXPECT_TRUE(compare_images(a, Image(3, 1), 1.f).size_mismatch);
}

}  // namespace
}  // namespace circles
