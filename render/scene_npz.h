// The binary scene format: a NumPy .npz of named arrays (docs/FORMAT.md, "Binary scenes"), or a
// bare .npy of packed circles. Loading maps the file and, where the circles are stored as float32
// rows of 10 columns (what save_scene_npz writes), uses them in place: 100M circles load without
// a copy, every value still checked. Errors are NpyError: "FILE: key 'KEY': error: MESSAGE".
#pragma once
#include <cstddef>
#include <memory>
#include <string>

#include "render/npy.h"
#include "render/scene.h"

namespace circles {

constexpr int kSceneNpzVersion = 1;

// Whether `path` names a binary scene (ends in .npz or .npy, any case).
bool is_binary_scene_path(const std::string& path);

// Reads a .npz scene or a .npy of circles (N, 8) or (N, 10). Throws NpyError.
Scene load_scene_npz(const std::string& path);
// load_scene_npz on the `size` bytes at `data` (a whole .npz or .npy file) instead of a file.
// `name` stands for the path: its ending says .npy or .npz as the path's does, and it names the
// file in every message and in Scene::name. The circles may be a view of `data` (where a path's
// would be a view of its mapping), held by `owner`: with a null owner the caller keeps `data`
// valid and unchanged while the scene (or a copy of it) lives (render/npy.h, read_npz_bytes).
// Throws NpyError.
Scene load_scene_npz_bytes(const void* data, std::size_t size, const std::string& name,
                           std::shared_ptr<const void> owner = nullptr);
// Writes `scene` as a .npz (version 1; atomically: never a partial file). A .npy path is refused
// (it would keep the circles and lose the rest). Throws std::runtime_error naming the path.
void save_scene_npz(const Scene& scene, const std::string& path);
// The bytes save_scene_npz writes, returned instead (no file is touched).
std::string save_scene_npz_bytes(const Scene& scene);

}  // namespace circles
