// The scene model: circles in the unit square (y up), a background, a shading style and an
// optional animation. Plain data; no GL, no CUDA.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace circles {

struct Float2 {
  float x = 0.f, y = 0.f;
};
struct Float4 {
  float x = 0.f, y = 0.f, z = 0.f, w = 0.f;
};

// One circle. Color is straight (not premultiplied) RGBA in [0,1].
struct Circle {
  float x = 0.f, y = 0.f, z = 0.f;  // center (unit square, y up) and depth (0 near, 1 far)
  float radius = 0.f;
  float r = 0.f, g = 0.f, b = 0.f, a = 0.f;
  float vx = 0.f, vy = 0.f;  // velocity in units per second (used by animations)
};

enum class Shading : std::uint8_t { Flat, Snow };
enum class Animation : std::uint8_t { None, BouncingBalls, Hypnosis, Fireworks, Snow };

// Solid: every pixel is `top`. Gradient: row j (0 = bottom) of an H-row image gets
// top + (bottom - top) * (H - j) / H, per channel (see docs/FORMAT.md).
struct Background {
  enum class Kind : std::uint8_t { Solid, Gradient };
  Kind kind = Kind::Solid;
  Float4 top{1.f, 1.f, 1.f, 1.f};
  Float4 bottom{1.f, 1.f, 1.f, 1.f};
};

// The largest animation frame anywhere: a scene file's `frame`, --frames, scene save --frame.
constexpr std::int64_t kMaxFrame = std::int64_t{1} << 62;

struct Scene {
  std::string name;                  // built-in name or file path, for messages
  int width = 1024, height = 1024;   // preferred render size
  Background background;
  Shading shading = Shading::Flat;
  Animation animation = Animation::None;
  std::uint64_t seed = 1;            // feeds the animation's noise (snow)
  std::int64_t frame = 0;            // the animation frame this state is at (0..kMaxFrame)
  bool has_velocity = false;         // whether circle velocities are meaningful / saved
  std::vector<Circle> circles;
};

const char* to_string(Shading s);
const char* to_string(Animation a);
bool parse_shading(const std::string& s, Shading* out);
bool parse_animation(const std::string& s, Animation* out);

}  // namespace circles
