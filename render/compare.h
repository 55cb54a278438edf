// Image comparison against a reference: per-channel max error, pixels over tolerance, PSNR.
#pragma once
#include <cstdint>
#include <string>

#include "render/image.h"

namespace circles {

struct Comparison {
  float max_abs[4] = {0, 0, 0, 0};  // per channel (alpha clamped to [0,1] first)
  std::int64_t pixels = 0;
  std::int64_t over_tolerance = 0;  // pixels with any channel differing by more than tolerance
  double psnr_db = 0;               // over RGB in [0,1]; +inf when identical
  bool size_mismatch = false;
  bool passed(std::int64_t allowed_pixels = 0) const {
    return !size_mismatch && over_tolerance <= allowed_pixels;
  }
  std::string summary() const;
};

// Compares colour channels as displayed (clamped to [0,1]).
Comparison compare_images(const Image& reference, const Image& test, float tolerance);
// |reference - test| per channel, scaled by `gain`, on opaque black: shows where they differ.
Image difference_image(const Image& reference, const Image& test, float gain);

}  // namespace circles
