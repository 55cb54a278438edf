// The scene model: circles in the unit square (y up), a background, a shading style and an
// optional animation. Plain data; no GL, no CUDA.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <stdexcept>
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

// A scene's circles, in drawing order: owned, as a std::vector, or a read-only view of memory kept
// alive by someone else (a memory-mapped binary scene file, render/scene_npz.h), so that loading
// 100M circles copies none of them. Copies of a view share it. Anything that may change the
// circles (edit(), push_back, resize, ...) copies a view into owned memory first, once; reading
// never copies.
class CircleList {
 public:
  CircleList() = default;
  CircleList(std::initializer_list<Circle> circles) : own_(circles) {}
  // A view of `count` circles at `data`, which stays valid while `keeper` lives.
  static CircleList view(std::shared_ptr<const void> keeper, const Circle* data, std::size_t count);
  bool is_view() const { return view_ != nullptr; }

  std::size_t size() const { return view_ ? view_count_ : own_.size(); }
  bool empty() const { return size() == 0; }
  const Circle* data() const { return view_ ? view_ : own_.data(); }
  const Circle* begin() const { return data(); }
  const Circle* end() const { return data() + size(); }
  const Circle& operator[](std::size_t i) const { return data()[i]; }
  const Circle& at(std::size_t i) const {
    if (i >= size()) throw std::out_of_range("CircleList::at: index " + std::to_string(i) + " of " + std::to_string(size()));
    return data()[i];
  }
  const Circle& front() const { return data()[0]; }
  const Circle& back() const { return data()[size() - 1]; }

  // The circles to change, owned (a view is copied first, once). Not for threads sharing a list
  // that may still be a view: make it owned first.
  std::vector<Circle>& edit() { return own(); }
  void push_back(const Circle& c) { own().push_back(c); }
  void reserve(std::size_t n) { own().reserve(n); }
  void resize(std::size_t n) { own().resize(n); }
  void clear() {
    own_.clear();
    drop_view();
  }

 private:
  std::vector<Circle>& own();
  void drop_view() {
    view_ = nullptr;
    view_count_ = 0;
    keeper_.reset();
  }
  std::vector<Circle> own_;
  const Circle* view_ = nullptr;
  std::size_t view_count_ = 0;
  std::shared_ptr<const void> keeper_;
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
  CircleList circles;
};

const char* to_string(Shading s);
const char* to_string(Animation a);
bool parse_shading(const std::string& s, Shading* out);
bool parse_animation(const std::string& s, Animation* out);

}  // namespace circles
