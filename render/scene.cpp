// Names of the shading styles and animations, as written in scene files and on the command line.
#include "render/scene.h"

namespace circles {

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
