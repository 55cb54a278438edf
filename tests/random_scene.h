// Random valid scenes drawn from the whole range docs/FORMAT.md allows, for the property tests
// (tests/cpu/modes_test.cpp on the CPU, tests/gpu/property_test.cpp on the GPU): colours from 0 to
// 1e6, alphas of 0, 1, tiny and anything between, radii from the smallest positive float (a
// subnormal, 1.4e-45) to 1e6, centres inside, near and far outside the frame, one to a million and
// more circles, solid or gradient backgrounds, flat or snow shading, odd sizes, and one scene in
// three animated (every animation, with velocities, from a later start frame) and drawn some
// frames on. Each scene comes from its seed alone, so a failure is replayed from the seed the
// test prints; each run draws fresh seeds (property_seeds).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "render/builtin_scenes.h"
#include "render/cpu_renderers.h"
#include "render/scene.h"
#include "test_util.h"

namespace circles::test {

struct RandomScene {
  Scene scene;
  int width = 0, height = 0;
  std::int64_t frame = 0;  // the frame to draw (scene.frame, or some frames on where animated)
  std::string about;       // what was drawn: the profile, in words
};

// The seeds a property test runs: CIRCLES_PROPERTY_SEED=S replays scene S alone; otherwise
// CIRCLES_PROPERTY_SCENES (a positive integer, default `fallback`) scenes from a fresh seed drawn
// for this run, printed so that the run can be told apart and any of its scenes replayed. A
// count or seed that is not a positive integer (or an unsigned one) throws.
inline std::vector<std::uint64_t> property_seeds(long fallback) {
  std::uint64_t one = 0;
  if (env_u64("CIRCLES_PROPERTY_SEED", &one)) {
    std::printf("[ property ] CIRCLES_PROPERTY_SEED=%llu: that scene alone\n", static_cast<unsigned long long>(one));
    return {one};
  }
  const long count = positive_env_count("CIRCLES_PROPERTY_SCENES", fallback);
  std::random_device device;
  const std::uint64_t base = (static_cast<std::uint64_t>(device()) << 32) ^ device();
  std::printf("[ property ] %ld scenes from seed %llu (a fresh one each run; CIRCLES_PROPERTY_SEED=S replays scene S)\n",
              count, static_cast<unsigned long long>(base));
  std::vector<std::uint64_t> seeds;
  for (long k = 0; k < count; ++k) seeds.push_back(base + static_cast<std::uint64_t>(k));
  return seeds;
}

// `max_blends`: a bound on cpu-ref's work (covered pixels summed over the circles), so that the
// scene renders in about a second on one core: circles past it are dropped.
inline RandomScene random_scene(std::uint64_t seed, double max_blends = 2e7) {
  // The seed mixed first (splitmix64's finaliser): nearby seeds would otherwise start the
  // generator in nearby states and draw alike first values.
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  Pcg32 rng(z ^ (z >> 31), 4040);
  auto u = [&rng] { return static_cast<double>(rng.uniform()); };
  auto pick = [&rng](int n) { return static_cast<int>(rng.next() % static_cast<std::uint32_t>(n)); };
  auto log_uniform = [&u](double lo, double hi) { return lo * std::pow(hi / lo, u()); };
  RandomScene out;
  Scene& s = out.scene;
  s.name = "random-" + std::to_string(seed);
  s.seed = seed;
  // One scene in eight is deep: hundreds of thousands of circles of a few pixels over a larger
  // frame, so that cuda-tile-binned bins them and takes its eight-pixel walk (and, where the
  // colours and alphas allow it, half colour and early exit).
  const bool deep = pick(8) == 0;
  if (deep) max_blends *= 8;
  // Sizes: mostly small and odd, sometimes a line or a single pixel, sometimes a tile multiple.
  const int size_kind = deep ? 3 + pick(5) : pick(8);
  if (size_kind == 0) out.width = 1 + pick(3), out.height = 1 + pick(300);
  else if (size_kind == 1) out.width = 1 + pick(300), out.height = 1 + pick(3);
  else if (size_kind == 2) out.width = 32 * (1 + pick(8)), out.height = 32 * (1 + pick(6));
  else out.width = 1 + pick(400), out.height = 1 + pick(300);
  if (deep) out.width = 250 + pick(150), out.height = 200 + pick(100);
  s.width = out.width, s.height = out.height;
  const double pixels = static_cast<double>(out.width) * out.height;
  const double scale = std::min(out.width, out.height);
  // cpu-ref's work for a circle: the pixels of its box inside the frame (capped at the frame).
  auto box_pixels = [&](float radius) {
    const double r_frame = static_cast<double>(radius) * scale;
    return std::min(pixels, (2 * r_frame + 3) * (2 * r_frame + 3));
  };
  // Circles: a count from one to two million, log-uniform.
  const int count_kind = pick(10);
  std::size_t n_deep = 0;
  if (deep) n_deep = static_cast<std::size_t>(log_uniform(1.5e5, 4e5));
  std::size_t n = deep ? n_deep : count_kind == 0 ? 1 + pick(4)
                  : count_kind == 9 ? static_cast<std::size_t>(log_uniform(2e5, 2e6))
                                    : static_cast<std::size_t>(log_uniform(10, 60000));
  // Colour, alpha, radius and position profiles, each picked per scene and mixed per circle.
  const int colour_kind = pick(4);  // 0 [0,1]; 1 some above 1; 2 most above 1, up to 1e6; 3 only 0 and 1
  const int alpha_kind = pick(6);   // 0 .5; 1 sixteenths from .5; 2 uniform; 3 tiny; 4 0 and 1; 5 a mix of all
  const int radius_kind = deep ? 1 : pick(5);  // 0 sub-pixel; 1 a few pixels; 2 tiles; 3 the frame; 4 a mix, 1e6 included
  const int place_kind = pick(3);   // 0 inside; 1 near the edges; 2 a mix, far outside included
  s.shading = pick(5) == 0 ? Shading::Snow : Shading::Flat;
  // One scene in three animated, with velocities, starting at a later frame one time in four,
  // drawn 1 to 90 frames on (fewer for large counts: the circles moved, summed over the frames,
  // stay under max_blends, which bounds the steps as it bounds the blends).
  const bool animated = pick(3) == 0;
  if (animated) {
    static const Animation kAnimations[] = {Animation::BouncingBalls, Animation::Hypnosis, Animation::Fireworks,
                                            Animation::Snow};
    s.animation = kAnimations[pick(4)];
    s.has_velocity = true;
    s.frame = pick(4) == 0 ? static_cast<std::int64_t>(rng.next() % 100000u) : 0;
  }
  if (pick(3) == 0) {
    s.background.kind = Background::Kind::Gradient;
    s.background.top = Float4{rng.uniform(), rng.uniform(), rng.uniform(), 1.f};
    s.background.bottom = Float4{rng.uniform(), rng.uniform(), rng.uniform(), 1.f};
  } else {
    const float a = pick(3) == 0 ? 0.f : pick(2) ? 1.f : rng.uniform();
    s.background.top = s.background.bottom = Float4{rng.uniform(), rng.uniform(), rng.uniform(), a};
  }
  auto colour = [&]() -> float {
    switch (colour_kind) {
      case 0: return rng.uniform();
      case 1: return pick(10) == 0 ? static_cast<float>(log_uniform(1.0, 1e3)) : rng.uniform();
      case 2: return pick(4) == 0 ? rng.uniform() : static_cast<float>(log_uniform(1.0, 1e6));
      default: return static_cast<float>(pick(2));
    }
  };
  auto alpha = [&](int kind) -> float {
    switch (kind) {
      case 0: return .5f;
      case 1: return static_cast<float>(8 + pick(9)) / 16.f;
      case 2: return rng.uniform();
      case 3: return static_cast<float>(log_uniform(1e-7, 1e-2));
      case 4: return static_cast<float>(pick(2));
      default: return -1.f;
    }
  };
  auto radius_px = [&](int kind) -> double {
    switch (kind) {
      // Sub-pixel: mostly down to a thousandth of a pixel, one in four down to the smallest
      // positive float (-1 asks for a radius in scene units, below).
      case 0: return pick(4) == 0 ? -2.0 : log_uniform(1e-3, 1.0);
      case 1: return deep ? log_uniform(1.5, 4.0) : log_uniform(1.0, 8.0);
      case 2: return log_uniform(8.0, 80.0);
      case 3: return log_uniform(0.5, 2.0) * scale;
      default: return -1.0;
    }
  };
  double blends = 0;
  s.circles.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    Circle c;
    const int rk = radius_kind == 4 ? pick(5) : radius_kind;
    double r_px = rk == 4 ? (pick(20) == 0 ? 1e6 * scale : log_uniform(1e-3, 2.0 * scale)) : radius_px(rk);
    constexpr double kTiniest = std::numeric_limits<float>::denorm_min();  // the format's least radius
    if (r_px == -2.0) {
      // From the smallest positive float (a subnormal; its square is 0) to 1e-4 of the frame:
      // exactly the least one time in eight.
      c.radius = pick(8) == 0 ? static_cast<float>(kTiniest) : static_cast<float>(log_uniform(kTiniest, 1e-4));
      if (!(c.radius > 0.f)) c.radius = static_cast<float>(kTiniest);
    } else {
      c.radius = static_cast<float>(std::min(1e6, std::max(kTiniest, r_px / scale)));
    }
    const int pk = place_kind == 2 ? pick(4) : place_kind;
    if (pk == 0) {
      c.x = rng.uniform(), c.y = rng.uniform();
    } else if (pk == 1 || pk == 2) {
      c.x = static_cast<float>(-0.2 + 1.4 * u()), c.y = static_cast<float>(-0.2 + 1.4 * u());
    } else {
      const float far = static_cast<float>(log_uniform(2.0, 1e6));
      c.x = pick(2) ? far : -far;
      c.y = static_cast<float>(-1e6 + 2e6 * u());
    }
    c.z = pick(8) == 0 ? static_cast<float>(-1e6 + 2e6 * u()) : rng.uniform();
    c.r = colour(), c.g = colour(), c.b = colour();
    float a = alpha(alpha_kind);
    if (a < 0.f) a = alpha(pick(5));
    c.a = a;
    c.vx = animated ? static_cast<float>(-1.0 + 2.0 * u()) : 0.f;
    c.vy = animated ? static_cast<float>(-1.0 + 2.0 * u()) : 0.f;
    const double box = box_pixels(c.radius);
    if (blends + box > max_blends) break;
    blends += box;
    s.circles.push_back(c);
  }
  out.frame = s.frame;
  if (animated) {
    const double steps = std::max(1.0, std::min(90.0, max_blends / std::max<double>(1.0, static_cast<double>(s.circles.size()))));
    out.frame = s.frame + 1 + pick(static_cast<int>(steps));
    // An animation may grow its circles (hypnosis) by the frame drawn: the cost is counted again
    // there and the circles cut to the first ones within max_blends (a prefix, so fireworks keep
    // their bursts), or one scene in thousands takes the suite's hour.
    Scene at = s;
    advance_scene(&at, out.frame - s.frame);
    double drawn = 0;
    std::size_t keep = 0;
    for (; keep < at.circles.size(); ++keep) {
      drawn += box_pixels(at.circles[keep].radius);
      if (drawn > max_blends) break;
    }
    s.circles.resize(keep);
  }
  static const char* const kColour[] = {"colours in [0,1]", "some colours above 1", "colours up to 1e6", "colours 0 or 1"};
  static const char* const kAlpha[] = {"alpha .5", "alphas in sixteenths", "alphas uniform", "tiny alphas",
                                       "alphas 0 or 1", "alphas mixed"};
  static const char* const kRadius[] = {"sub-pixel radii", "radii of pixels", "radii of tiles", "radii of the frame",
                                        "radii mixed up to 1e6"};
  static const char* const kPlace[] = {"inside", "near the edges", "far outside too"};
  out.about = std::string(deep ? "deep, " : "") + std::to_string(out.width) + "x" + std::to_string(out.height) + ", " + std::to_string(s.circles.size()) +
              " circles, " + (s.shading == Shading::Snow ? "snow" : "flat") + ", " + kColour[colour_kind] + ", " +
              kAlpha[alpha_kind] + ", " + kRadius[radius_kind] + ", " + kPlace[place_kind] +
              (s.background.kind == Background::Kind::Gradient ? ", gradient" : ", solid background") +
              (animated ? std::string(", ") + to_string(s.animation) + " from frame " + std::to_string(s.frame) +
                              ", drawn at frame " + std::to_string(out.frame)
                        : std::string(", still"));
  return out;
}

}  // namespace circles::test
