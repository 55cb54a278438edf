// The binary scene format: a NumPy .npz of named arrays (docs/FORMAT.md, "Binary scenes"), or a
// bare .npy of packed circles. Loading maps the file and, where the circles are stored as float32
// rows of 10 columns (what save_scene_npz writes), uses them in place: 100M circles load without
// a copy, every value still checked. Errors are NpyError: "FILE: key 'KEY': error: MESSAGE".
#pragma once
#include <string>

#include "render/npy.h"
#include "render/scene.h"

namespace circles {

constexpr int kSceneNpzVersion = 1;

// Whether `path` names a binary scene (ends in .npz or .npy, any case).
bool is_binary_scene_path(const std::string& path);

// Reads a .npz scene or a .npy of circles (N, 8) or (N, 10). Throws NpyError.
Scene load_scene_npz(const std::string& path);
// Writes `scene` as a .npz (version 1; atomically: never a partial file). A .npy path is refused
// (it would keep the circles and lose the rest). Throws std::runtime_error naming the path.
void save_scene_npz(const Scene& scene, const std::string& path);

}  // namespace circles
