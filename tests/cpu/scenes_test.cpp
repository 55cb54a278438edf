// Built-in scene generators and animation steps.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "render/animate.h"
#include "render/builtin_scenes.h"
#include "render/cpu_renderers.h"
#include "render/scene_io.h"
#include "test_util.h"

namespace circles {
namespace {

bool same_circles(const Scene& a, const Scene& b) {
  return a.circles.size() == b.circles.size() &&
         std::memcmp(a.circles.data(), b.circles.data(), a.circles.size() * sizeof(Circle)) == 0;
}

TEST(Pcg32, KnownSequenceIsPortable) {
  // PCG32 reference output (pcg32-demo, seed 42, stream 54).
  Pcg32 rng(42, 54);
  const std::uint32_t expected[6] = {0xa15c02b7, 0x7b47f409, 0xba1d3330,
                                     0x83d2f293, 0xbfa4784b, 0xcbed606e};
  for (std::uint32_t e : expected) EXPECT_EQ(rng.next(), e);
}

TEST(BuiltinScenes, SmallScenesSameSeedSameScene) {
  for (const SceneInfo& info : scene_registry()) {
    if (info.circle_count > 200000) continue;  // the large ones: see the next test
    const Scene a = info.make(7), b = info.make(7);
    EXPECT_TRUE(same_circles(a, b)) << info.name;
    EXPECT_EQ(a.circles.size(), info.circle_count) << info.name;
    EXPECT_EQ(a.name, info.name);
  }
}

TEST(BuiltinScenes, LargeScenesSameSeedSameScene) {
  for (const char* name : {"rand1M", "micro2M"}) {
    const Scene a = make_builtin_scene(name, 3), b = make_builtin_scene(name, 3);
    EXPECT_TRUE(same_circles(a, b)) << name;
    EXPECT_EQ(a.circles.size(), find_scene(name)->circle_count);
  }
}

TEST(BuiltinScenes, DifferentSeedDifferentScene) {
  EXPECT_FALSE(same_circles(make_builtin_scene("rand10k", 1), make_builtin_scene("rand10k", 2)));
  EXPECT_FALSE(same_circles(make_builtin_scene("snow", 1), make_builtin_scene("snow", 2)));
}

TEST(BuiltinScenes, CirclesAreValidAndSortedFarToNear) {
  for (const SceneInfo& info : scene_registry()) {
    if (info.circle_count > 200000) continue;
    const Scene s = info.make(kDefaultSeed);
    for (const Circle& c : s.circles) {
      ASSERT_GT(c.radius, 0.f) << info.name;
      for (float v : {c.r, c.g, c.b, c.a}) {
        ASSERT_GE(v, 0.f) << info.name;
        ASSERT_LE(v, 1.f) << info.name;
      }
    }
  }
  const Scene r = make_builtin_scene("rand10k");
  for (std::size_t i = 1; i < r.circles.size(); ++i) ASSERT_GE(r.circles[i - 1].z, r.circles[i].z);
}

TEST(BuiltinScenes, SpecifiedGeometry) {
  const Scene rgb = make_builtin_scene("rgb");
  ASSERT_EQ(rgb.circles.size(), 3u);
  EXPECT_FLOAT_EQ(rgb.circles[0].x, .4f);
  EXPECT_FLOAT_EQ(rgb.circles[0].radius, .3f);
  EXPECT_EQ(rgb.circles[0].r, 1.f);
  EXPECT_EQ(rgb.circles[2].b, 1.f);
  const Scene rgby = make_builtin_scene("rgby");
  ASSERT_EQ(rgby.circles.size(), 4u);
  EXPECT_FLOAT_EQ(rgby.circles[3].radius, .1f);  // yellow, drawn last
  EXPECT_EQ(rgby.circles[3].r, 1.f);
  EXPECT_EQ(rgby.circles[3].g, 1.f);
  const Scene big = make_builtin_scene("biglittle");
  EXPECT_EQ(big.circles[0].radius, .25f);
  EXPECT_EQ(big.circles[9999].radius, .05f);
  const Scene little = make_builtin_scene("littlebig");
  EXPECT_EQ(little.circles[0].radius, .05f);
  EXPECT_EQ(little.circles[9999].radius, .25f);
  const Scene p = make_builtin_scene("pattern");
  EXPECT_EQ(p.circles.size(), 16u * 16 + 31 * 31);
  const Scene snow = make_builtin_scene("snow");
  EXPECT_EQ(snow.shading, Shading::Snow);
  EXPECT_EQ(snow.background.kind, Background::Kind::Gradient);
  for (const Circle& c : make_builtin_scene("micro2M").circles) ASSERT_EQ(c.radius, .001f);
}

TEST(Animation, HypnosisGrowsAndWraps) {
  Motion m{.5f, .5f, 0.f, .49f, 0.f, 0.f};
  step_hypnosis_ring(&m);
  EXPECT_FLOAT_EQ(m.radius, .5f);
  step_hypnosis_ring(&m);
  EXPECT_EQ(m.radius, .02f);
}

TEST(Animation, BouncingBallFallsBouncesAndLosesEnergy) {
  Motion m{.5f, .5f, 0.f, .05f, 0.f, 0.f};
  float peak_after_bounce = 0.f;
  bool bounced = false;
  for (int f = 0; f < 600; ++f) {
    const float vy = m.vy;
    step_bouncing_ball(&m);
    if (vy < 0.f && m.vy > 0.f) bounced = true;
    if (bounced) peak_after_bounce = std::max(peak_after_bounce, m.y);
    ASSERT_GT(m.y, -0.1f);
  }
  EXPECT_TRUE(bounced);
  EXPECT_LT(peak_after_bounce, .5f);  // never climbs back to where it fell from
}

TEST(Animation, FireworkSparkRespawnsOnRim) {
  Motion m{.5f + .249f, .5f, 0.f, .01f, kFireworkSpeed, 0.f};
  step_firework_spark(&m, .5f, .5f, .04f);  // .249 + .2/60 > .25: respawn at the rim
  EXPECT_NEAR(m.x, .54f, 1e-6f);
  EXPECT_NEAR(m.y, .5f, 1e-6f);
}

TEST(Animation, SnowIsDeterministicAndFlakesStayNearTheScreen) {
  Scene a = make_builtin_scene("snow"), b = make_builtin_scene("snow");
  advance_scene(&a, 120);
  advance_scene(&b, 120);
  EXPECT_TRUE(same_circles(a, b));
  EXPECT_EQ(a.frame, 120);
  EXPECT_FALSE(same_circles(a, make_builtin_scene("snow")));
  for (const Circle& c : a.circles) {
    ASSERT_GT(c.y + c.radius, -0.1f);
    ASSERT_LT(c.y, 1.5f);
  }
}

TEST(Animation, SavedFrameContinuesLikeTheBuiltin) {
  // Saving fireworks at frame 10 then advancing 5 equals advancing the built-in 15 frames.
  Scene s = make_builtin_scene("fireworks");
  advance_scene(&s, 10);
  Scene loaded = parse_scene(format_scene(s), "saved.scene");
  EXPECT_EQ(loaded.frame, 10);
  advance_scene(&loaded, 5);
  Scene direct = make_builtin_scene("fireworks");
  advance_scene(&direct, 15);
  EXPECT_TRUE(same_circles(loaded, direct));
}

// Every example scene file in scenes/ loads, and renders the same on cpu-ref and cpu-mt.
TEST(ExampleScenes, LoadAndRender) {
  const std::string dir = test::source_dir() + "/scenes";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".scene") continue;
    ++files;
    const Scene s = load_scene_file(entry.path().string());
    EXPECT_FALSE(s.circles.empty()) << entry.path();
    const Image a = test::render_frame("cpu-ref", s, 120, 90, s.frame + 2);
    const Image b = test::render_frame("cpu-mt", s, 120, 90, s.frame + 2);
    EXPECT_EQ(std::memcmp(a.pixels.data(), b.pixels.data(), a.pixels.size() * sizeof(Float4)), 0)
        << entry.path();
  }
  EXPECT_GE(files, 3);
}

TEST(BuiltinScenes, UnknownNameListsTheBuiltins) {
  try {
    make_builtin_scene("nope");
    FAIL();
  } catch (const std::invalid_argument& e) {  // a command-line mistake (exit 2)
    EXPECT_NE(std::string(e.what()).find("rand10k"), std::string::npos);
  }
}

}  // namespace
}  // namespace circles
