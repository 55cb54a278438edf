// The drawing modes' rules (render/modes.h) and the CPU side of the property test: random valid
// scenes from the whole range the format allows, through every CPU renderer, each frame the
// exact mode's promise (cpu-ref's floats to the bit). tests/gpu/property_test.cpp runs the same
// scenes through the CUDA renderers on the GPU machine.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "app/common/registry.h"
#include "random_scene.h"
#include "render/builtin_scenes.h"
#include "render/compare.h"
#include "render/modes.h"
#include "render/raster.h"
#include "render/scene_io.h"
#include "test_util.h"

namespace circles {
namespace {

// Which scenes the eight-pixel walk may blend in half precision: flat, colours and background in
// [0, 1], alphas multiples of 1/16 from 1/2 to 1; else the first reason.
TEST(Modes, HalfColourOnlyWhereItsBoundHolds) {
  EXPECT_EQ(half_colour_refusal(make_builtin_scene("rand1M")), "");
  Scene s = make_builtin_scene("rand10k");
  EXPECT_EQ(half_colour_refusal(s), "");
  for (float a : {0.5f, 0.5625f, 0.75f, 1.f}) {
    s.circles[7].a = a;
    EXPECT_EQ(half_colour_refusal(s), "") << a;
  }
  for (float a : {0.4375f, 0.25f, 0.3f, 0.f, std::nextafter(0.5f, 1.f), std::nextafter(1.f, 2.f), NAN}) {
    s.circles[7].a = a;
    EXPECT_NE(half_colour_refusal(s).find("circle 7's alpha"), std::string::npos) << a << ": " << half_colour_refusal(s);
  }
  EXPECT_NE(half_colour_refusal(s).find("not a multiple of 1/16 from 1/2 to 1"), std::string::npos);
  s.circles[7].a = 0.5f;
  s.circles[9].g = 1.0001f;
  EXPECT_EQ(half_colour_refusal(s), "circle 9's colour is outside [0, 1]");
  s.circles[9].g = -0.f;
  EXPECT_EQ(half_colour_refusal(s), "");
  s.circles[9].b = NAN;
  EXPECT_EQ(half_colour_refusal(s), "circle 9's colour is outside [0, 1]");
  s.circles[9].b = 0.5f;
  s.background.kind = Background::Kind::Gradient;
  s.background.bottom = Float4{0.f, 2.f, 0.f, 1.f};
  EXPECT_EQ(half_colour_refusal(s), "the background's colour is outside [0, 1]");
  s.background.bottom = Float4{0.f, 1.f, 0.f, 1.f};
  EXPECT_EQ(half_colour_refusal(s), "");
  EXPECT_EQ(half_colour_refusal(make_builtin_scene("snow")), "snow shading");
}

// Early exit only where its bound holds: every colour (and the background) in [0, 1], and at
// most kEarlyExitMaxFaint circles with an alpha between 0 and kEarlyExitMinAlpha.
TEST(Modes, EarlyExitOnlyWhereItsBoundHolds) {
  for (const char* name : {"rand10k", "rand1M", "biglittle", "snow", "fireworks", "pattern"})
    EXPECT_EQ(early_exit_refusal(make_builtin_scene(name)), "") << name;
  Scene s = make_builtin_scene("rand10k");
  s.circles[3].r = 1.5f;
  EXPECT_EQ(early_exit_refusal(s), "circle 3's colour is above 1");
  s.circles[3].r = 1.f;
  EXPECT_EQ(early_exit_refusal(s), "");
  // Alphas of 0 and 1 and at least 1/256: any number of them.
  for (std::size_t k = 0; k < s.circles.size(); ++k) s.circles[k].a = k % 3 == 0 ? 0.f : k % 3 == 1 ? 1.f : 1.f / 256;
  EXPECT_EQ(early_exit_refusal(s), "");
  // Faint ones: up to kEarlyExitMaxFaint.
  for (std::size_t k = 0; k < kEarlyExitMaxFaint; ++k) s.circles[k].a = 1e-4f;
  EXPECT_EQ(early_exit_refusal(s), "");
  s.circles[kEarlyExitMaxFaint].a = std::nextafter(1.f / 256, 0.f);
  EXPECT_NE(early_exit_refusal(s).find("4097 circles (the first: 0) blend with an alpha between 0 and 1/256"),
            std::string::npos)
      << early_exit_refusal(s);
  // Snow: the ramp's colours, whatever the circles say; the alpha at the rim from depth and alpha.
  Scene snow = make_builtin_scene("snow");
  for (Circle& c : snow.circles) c.r = 1e6f;
  EXPECT_EQ(early_exit_refusal(snow), "");
  for (Circle& c : snow.circles) c.a = 0.1f;  // 0.1 * 0.6 .. 1 * e^-4.1 under 1/256
  EXPECT_NE(early_exit_refusal(snow).find("blend with an alpha between 0 and 1/256"), std::string::npos);
  Scene bg = make_builtin_scene("rgb");
  bg.background.top.y = 1.5f;
  EXPECT_EQ(early_exit_refusal(bg), "the background is outside [0, 1]");
}

// Each mode's check fails on what breaks its promise, and only on that.
TEST(Modes, PromisesAreCheckedToTheBit) {
  Image ref(3, 2);
  for (std::size_t k = 0; k < ref.pixels.size(); ++k)
    ref.pixels[k] = Float4{0.25f * static_cast<float>(k % 4), 0.5f, 0.75f, 1.f + static_cast<float>(k)};
  EXPECT_EQ(promise_broken(Mode::Exact, ref, ref), "");
  Image t = ref;
  t.pixels[4].y = std::nextafter(0.5f, 1.f);  // an ulp: the same byte, not the same float
  EXPECT_NE(promise_broken(Mode::Exact, ref, t).find("exact: pixel (1, 1) G"), std::string::npos)
      << promise_broken(Mode::Exact, ref, t);
  EXPECT_EQ(promise_broken(Mode::EarlyExit, ref, t), "");
  EXPECT_EQ(promise_broken(Mode::HalfColour, ref, t), "");
  t.pixels[4].y = 0.5f + 2.5f / 255.f;  // two 8-bit steps (0.5 -> 128, this -> 130)
  EXPECT_NE(promise_broken(Mode::EarlyExit, ref, t).find("more than one 8-bit step"), std::string::npos);
  EXPECT_NE(promise_broken(Mode::HalfColour, ref, t).find("more than 2^-10"), std::string::npos);
  t.pixels[4].y = 0.5f + 0.9f / 1024.f;
  EXPECT_EQ(promise_broken(Mode::HalfColour, ref, t), "");
  t.pixels[4].w = ref.pixels[4].w + 1e-6f;  // alpha: relative bound
  EXPECT_EQ(promise_broken(Mode::HalfColour, ref, t), "");
  EXPECT_NE(promise_broken(Mode::Exact, ref, Image(2, 3)).find("differ in size"), std::string::npos);
  // Above 1: the bytes agree (255) but the floats do not; exact mode sees it.
  Image hi = ref, hi2 = ref;
  hi.pixels[0].x = 5.f;
  hi2.pixels[0].x = 4.f;
  EXPECT_NE(promise_broken(Mode::Exact, hi, hi2), "");
  EXPECT_EQ(promise_broken(Mode::EarlyExit, hi, hi2), "");
}

// exp_portable against the true e^x: within 2 ulp over snow's range and far beyond, 0 below,
// infinity above (the same bits on the GPU: it is only correctly rounded arithmetic).
TEST(Modes, PortableExpIsWithinTwoUlp) {
  float worst = 0.f;
  for (int k = -870000; k <= 880000; k += 7) {
    const float x = static_cast<float>(k) * 1e-4f;
    const double want = std::exp(static_cast<double>(x));
    const float got = exp_portable(x);
    const double ulp = std::nextafter(static_cast<float>(want), INFINITY) - static_cast<float>(want);
    worst = std::max(worst, static_cast<float>(std::fabs(got - want) / ulp));
  }
  EXPECT_LE(worst, 2.f);
  EXPECT_EQ(exp_portable(0.f), 1.f);
  EXPECT_EQ(exp_portable(-100.f), 0.f);
  EXPECT_EQ(exp_portable(100.f), INFINITY);
  EXPECT_TRUE(std::isnan(exp_portable(NAN)));
}

// cpu-ref's blend is one rounding a channel: fmaf(1 - a, under, a * c).
TEST(Modes, BlendIsOneFmaAChannel) {
  Float4 dst{0.3f, 0.7f, 0.11f, 1.f};
  const float r = 0.9f, g = 0.123f, b = 3.5f, a = 0.37f;
  Float4 want{std::fmaf(1.f - a, dst.x, a * r), std::fmaf(1.f - a, dst.y, a * g), std::fmaf(1.f - a, dst.z, a * b),
              dst.w + a};
  ASSERT_TRUE(blend_circle(Shading::Flat, 0.5f, 0.5f, 0.5f, 0.5f, 0.f, 0.1f, r, g, b, a, &dst));
  EXPECT_EQ(std::memcmp(&dst, &want, sizeof dst), 0);
}

// The property test's CPU half: random valid scenes (tests/random_scene.h; every one round-trips
// through the scene format, so it is a scene a file could hold) through every CPU renderer, each
// cpu-ref's floats to the bit. CIRCLES_PROPERTY_SCENES sets the count (default 150 here),
// CIRCLES_PROPERTY_SEED replays one seed; a failing scene is saved for `circles check`.
TEST(Modes, RandomValidScenesKeepEveryCpuRenderersPromise) {
  const char* count_env = std::getenv("CIRCLES_PROPERTY_SCENES");
  const char* seed_env = std::getenv("CIRCLES_PROPERTY_SEED");
  const int count = seed_env ? 1 : count_env ? std::atoi(count_env) : 150;
  const std::uint64_t first = seed_env ? std::strtoull(seed_env, nullptr, 10) : 1;
  int failed = 0;
  for (int k = 0; k < count; ++k) {
    const std::uint64_t seed = first + static_cast<std::uint64_t>(k);
    const test::RandomScene rs = test::random_scene(seed, 4e6);
    const Scene scene = parse_scene(format_scene(rs.scene), rs.scene.name);  // valid, as a file
    ASSERT_EQ(scene.circles.size(), rs.scene.circles.size()) << "seed " << seed;
    const Image ref = test::render_frame("cpu-ref", scene, rs.width, rs.height, 0);
    for (const RendererInfo& info : renderer_registry()) {
      if (info.needs_gpu || info.name == "cpu-ref") continue;
      const Image img = test::render_frame(info.name, scene, rs.width, rs.height, 0);
      const std::string broken = promise_broken(Mode::Exact, ref, img);
      if (!broken.empty()) {
        const std::string path = ::testing::TempDir() + "property-" + std::to_string(seed) + ".scene";
        save_scene_file(scene, path);
        ADD_FAILURE() << "seed " << seed << " (" << rs.about << "), " << info.name << ": " << broken
                      << "; replay: CIRCLES_PROPERTY_SEED=" << seed << ", or circles check " << path << " -r "
                      << info.name << " -s " << rs.width << "x" << rs.height << " --exact-bytes";
        ++failed;
      }
    }
    std::printf("[ property ] seed %llu: %s\n", static_cast<unsigned long long>(seed), rs.about.c_str());
  }
  EXPECT_EQ(failed, 0);
}

}  // namespace
}  // namespace circles
