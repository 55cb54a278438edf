// Built-in scenes, generated deterministically from a seed by the project's own RNG.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "render/scene.h"

namespace circles {

struct SceneInfo {
  std::string name;
  std::string description;  // one line
  std::size_t circle_count;
  Scene (*make)(std::uint64_t seed);
};

constexpr std::uint64_t kDefaultSeed = 1;
constexpr const char* kDefaultScene = "rand10k";

const std::vector<SceneInfo>& scene_registry();
const SceneInfo* find_scene(const std::string& name);
// Generates built-in `name`; throws std::invalid_argument listing the names when unknown.
Scene make_builtin_scene(const std::string& name, std::uint64_t seed = kDefaultSeed);
// A built-in name, or else a scene file path (a built-in name wins; see scene_source_note).
// Throws (SceneError for bad files).
Scene load_scene(const std::string& name_or_path, std::uint64_t seed = kDefaultSeed);
// When `name_or_path` names a built-in scene and a file in the current directory too, the line
// that says which one load_scene uses ("" otherwise), for the command line and the viewer to show.
std::string scene_source_note(const std::string& name_or_path);

// Portable RNG (PCG32): the same stream on every platform and compiler.
class Pcg32 {
 public:
  explicit Pcg32(std::uint64_t seed, std::uint64_t stream = 54u);
  std::uint32_t next();
  float uniform();  // [0, 1), 24 random bits
 private:
  std::uint64_t state_ = 0, inc_ = 0;
};

}  // namespace circles
