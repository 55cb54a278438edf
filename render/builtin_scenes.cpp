// Built-in scenes: the classic CUDA circle-renderer benchmark set plus a 10M-circle stress scene.
#include "render/builtin_scenes.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "render/animate.h"
#include "render/scene_io.h"

namespace circles {

Pcg32::Pcg32(std::uint64_t seed, std::uint64_t stream) : inc_((stream << 1u) | 1u) {
  next();
  state_ += seed;
  next();
}

std::uint32_t Pcg32::next() {
  const std::uint64_t old = state_;
  state_ = old * 6364136223846793005ULL + inc_;
  const auto xorshifted = static_cast<std::uint32_t>(((old >> 18u) ^ old) >> 27u);
  const auto rot = static_cast<std::uint32_t>(old >> 59u);
  return (xorshifted >> rot) | (xorshifted << ((32u - rot) & 31u));
}

float Pcg32::uniform() { return static_cast<float>(next() >> 8) * (1.f / 16777216.f); }

namespace {

Scene base_scene(const char* name, std::uint64_t seed) {
  Scene s;
  s.name = name;
  s.seed = seed;
  return s;
}

Circle flat_circle(float x, float y, float z, float radius, float r, float g, float b) {
  Circle c;
  c.x = x;
  c.y = y;
  c.z = z;
  c.radius = radius;
  c.r = r;
  c.g = g;
  c.b = b;
  c.a = 0.5f;
  return c;
}

// Stable sort far-to-near (larger z first): drawing order then follows depth.
void sort_far_to_near(CircleList* circles) {
  std::vector<Circle>& cs = circles->edit();
  std::stable_sort(cs.begin(), cs.end(),
                   [](const Circle& a, const Circle& b) { return a.z > b.z; });
}

// n random circles: random centres and depths (sorted far-to-near), radius .02+.06u
// (.009+.005u above 100k circles), colours in a pleasant mid-to-bright range.
Scene random_scene(const char* name, std::uint64_t seed, std::size_t n, bool tiny_radius = false) {
  Scene s = base_scene(name, seed);
  Pcg32 rng(seed);
  s.circles.resize(n);
  const bool small = n > 100000;
  for (Circle& c : s.circles.edit()) {
    c.x = rng.uniform();
    c.y = rng.uniform();
    c.z = rng.uniform();
    if (tiny_radius) {
      c.radius = 0.001f;
    } else {
      const float u = rng.uniform();
      c.radius = small ? .009f + .005f * u : .02f + .06f * u;
    }
    c.r = .2f + .8f * rng.uniform();
    c.g = .2f + .8f * rng.uniform();
    c.b = .2f + .8f * rng.uniform();
    c.a = 0.5f;
  }
  sort_far_to_near(&s.circles);
  return s;
}

Scene make_rgb(std::uint64_t seed) {
  Scene s = base_scene("rgb", seed);
  s.circles = {flat_circle(.4f, .5f, .75f, .3f, 1, 0, 0), flat_circle(.5f, .5f, .5f, .3f, 0, 1, 0),
               flat_circle(.6f, .5f, .25f, .3f, 0, 0, 1)};
  return s;
}

Scene make_rgby(std::uint64_t seed) {
  Scene s = base_scene("rgby", seed);
  s.circles = {flat_circle(.25f, .25f, .75f, .19f, 1, 0, 0),
               flat_circle(.3f, .3f, .5f, .19f, 0, 1, 0),
               flat_circle(.5f, .5f, .25f, .25f, 0, 0, 1),
               flat_circle(.2f, .2f, .1f, .1f, 1, 1, 0)};
  return s;
}

Scene make_rand10k(std::uint64_t seed) { return random_scene("rand10k", seed, 10000); }
Scene make_rand100k(std::uint64_t seed) { return random_scene("rand100k", seed, 100000); }
Scene make_rand1m(std::uint64_t seed) { return random_scene("rand1M", seed, 1000000); }
Scene make_micro2m(std::uint64_t seed) { return random_scene("micro2M", seed, 2000000, true); }
Scene make_stress10m(std::uint64_t seed) { return random_scene("stress10M", seed, 10000000); }

// 10k big circles (r .25) in random order; the last 1,000 small (r .05) in the lower-left corner.
Scene make_biglittle_impl(const char* name, std::uint64_t seed, bool little_first) {
  Scene s = random_scene(name, seed, 10000);
  Pcg32 rng(seed, 77);
  for (std::size_t i = 0; i < s.circles.size(); ++i) {
    Circle& c = s.circles.edit()[i];
    if (i >= 9000) {
      c.radius = .05f;
      c.x = .25f * rng.uniform();
      c.y = .25f * rng.uniform();
    } else {
      c.radius = .25f;
    }
  }
  if (little_first) {
    std::vector<Circle>& cs = s.circles.edit();
    std::rotate(cs.begin(), cs.begin() + 9000, cs.end());
  }
  return s;
}
Scene make_biglittle(std::uint64_t seed) { return make_biglittle_impl("biglittle", seed, false); }
Scene make_littlebig(std::uint64_t seed) { return make_biglittle_impl("littlebig", seed, true); }

// A 16x16 grid of red circles, then a 31x31 grid of yellow ones between them; r = 1/32.
Scene make_pattern(std::uint64_t seed) {
  Scene s = base_scene("pattern", seed);
  for (int j = 0; j < 16; ++j)
    for (int i = 0; i < 16; ++i)
      s.circles.push_back(flat_circle((i + .5f) / 16.f, (j + .5f) / 16.f, .5f, 1.f / 32.f, 1, 0, 0));
  for (int j = 0; j < 31; ++j)
    for (int i = 0; i < 31; ++i)
      s.circles.push_back(flat_circle((i + 1) / 32.f, (j + 1) / 32.f, .25f, 1.f / 32.f, 1, 1, 0));
  return s;
}

Scene make_bouncingballs(std::uint64_t seed) {
  Scene s = base_scene("bouncingballs", seed);
  s.animation = Animation::BouncingBalls;
  s.has_velocity = true;
  Pcg32 rng(seed);
  for (int i = 0; i < 10; ++i) {
    // One draw per declarator, in order: the order in which function arguments are evaluated
    // is unspecified (GCC went right to left, clang left to right, giving another scene). This
    // is GCC's old order, so the scene and the golden images stay the same.
    const float b = .2f + .8f * rng.uniform(), g = .2f + .8f * rng.uniform(),
                r = .2f + .8f * rng.uniform(), y = .4f + .55f * rng.uniform();
    Circle c = flat_circle((i + .5f) / 10.f, y, .5f, .04f, r, g, b);
    c.a = .8f;
    s.circles.push_back(c);
  }
  return s;
}

// 25 rings at the centre, radius .02 + .02i, drawn largest first so every ring shows.
Scene make_hypnosis(std::uint64_t seed) {
  Scene s = base_scene("hypnosis", seed);
  s.animation = Animation::Hypnosis;
  for (int i = 24; i >= 0; --i) {
    const bool dark = i % 2 == 0;
    s.circles.push_back(flat_circle(.5f, .5f, .5f, .02f + .02f * i, dark ? .1f : .9f,
                                    dark ? .1f : .6f, dark ? .4f : .1f));
  }
  return s;
}

// 15 bursts, then 20 sparks per burst, evenly spaced directions, all flying out at 0.2/s.
Scene make_fireworks(std::uint64_t seed) {
  Scene s = base_scene("fireworks", seed);
  s.animation = Animation::Fireworks;
  s.has_velocity = true;
  s.background.top = s.background.bottom = Float4{0.f, 0.f, .05f, 1.f};
  Pcg32 rng(seed);
  for (int k = 0; k < kFireworkBursts; ++k) {
    // Drawn in sequence, in GCC's old argument order (see make_bouncingballs).
    const float radius = .03f + .02f * rng.uniform(), y = .15f + .7f * rng.uniform(),
                x = .15f + .7f * rng.uniform();
    s.circles.push_back(flat_circle(x, y, .5f, radius, 1.f, .8f, .3f));
  }
  for (int k = 0; k < kFireworkBursts; ++k) {
    const Circle burst = s.circles[k];
    const float cr = .5f + .5f * rng.uniform(), cg = .3f + .7f * rng.uniform(),
                cb = .3f + .7f * rng.uniform();
    for (int j = 0; j < kFireworkSparks; ++j) {
      const double angle = 2.0 * 3.14159265358979323846 * j / kFireworkSparks;
      const float ux = static_cast<float>(std::cos(angle));
      const float uy = static_cast<float>(std::sin(angle));
      // Start part-way out so the bursts are staggered from the first frame.
      const float d = burst.radius + (kFireworkMaxDist - burst.radius) * rng.uniform();
      Circle c = flat_circle(burst.x + ux * d, burst.y + uy * d, .5f, .01f, cr, cg, cb);
      c.a = .9f;
      c.vx = ux * kFireworkSpeed;
      c.vy = uy * kFireworkSpeed;
      s.circles.push_back(c);
    }
  }
  return s;
}

// 100k flakes: size by depth (near is larger), snow shading over a gray gradient.
Scene make_snow(std::uint64_t seed) {
  Scene s = base_scene("snow", seed);
  s.animation = Animation::Snow;
  s.shading = Shading::Snow;
  s.has_velocity = true;
  s.background.kind = Background::Kind::Gradient;
  s.background.top = Float4{.4f, .4f, .4f, 1.f};
  s.background.bottom = Float4{.85f, .85f, .85f, 1.f};
  Pcg32 rng(seed);
  s.circles.resize(100000);
  for (Circle& c : s.circles.edit()) {
    c.x = rng.uniform();
    c.y = 1.35f * rng.uniform();  // some start above the top, as respawned flakes do
    c.z = rng.uniform();
    const float near = 1.f - c.z;
    c.radius = .001f + .008f * near * near * near;
    c.r = c.g = c.b = 1.f;
    c.a = .5f;
    c.vx = .1f * (rng.uniform() - .5f);
    c.vy = 0.f;
  }
  sort_far_to_near(&s.circles);
  return s;
}

}  // namespace

const std::vector<SceneInfo>& scene_registry() {
  static const std::vector<SceneInfo> scenes = {
      {"rgb", "3 overlapping circles: red, green, blue", 3, make_rgb},
      {"rgby", "red, green, blue, then a small yellow circle drawn last", 4, make_rgby},
      {"rand10k", "10k random circles, radius .02-.08, sorted far to near", 10000, make_rand10k},
      {"rand100k", "100k random circles, radius .02-.08", 100000, make_rand100k},
      {"rand1M", "1M random circles, radius .009-.014", 1000000, make_rand1m},
      {"micro2M", "2M random circles of radius .001", 2000000, make_micro2m},
      {"biglittle", "10k circles of radius .25, the last 1,000 small in a corner", 10000,
       make_biglittle},
      {"littlebig", "biglittle with the 1,000 small circles drawn first", 10000, make_littlebig},
      {"pattern", "16x16 red and 31x31 yellow grids, radius 1/32", 16 * 16 + 31 * 31,
       make_pattern},
      {"bouncingballs", "animated: 10 balls under gravity, bounces lose 20%", 10,
       make_bouncingballs},
      {"hypnosis", "animated: 25 concentric rings growing and wrapping", 25, make_hypnosis},
      {"fireworks", "animated: 15 bursts of 20 sparks that fly out and respawn",
       kFireworkBursts * (1 + kFireworkSparks), make_fireworks},
      {"snow", "animated: 100k flakes, snow shading, gradient background", 100000, make_snow},
      {"stress10M", "10M random circles, radius .009-.014 (stress test)", 10000000,
       make_stress10m},
  };
  return scenes;
}

const SceneInfo* find_scene(const std::string& name) {
  for (const SceneInfo& s : scene_registry())
    if (s.name == name) return &s;
  return nullptr;
}

Scene make_builtin_scene(const std::string& name, std::uint64_t seed) {
  const SceneInfo* info = find_scene(name);
  if (!info) {
    std::string names;
    for (const SceneInfo& s : scene_registry()) names += (names.empty() ? "" : ", ") + s.name;
    throw std::invalid_argument("unknown scene '" + name + "' (built-in scenes: " + names +
                             "; or give a scene file path)");
  }
  return info->make(seed);
}

std::string scene_source_note(const std::string& name_or_path) {
  std::error_code ec;
  if (!find_scene(name_or_path) || !std::filesystem::is_regular_file(name_or_path, ec)) return "";
  return "'" + name_or_path + "' is both a built-in scene and a file here; using the built-in (give ./" +
         name_or_path + " for the file)";
}

Scene load_scene(const std::string& name_or_path, std::uint64_t seed) {
  if (find_scene(name_or_path)) return make_builtin_scene(name_or_path, seed);
  std::error_code ec;
  if (std::filesystem::exists(name_or_path, ec) ||
      name_or_path.find_first_of("/.") != std::string::npos)
    return load_scene_file(name_or_path);
  return make_builtin_scene(name_or_path, seed);  // throws, listing the names
}

}  // namespace circles
