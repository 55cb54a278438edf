#include "app/common/host_memory.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "render/builtin_scenes.h"
#include "render/units.h"

namespace circles {

double available_memory_bytes() {
  double avail = 0;
  if (std::FILE* f = std::fopen("/proc/meminfo", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "MemAvailable: %lf kB", &avail) == 1) {
        avail *= 1024;
        break;
      }
    std::fclose(f);
  }
  auto read_number = [](const char* path, double* v) {
    std::FILE* f = std::fopen(path, "r");
    if (!f) return false;
    const bool ok = std::fscanf(f, "%lf", v) == 1;  // "max" (no limit) does not parse
    std::fclose(f);
    return ok;
  };
  double max = 0, current = 0;
  if (read_number("/sys/fs/cgroup/memory.max", &max) && read_number("/sys/fs/cgroup/memory.current", &current))
    avail = avail > 0 ? std::min(avail, max - current) : max - current;
  if (const char* limit = std::getenv("CIRCLES_MEMORY_LIMIT_MB")) {
    char* end = nullptr;
    const double mb = std::strtod(limit, &end);
    if (end != limit && *end == '\0' && mb >= 0) avail = avail > 0 ? std::min(avail, mb * 1048576) : mb * 1048576;
  }
  return std::max(avail, 0.0);
}

double render_memory_bytes(double pixels, double circles) { return 40 * pixels + 250 * circles; }

Scene load_scene_within_memory(const std::string& source, std::uint64_t seed, const char* prefix) {
  const auto check = [&](std::size_t circles) {
    check_host_memory(render_memory_bytes(0, static_cast<double>(circles)),
                      "scene " + source + " (" + std::to_string(circles) + " circles)", prefix);
  };
  const SceneInfo* builtin = find_scene(source);
  if (builtin) check(builtin->circle_count);
  Scene scene = load_scene(source, seed);
  if (!builtin) check(scene.circles.size());
  return scene;
}

void check_host_memory(double need, const std::string& what, const char* prefix) {
  const double avail = available_memory_bytes();
  if (avail > 0 && need > 0.9 * avail)
    throw std::runtime_error(what + " needs about " + memory_text(need) + " of memory; " + memory_text(avail) +
                             " are available (a run takes at most 90%)");
  if (prefix && need > 2.0 * 1024 * 1024 * 1024)
    std::fprintf(stderr, "%s: note: %s uses about %s of memory\n", prefix, what.c_str(), memory_text(need).c_str());
}

}  // namespace circles
