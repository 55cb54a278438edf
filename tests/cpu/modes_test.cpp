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
#include <stdexcept>
#include <string>
#include <vector>

#include "app/common/registry.h"
#include "gpu/gpu_test_util.h"
#include "random_scene.h"
#include "render/builtin_scenes.h"
#include "render/compare.h"
#include "render/modes.h"
#include "render/raster.h"
#include "render/scene_io.h"
#include "scoped_env.h"
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
    s.circles.edit()[7].a = a;
    EXPECT_EQ(half_colour_refusal(s), "") << a;
  }
  for (float a : {0.4375f, 0.25f, 0.3f, 0.f, std::nextafter(0.5f, 1.f), std::nextafter(1.f, 2.f), NAN}) {
    s.circles.edit()[7].a = a;
    EXPECT_NE(half_colour_refusal(s).find("circle 7's alpha"), std::string::npos) << a << ": " << half_colour_refusal(s);
  }
  EXPECT_NE(half_colour_refusal(s).find("not a multiple of 1/16 from 1/2 to 1"), std::string::npos);
  s.circles.edit()[7].a = 0.5f;
  s.circles.edit()[9].g = 1.0001f;
  EXPECT_EQ(half_colour_refusal(s), "circle 9's colour is outside [0, 1]");
  s.circles.edit()[9].g = -0.f;
  EXPECT_EQ(half_colour_refusal(s), "");
  s.circles.edit()[9].b = NAN;
  EXPECT_EQ(half_colour_refusal(s), "circle 9's colour is outside [0, 1]");
  s.circles.edit()[9].b = 0.5f;
  s.background.kind = Background::Kind::Gradient;
  s.background.bottom = Float4{0.f, 2.f, 0.f, 1.f};
  EXPECT_EQ(half_colour_refusal(s), "the background's colour is outside [0, 1]");
  s.background.bottom = Float4{0.f, 1.f, 0.f, 1.f};
  EXPECT_EQ(half_colour_refusal(s), "");
  // The background's alpha starts every pixel's alpha sum: a sixteenth on every row (a gradient's
  // two ends equal), else the batch sums round differently from cpu-ref's.
  const std::string bg_alpha = "the background's alpha is not one multiple of 1/16 from 0 to 1 on every row";
  s.background.bottom.w = 0.5f;
  EXPECT_EQ(half_colour_refusal(s), bg_alpha);
  s.background.top.w = s.background.bottom.w = 0.3f;
  EXPECT_EQ(half_colour_refusal(s), bg_alpha);
  s.background.top.w = s.background.bottom.w = 0.f;
  EXPECT_EQ(half_colour_refusal(s), "");
  s.background.kind = Background::Kind::Solid;
  s.background.top.w = 0.0625f;
  EXPECT_EQ(half_colour_refusal(s), "");
  s.background.top.w = std::nextafter(1.f, 0.f);
  EXPECT_EQ(half_colour_refusal(s), bg_alpha);
  EXPECT_EQ(half_colour_refusal(make_builtin_scene("snow")), "snow shading");
}

// Early exit only where its bound holds: every colour (and the background) in [0, 1], and at
// most kEarlyExitMaxFaint circles with an alpha between 0 and kEarlyExitMinAlpha.
TEST(Modes, EarlyExitOnlyWhereItsBoundHolds) {
  for (const char* name : {"rand10k", "rand1M", "biglittle", "snow", "fireworks", "pattern"})
    EXPECT_EQ(early_exit_refusal(make_builtin_scene(name)), "") << name;
  Scene s = make_builtin_scene("rand10k");
  s.circles.edit()[3].r = 1.5f;
  EXPECT_EQ(early_exit_refusal(s), "circle 3's colour is above 1");
  s.circles.edit()[3].r = 1.f;
  EXPECT_EQ(early_exit_refusal(s), "");
  // Alphas of 0 and 1 and at least 1/256: any number of them.
  for (std::size_t k = 0; k < s.circles.size(); ++k) s.circles.edit()[k].a = k % 3 == 0 ? 0.f : k % 3 == 1 ? 1.f : 1.f / 256;
  EXPECT_EQ(early_exit_refusal(s), "");
  // Faint ones: up to kEarlyExitMaxFaint.
  for (std::size_t k = 0; k < kEarlyExitMaxFaint; ++k) s.circles.edit()[k].a = 1e-4f;
  EXPECT_EQ(early_exit_refusal(s), "");
  s.circles.edit()[kEarlyExitMaxFaint].a = std::nextafter(1.f / 256, 0.f);
  EXPECT_NE(early_exit_refusal(s).find("4097 circles (the first: 0) blend with an alpha between 0 and 1/256"),
            std::string::npos)
      << early_exit_refusal(s);
  // Snow: the ramp's colours, whatever the circles say; the alpha at the rim from depth and alpha.
  Scene snow = make_builtin_scene("snow");
  for (Circle& c : snow.circles.edit()) c.r = 1e6f;
  EXPECT_EQ(early_exit_refusal(snow), "");
  for (Circle& c : snow.circles.edit()) c.a = 0.1f;  // 0.1 * 0.6 .. 1 * e^-4.1 under 1/256
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
  // Half colour's alpha is cpu-ref's bits (up to 2^20): an ulp off breaks it; past 2^20 it is
  // not bound.
  t.pixels[4].w = std::nextafter(ref.pixels[4].w, 10.f);
  EXPECT_NE(promise_broken(Mode::HalfColour, ref, t).find("(alpha) differs from cpu-ref's float"), std::string::npos)
      << promise_broken(Mode::HalfColour, ref, t);
  Image deep = ref, deep2 = ref;
  deep.pixels[4].w = 1048576.f;
  deep2.pixels[4].w = std::nextafter(1048576.f, 0.f);
  EXPECT_NE(promise_broken(Mode::HalfColour, deep, deep2), "");
  deep.pixels[4].w = std::nextafter(1048576.f, 2e6f);
  deep2.pixels[4].w = 1048580.f;
  EXPECT_EQ(promise_broken(Mode::HalfColour, deep, deep2), "");
  t.pixels[4].w = ref.pixels[4].w;
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

// The GPU tests' check of a frame (tests/gpu/gpu_test_util.h) decides the modes a frame may take
// from the scene and the options, not from the renderer: a frame that reports early exit or half
// colour where they were not asked, or where the scene refuses them, fails even when its picture
// is within that mode's bound; a frame that reports exact is held to the bit.
TEST(Modes, TheModeCheckFailsAFrameThatMisreports) {
  const Scene& scene = make_builtin_scene("rand10k");
  const Image ref = test::render_frame("cpu-ref", scene, 64, 48, 0);
  Image off_by_an_ulp = ref;
  off_by_an_ulp.pixels[100].y = std::nextafter(off_by_an_ulp.pixels[100].y, 2.f);
  RendererSettings plain, early, half;
  early.early_exit = true;
  half.half_colour = true;
  const AllowedModes none = allowed_modes("cuda-tile-binned", scene, plain);
  // Not asked: only exact; an ulp off fails exact, and reporting a fast mode fails whatever the picture.
  EXPECT_EQ(frame_broken(none, Mode::Exact, ref, ref), "");
  EXPECT_NE(frame_broken(none, Mode::Exact, ref, off_by_an_ulp).find("exact: pixel"), std::string::npos);
  EXPECT_NE(frame_broken(none, Mode::EarlyExit, ref, ref).find("which the scene and options do not allow"),
            std::string::npos);
  EXPECT_NE(frame_broken(none, Mode::HalfColour, ref, off_by_an_ulp).find("do not allow (not asked for)"),
            std::string::npos);
  // Asked and allowed: early exit holds the frame to one 8-bit step, exact still to the bit.
  const AllowedModes may_exit = allowed_modes("cuda-tile-binned", scene, early);
  EXPECT_TRUE(may_exit.early_exit);
  EXPECT_EQ(frame_broken(may_exit, Mode::EarlyExit, ref, off_by_an_ulp), "");
  EXPECT_NE(frame_broken(may_exit, Mode::Exact, ref, off_by_an_ulp), "");
  // Asked where the scene refuses it (a colour above 1): early exit is not allowed; nor is half
  // colour on snow; nor a mode the renderer's registry entry does not take.
  Scene bright = scene;
  bright.circles.edit()[5].r = 2.f;
  const AllowedModes refused = allowed_modes("cuda-tile-binned", bright, early);
  EXPECT_FALSE(refused.early_exit);
  EXPECT_NE(frame_broken(refused, Mode::EarlyExit, ref, ref).find("early exit refused: circle 5's colour is above 1"),
            std::string::npos)
      << frame_broken(refused, Mode::EarlyExit, ref, ref);
  EXPECT_FALSE(allowed_modes("cuda-tile-binned", make_builtin_scene("snow"), half).half_colour);
  EXPECT_TRUE(allowed_modes("cuda-tile-binned", scene, half).half_colour);
  EXPECT_FALSE(allowed_modes("cuda-naive", scene, half).half_colour);
}

// A property test told to run a count that is not a positive integer refuses instead of passing
// having run nothing; a seed replays that scene alone.
TEST(Modes, PropertyCountsThatAreNotPositiveAreRefused) {
  test::ScopedEnv seed("CIRCLES_PROPERTY_SEED");
  test::ScopedEnv count("CIRCLES_PROPERTY_SCENES");
  for (const char* bad : {"0", "-3", "x", "", "5x", "1e3", "99999999999999999999"}) {
    count.set(bad);
    EXPECT_THROW(test::property_seeds(150), std::invalid_argument) << "'" << bad << "'";
  }
  count.set("7");
  const std::vector<std::uint64_t> seven = test::property_seeds(150);
  ASSERT_EQ(seven.size(), 7u);
  EXPECT_EQ(seven[6], seven[0] + 6);
  // Fresh seeds each run (two draws of 64 bits agreeing: 2^-64).
  EXPECT_NE(test::property_seeds(150)[0], seven[0]);
  seed.set("12345");
  EXPECT_EQ(test::property_seeds(150), std::vector<std::uint64_t>{12345});
  seed.set("-1");
  EXPECT_THROW(test::property_seeds(150), std::invalid_argument);
}

// The random scenes reach the format's smallest radius and animate at later frames.
TEST(Modes, RandomScenesReachTheSmallestRadiusAndLaterFrames) {
  bool tiniest = false, animated = false, later_start = false;
  for (std::uint64_t seed = 1; seed <= 400 && !(tiniest && animated && later_start); ++seed) {
    const test::RandomScene rs = test::random_scene(seed, 1e5);
    for (const Circle& c : rs.scene.circles) tiniest = tiniest || c.radius == std::numeric_limits<float>::denorm_min();
    if (rs.scene.animation != Animation::None) {
      animated = true;
      EXPECT_GT(rs.frame, rs.scene.frame) << seed;
      EXPECT_TRUE(rs.scene.has_velocity) << seed;
      later_start = later_start || rs.scene.frame > 0;
    } else {
      EXPECT_EQ(rs.frame, rs.scene.frame) << seed;
    }
  }
  EXPECT_TRUE(tiniest);
  EXPECT_TRUE(animated);
  EXPECT_TRUE(later_start);
}

// The property test's CPU half: random valid scenes (tests/random_scene.h; every one round-trips
// through the scene format, so it is a scene a file could hold) through every CPU renderer, each
// cpu-ref's floats to the bit, still and animated scenes at the frame each names. Each run draws
// fresh seeds (printed); CIRCLES_PROPERTY_SCENES sets the count (a positive integer, default 150
// here), CIRCLES_PROPERTY_SEED replays one seed; a failing scene is saved for `circles check`.
TEST(Modes, RandomValidScenesKeepEveryCpuRenderersPromise) {
  const std::vector<std::uint64_t> seeds = test::property_seeds(150);
  int failed = 0;
  for (const std::uint64_t seed : seeds) {
    const test::RandomScene rs = test::random_scene(seed, 4e6);
    const Scene scene = parse_scene(format_scene(rs.scene), rs.scene.name);  // valid, as a file
    ASSERT_EQ(scene.circles.size(), rs.scene.circles.size()) << "seed " << seed;
    const Image ref = test::render_frame("cpu-ref", scene, rs.width, rs.height, rs.frame);
    for (const RendererInfo& info : renderer_registry()) {
      if (info.needs_gpu || info.name == "cpu-ref") continue;
      const Image img = test::render_frame(info.name, scene, rs.width, rs.height, rs.frame);
      const std::string broken = promise_broken(Mode::Exact, ref, img);
      if (!broken.empty()) {
        const std::string path = ::testing::TempDir() + "property-" + std::to_string(seed) + ".scene";
        save_scene_file(scene, path);
        ADD_FAILURE() << "seed " << seed << " (" << rs.about << "), " << info.name << ": " << broken
                      << "; replay: CIRCLES_PROPERTY_SEED=" << seed << ", or circles check " << path << " -r "
                      << info.name << " -s " << rs.width << "x" << rs.height << " --frames " << rs.frame << ":"
                      << rs.frame + 1 << " --exact-bytes";
        ++failed;
      }
    }
    std::printf("[ property ] seed %llu: %s\n", static_cast<unsigned long long>(seed), rs.about.c_str());
  }
  EXPECT_EQ(failed, 0);
}

}  // namespace
}  // namespace circles
