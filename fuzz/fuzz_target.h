// What the fuzz targets (scene_fuzz.cpp, npz_fuzz.cpp) share: the libFuzzer entry point, the
// verdict each gives replay_main.cpp, the abort that marks a finding, and a bit-for-bit scene
// comparison for their save/load round trips.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "render/scene.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace circles::fuzz {

// The target's answer to the input it ran last, set by LLVMFuzzerTestOneInput before it returns:
// whether the reader refused the input (with the reader's exception, the expected answer to bad
// input) and that exception's message. replay_main.cpp holds inputs named bad-* and valid-* to
// it; libFuzzer does not look at it.
struct Verdict {
  bool refused = false;
  std::string message;
};
inline Verdict last_verdict;

// A finding: the message on stderr, then abort(), which libFuzzer and the replay driver report.
[[noreturn]] inline void finding(const char* target, const char* what, const std::string& detail) {
  std::fprintf(stderr, "%s: %s\n%s\n", target, what, detail.c_str());
  std::abort();
}

inline bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

inline bool same_float4(const Float4& a, const Float4& b) {
  return same_bits(a.x, b.x) && same_bits(a.y, b.y) && same_bits(a.z, b.z) && same_bits(a.w, b.w);
}

// Whether two scenes hold the same settings and the same circles, every float to the bit
// (velocities included); the name is not compared.
inline bool same_scene(const Scene& a, const Scene& b) {
  if (a.width != b.width || a.height != b.height || a.shading != b.shading ||
      a.animation != b.animation || a.seed != b.seed || a.frame != b.frame ||
      a.has_velocity != b.has_velocity || a.background.kind != b.background.kind ||
      !same_float4(a.background.top, b.background.top) ||
      !same_float4(a.background.bottom, b.background.bottom) ||
      a.circles.size() != b.circles.size())
    return false;
  for (std::size_t i = 0; i < a.circles.size(); ++i) {
    const Circle& p = a.circles[i];
    const Circle& q = b.circles[i];
    const float pv[] = {p.x, p.y, p.z, p.radius, p.r, p.g, p.b, p.a, p.vx, p.vy};
    const float qv[] = {q.x, q.y, q.z, q.radius, q.r, q.g, q.b, q.a, q.vx, q.vy};
    for (int k = 0; k < 10; ++k)
      if (!same_bits(pv[k], qv[k])) return false;
  }
  return true;
}

}  // namespace circles::fuzz
