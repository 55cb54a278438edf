// The scene text format (docs/FORMAT.md): parse with precise errors, save bit-exactly.
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>

#include "render/scene.h"

namespace circles {

// A bad scene file. what() reads "FILE:LINE:COLUMN: error: MESSAGE".
class SceneError : public std::runtime_error {
 public:
  SceneError(const std::string& file, int line, int column, const std::string& message);
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  int column() const { return column_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  int line_, column_;
  std::string message_;
};

// Parses scene text; `source_name` is used in error messages and as Scene::name.
Scene parse_scene(std::string_view text, const std::string& source_name);
// Reads and parses a file (SceneError also for unreadable files, with line 0 column 0). A path
// ending in .npz or .npy is a binary scene (render/scene_npz.h; NpyError for a bad one).
Scene load_scene_file(const std::string& path);
// Formats a scene so that parse_scene gives back the same values, bit for bit.
std::string format_scene(const Scene& scene);
// Writes format_scene to `path` (via a temporary file and rename: never a partial file); a path
// ending in .npz gets the binary format instead (render/scene_npz.h).
// Throws std::runtime_error naming the path on failure.
void save_scene_file(const Scene& scene, const std::string& path);

}  // namespace circles
