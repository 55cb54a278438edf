// The circle list (owned or a view), and the names of the shading styles and animations, as
// written in scene files and on the command line.
#include "render/scene.h"

namespace circles {

CircleList CircleList::view(std::shared_ptr<const void> keeper, const Circle* data, std::size_t count) {
  CircleList l;
  if (count == 0) return l;
  l.view_ = data;
  l.view_count_ = count;
  l.keeper_ = std::move(keeper);
  return l;
}

std::vector<Circle>& CircleList::own() {
  if (view_) {
    own_.assign(view_, view_ + view_count_);
    drop_view();
  }
  return own_;
}

namespace {

struct ShadingName {
  Shading value;
  const char* name;
};
struct AnimationName {
  Animation value;
  const char* name;
};

constexpr ShadingName kShadingNames[] = {
    {Shading::Flat, "flat"},
    {Shading::Snow, "snow"},
};
constexpr AnimationName kAnimationNames[] = {
    {Animation::None, "none"},
    {Animation::BouncingBalls, "bouncingballs"},
    {Animation::Hypnosis, "hypnosis"},
    {Animation::Fireworks, "fireworks"},
    {Animation::Snow, "snow"},
};

}  // namespace

const char* to_string(Shading s) {
  for (const ShadingName& n : kShadingNames)
    if (n.value == s) return n.name;
  return "unknown";
}

const char* to_string(Animation a) {
  for (const AnimationName& n : kAnimationNames)
    if (n.value == a) return n.name;
  return "unknown";
}

bool parse_shading(const std::string& s, Shading* out) {
  for (const ShadingName& n : kShadingNames) {
    if (s == n.name) {
      *out = n.value;
      return true;
    }
  }
  return false;
}

bool parse_animation(const std::string& s, Animation* out) {
  for (const AnimationName& n : kAnimationNames) {
    if (s == n.name) {
      *out = n.value;
      return true;
    }
  }
  return false;
}

}  // namespace circles
