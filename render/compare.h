// Image comparison against a reference (cpu-ref's image), on the floats as rendered and on the
// 8-bit values a PNG file holds.
#pragma once
#include <cstdint>
#include <string>

#include "render/image.h"

namespace circles {

struct Comparison {
  // Per channel (r, g, b, alpha), the floats as rendered, never clamped: the largest |ref - test|,
  // and the largest |ref - test| / max(1, |ref|) (absolute in [0, 1], relative above: colours
  // may exceed 1, alpha sums do). The tolerance applies to the second. NaN sticks as the largest.
  float max_abs[4] = {0, 0, 0, 0};
  float max_scaled[4] = {0, 0, 0, 0};
  std::int64_t pixels = 0;
  std::int64_t over_tolerance = 0;    // pixels with any channel's scaled difference over the tolerance
  std::int64_t floats_differ = 0;     // channel values whose floats differ in any bit
  std::int64_t bytes_differ = 0;      // 8-bit channel values (to_byte, as in PNG files) that differ
  int max_steps = 0;                  // the largest difference of those, in 8-bit steps
  double psnr_db = 0;                 // over RGB as displayed (clamped to [0,1]); +inf when identical
  bool size_mismatch = false;
  bool passed(std::int64_t allowed_pixels = 0) const {
    return !size_mismatch && over_tolerance <= allowed_pixels;
  }
  bool same_bytes() const { return !size_mismatch && bytes_differ == 0; }
  std::string summary() const;
};

Comparison compare_images(const Image& reference, const Image& test, float tolerance);
// |reference - test| per channel (scaled as Comparison::max_scaled), times `gain`, clamped to
// [0, 1], on opaque black: shows where they differ.
Image difference_image(const Image& reference, const Image& test, float gain);

}  // namespace circles
