// Helpers shared by the test files.
#pragma once
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "render/image.h"
#include "app/common/registry.h"
#include "render/builtin_scenes.h"
#include "render/renderer.h"
#include "render/scene.h"
#include "render/scene_io.h"

namespace circles::test {

// The whole file as bytes ("" when it cannot be read).
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// Renders frame `frame` (>= scene.frame) of `scene` with renderer `name` at w x h.
inline Image render_frame(const std::string& name, const Scene& scene, int w, int h,
                          std::int64_t frame) {
  std::unique_ptr<Renderer> r = make_renderer(name);
  Image img;
  run_frames(*r, scene, w, h, frame, frame + 1, [&](std::int64_t) { r->read_image(&img); });
  return img;
}

// Saves the first `circles` circles of built-in scene `name` as a scene file at `path` (the memory
// refusal tests' files of a known size).
inline void save_first_circles(const std::string& name, std::size_t circles, const std::string& path) {
  Scene scene = make_builtin_scene(name);
  scene.circles.resize(circles);
  save_scene_file(scene, path);
}

}  // namespace circles::test
