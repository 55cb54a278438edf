// The drawing modes and what each promises against cpu-ref, the picture's definition:
//   exact        cpu-ref's floats to the bit, so its 8-bit bytes (every renderer's default);
//   half colour  R, G and B within 2^-10 of cpu-ref's, alpha its bits on every pixel under fewer
//                than 2^20 circles (cuda-tile-binned's --half-colour, on frames its eight-pixel
//                walk draws);
//   early exit   every 8-bit value within one step of cpu-ref's (cuda-tile-binned's --early-exit).
// A renderer takes a fast mode only where the scene lets it keep that promise; elsewhere it draws
// the frame exact and its plan says why. The refusals below are those rules, plain host C++.
#pragma once
#include <cmath>
#include <string>

#include "render/image.h"
#include "render/scene.h"

#if defined(__CUDACC__)
#define CIRCLES_MODES_HD __host__ __device__
#else
#define CIRCLES_MODES_HD
#endif

namespace circles {

enum class Mode { Exact, HalfColour, EarlyExit };
const char* mode_name(Mode m);     // "exact", "half colour", "early exit"
const char* mode_key(Mode m);      // "exact", "half-colour", "early-exit": as --modes and the JSON name it
const char* mode_promise(Mode m);  // one line: what the mode guarantees against cpu-ref

// Half colour's bound per colour channel, in float.
constexpr float kHalfColourBound = 1.f / 1024.f;
// Half colour's alpha is cpu-ref's bits where cpu-ref's alpha is under this: its sums of
// sixteenths are exact in float there, summed batch by batch or circle by circle. Every pixel
// under fewer than 2^20 circles is (each alpha and the background's at most 1); a pixel deeper
// than that may sum its alpha with a different rounding, and has no bound on it in this mode.
constexpr float kHalfColourExactAlpha = 1048576.f;  // 2^20
// Early exit: the alphas its bound allows without counting them (0, or at least this), and how
// many circles of a scene may have a smaller alpha above 0.
constexpr float kEarlyExitMinAlpha = 1.f / 256.f;
constexpr std::size_t kEarlyExitMaxFaint = 4096;

// Why half-precision colour cannot keep its bound on this scene (snow shading; a colour or the
// background outside [0, 1]; a background alpha that is not one multiple of 1/16 on every row; a
// circle's alpha that is not a multiple of 1/16 from 1/2 to 1), or "".
std::string half_colour_refusal(const Scene& scene);
// Why early exit cannot keep its bound on this scene, or "". Its front-to-back sums round
// differently from cpu-ref's back-to-front ones; the difference stays far under an 8-bit step
// only where every value blended lies in [0, 1] (a colour above 1 lets a circle's rounding
// reach past its transmittance) and the rounding of faint circles is damped (alphas of 0 or at
// least kEarlyExitMinAlpha, and at most kEarlyExitMaxFaint others). docs/ARCHITECTURE.md derives it.
std::string early_exit_refusal(const Scene& scene);

// What the refusals read of a scene's circles, gathered in one pass: on the host (mode_facts)
// or on the GPU for circles that never were on the host (kernels/renderers/device_input.cu).
struct ModeFacts {
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::size_t first_colour_outside = kNone;       // r, g or b outside [0, 1]
  std::size_t first_alpha_outside = kNone;        // alpha outside [0, 1]
  std::size_t first_alpha_not_sixteenth = kNone;  // alpha not k/16 for k in 8..16
  float that_alpha = 0.f;                         // that circle's alpha
  std::size_t faint = 0;                          // circles whose least alpha lies in (0, kEarlyExitMinAlpha)
  std::size_t first_faint = 0;
};
ModeFacts mode_facts(const Scene& scene);
std::string half_colour_refusal(const Scene& scene, const ModeFacts& facts);  // the scene's settings and `facts`
std::string early_exit_refusal(const Scene& scene, const ModeFacts& facts);

// Half colour's rule for a circle's alpha: k/16 for a whole k from 8 to 16.
CIRCLES_MODES_HD inline bool alpha_half_to_one_in_sixteenths(float a) {
  const float sixteenths = a * 16.f;  // exact: a power of two
  return sixteenths >= 8.f && sixteenths <= 16.f && sixteenths == floorf(sixteenths);
}
// Early exit's faint circles: the least alpha the circle blends with lies in (0, kEarlyExitMinAlpha).
// Snow's alpha, per pixel, is at least a * depth factor * e^-4.1 (the falloff at the rim).
CIRCLES_MODES_HD inline bool circle_is_faint(Shading shading, float a, float z) {
  float least = a;
  if (shading == Shading::Snow) {
    float depth = .6f + .4f * (1.f - z);
    depth = depth < 0.f ? 0.f : depth > 1.f ? 1.f : depth;
    least = a * depth * 0.0165f;
  }
  return least > 0.f && least < kEarlyExitMinAlpha;
}

// Whether `test` keeps `mode`'s promise against `reference` (cpu-ref's image of the same frame):
// "" when it does, else what broke, with the first pixel and channel where it did.
std::string promise_broken(Mode mode, const Image& reference, const Image& test);

}  // namespace circles
