#include "render/modes.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "render/raster.h"

namespace circles {

const char* mode_name(Mode m) {
  switch (m) {
    case Mode::Exact: return "exact";
    case Mode::HalfColour: return "half colour";
    case Mode::EarlyExit: return "early exit";
  }
  return "?";
}

const char* mode_key(Mode m) {
  switch (m) {
    case Mode::Exact: return "exact";
    case Mode::HalfColour: return "half-colour";
    case Mode::EarlyExit: return "early-exit";
  }
  return "?";
}

const char* mode_promise(Mode m) {
  switch (m) {
    case Mode::Exact: return "cpu-ref's floats to the bit, so its PNG bytes";
    case Mode::HalfColour:
      return "R, G and B within 2^-10 of cpu-ref's floats, alpha its bits (a pixel under fewer than 2^20 circles); "
             "exact where the scene does not allow it";
    case Mode::EarlyExit: return "every 8-bit value within one step of cpu-ref's; exact where the scene does not allow it";
  }
  return "?";
}

namespace {

bool in_unit(float v) { return v >= 0.f && v <= 1.f; }  // false for NaN
bool rgb_in_unit(const Float4& c) { return in_unit(c.x) && in_unit(c.y) && in_unit(c.z); }
bool background_in_unit(const Background& bg) {
  return rgb_in_unit(bg.top) && (bg.kind != Background::Kind::Gradient || rgb_in_unit(bg.bottom));
}

}  // namespace

namespace {

// Whether `a` is k/16 for a whole k from 0 to 16.
bool alpha_in_sixteenths(float a) {
  const float sixteenths = a * 16.f;  // exact: a power of two
  return sixteenths >= 0.f && sixteenths <= 16.f && sixteenths == std::floor(sixteenths);
}

}  // namespace

ModeFacts mode_facts(const Scene& scene) {
  ModeFacts f;
  const std::size_t none = ModeFacts::kNone;
  for (std::size_t k = 0; k < scene.circles.size(); ++k) {
    const Circle& c = scene.circles[k];
    if (f.first_colour_outside == none && !(in_unit(c.r) && in_unit(c.g) && in_unit(c.b))) f.first_colour_outside = k;
    if (f.first_alpha_outside == none && !in_unit(c.a)) f.first_alpha_outside = k;
    if (f.first_alpha_not_sixteenth == none && !alpha_half_to_one_in_sixteenths(c.a)) {
      f.first_alpha_not_sixteenth = k;
      f.that_alpha = c.a;
    }
    if (circle_is_faint(scene.shading, c.a, c.z) && f.faint++ == 0) f.first_faint = k;
  }
  return f;
}

std::string half_colour_refusal(const Scene& scene) { return half_colour_refusal(scene, mode_facts(scene)); }
std::string early_exit_refusal(const Scene& scene) { return early_exit_refusal(scene, mode_facts(scene)); }

std::string half_colour_refusal(const Scene& scene, const ModeFacts& f) {
  char buf[160];
  if (scene.shading != Shading::Flat) return "snow shading";
  if (!background_in_unit(scene.background)) return "the background's colour is outside [0, 1]";
  // Alpha is summed batch by batch, cpu-ref's circle by circle: the same float sum only while
  // every partial sum is exact, so every row's background alpha must be a sixteenth too (a
  // gradient's rows interpolate theirs unless both ends agree).
  const Background& bg = scene.background;
  if (!alpha_in_sixteenths(bg.top.w) || (bg.kind == Background::Kind::Gradient && bg.bottom.w != bg.top.w)) {
    std::snprintf(buf, sizeof buf, "the background's alpha is not one multiple of 1/16 from 0 to 1 on every row");
    return buf;
  }
  // The first circle that breaks a rule; its colour is looked at before its alpha.
  if (f.first_colour_outside != ModeFacts::kNone && f.first_colour_outside <= f.first_alpha_not_sixteenth) {
    std::snprintf(buf, sizeof buf, "circle %zu's colour is outside [0, 1]", f.first_colour_outside);
    return buf;
  }
  if (f.first_alpha_not_sixteenth != ModeFacts::kNone) {
    std::snprintf(buf, sizeof buf, "circle %zu's alpha %.9g is not a multiple of 1/16 from 1/2 to 1",
                  f.first_alpha_not_sixteenth, static_cast<double>(f.that_alpha));
    return buf;
  }
  return "";
}

std::string early_exit_refusal(const Scene& scene, const ModeFacts& f) {
  char buf[200];
  if (!background_in_unit(scene.background) || !in_unit(scene.background.top.w) ||
      (scene.background.kind == Background::Kind::Gradient && !in_unit(scene.background.bottom.w)))
    return "the background is outside [0, 1]";
  // Snow's colour comes from its ramp (every stop in [0, 1]), so only flat colours count; the
  // first circle that breaks a rule, its colour looked at before its alpha.
  const std::size_t colour = scene.shading == Shading::Flat ? f.first_colour_outside : ModeFacts::kNone;
  if (colour != ModeFacts::kNone && colour <= f.first_alpha_outside) {
    std::snprintf(buf, sizeof buf, "circle %zu's colour is above 1", colour);
    return buf;
  }
  if (f.first_alpha_outside != ModeFacts::kNone) {
    std::snprintf(buf, sizeof buf, "circle %zu's alpha is outside [0, 1]", f.first_alpha_outside);
    return buf;
  }
  if (f.faint > kEarlyExitMaxFaint) {
    std::snprintf(buf, sizeof buf, "%zu circles (the first: %zu) blend with an alpha between 0 and 1/%.0f, over %zu",
                  f.faint, f.first_faint, 1.0 / kEarlyExitMinAlpha, kEarlyExitMaxFaint);
    return buf;
  }
  return "";
}

std::string promise_broken(Mode mode, const Image& reference, const Image& test) {
  char buf[320];
  if (reference.width != test.width || reference.height != test.height) {
    std::snprintf(buf, sizeof buf, "the images differ in size: %dx%d against cpu-ref's %dx%d", test.width, test.height,
                  reference.width, reference.height);
    return buf;
  }
  static const char* const kChannel[4] = {"R", "G", "B", "A"};
  for (std::size_t k = 0; k < reference.pixels.size(); ++k) {
    const Float4& a = reference.pixels[k];
    const Float4& b = test.pixels[k];
    const float ra[4] = {a.x, a.y, a.z, a.w}, rb[4] = {b.x, b.y, b.z, b.w};
    for (int ch = 0; ch < 4; ++ch) {
      const int i = static_cast<int>(k % static_cast<std::size_t>(reference.width));
      const int j = static_cast<int>(k / static_cast<std::size_t>(reference.width));
      const int steps = std::abs(static_cast<int>(to_byte(ra[ch])) - static_cast<int>(to_byte(rb[ch])));
      const bool same_bits = std::memcmp(&ra[ch], &rb[ch], sizeof(float)) == 0;
      const char* broken = nullptr;
      if (mode == Mode::Exact && !same_bits) broken = "differs from cpu-ref's float";
      if (mode == Mode::EarlyExit && steps > 1) broken = "is more than one 8-bit step from cpu-ref's";
      if (mode == Mode::HalfColour) {
        if (ch < 3 && !(std::fabs(ra[ch] - rb[ch]) <= kHalfColourBound)) broken = "is more than 2^-10 from cpu-ref's";
        // Alpha: cpu-ref's bits wherever cpu-ref's alpha is under kHalfColourExactAlpha (every
        // partial sum of sixteenths is then exact in float, summed in any order).
        if (ch == 3 && std::fabs(ra[ch]) <= kHalfColourExactAlpha && !same_bits)
          broken = "(alpha) differs from cpu-ref's float";
      }
      if (broken) {
        std::snprintf(buf, sizeof buf, "%s: pixel (%d, %d) %s %.9g %s %.9g (8-bit %d against %d)", mode_name(mode), i, j,
                      kChannel[ch], static_cast<double>(rb[ch]), broken, static_cast<double>(ra[ch]), to_byte(rb[ch]),
                      to_byte(ra[ch]));
        return buf;
      }
    }
  }
  return "";
}

}  // namespace circles
