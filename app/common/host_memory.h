// How much host memory work needs and may take, checked before it starts: by the CLI's commands
// and by the viewer's scene loading alike.
#pragma once
#include <cstdint>
#include <string>

#include "render/scene.h"

namespace circles {

// Host memory this process may still use, in bytes: MemAvailable, lowered by a cgroup limit
// (containers) and by CIRCLES_MEMORY_LIMIT_MB when set; 0 when unknown.
double available_memory_bytes();
// Host memory a render of `pixels` pixels of a scene of `circles` circles takes, about: the
// float image, its copy, the 8-bit image and the PNG (40 bytes a pixel, measured), and the
// scene's copies (250 bytes a circle).
double render_memory_bytes(double pixels, double circles);
// Refuses work that needs (`need` bytes, about) more than 90% of available_memory_bytes():
// std::runtime_error "<what> needs about ... of memory; ... are available"; notes on stderr
// ("<prefix>: note: ...") what needs more than 2 GiB (no note where prefix is null).
void check_host_memory(double need, const std::string& what, const char* prefix);
// load_scene (render/builtin_scenes.h) with the same check of the scene's circles (render's
// model, no pixels): a built-in's before it is generated, a file's once it is parsed (its reader
// bounds what parsing itself allocates); refused: "scene <source> (N circles) needs about ...".
Scene load_scene_within_memory(const std::string& source, std::uint64_t seed, const char* prefix);

}  // namespace circles
