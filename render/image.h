// A float RGBA image, row 0 at the bottom (the scene's y-up convention).
#pragma once
#include <cstdint>
#include <vector>

#include "render/scene.h"

namespace circles {

struct Image {
  int width = 0, height = 0;
  std::vector<Float4> pixels;  // width * height, row-major, row 0 = bottom

  Image() = default;
  Image(int w, int h) : width(w), height(h), pixels(static_cast<std::size_t>(w) * h) {}
  Float4& at(int i, int j) { return pixels[static_cast<std::size_t>(j) * width + i]; }
  const Float4& at(int i, int j) const { return pixels[static_cast<std::size_t>(j) * width + i]; }
};

// 8-bit RGBA, top row first, each channel round(clamp(v, 0, 1) * 255): what PNGs hold.
std::vector<std::uint8_t> to_rgba8(const Image& img);

// The same bytes (to_byte per channel) into dst, width * height * 4, row 0 = bottom as in the
// image (the viewer's texture): the rows split over up to `threads` threads (0 = all cores). The
// rounding is written without a library call, so the loop vectorises; rgba8_test checks it against
// to_byte.
void to_rgba8_bottom_up(const Image& img, std::uint8_t* dst, unsigned threads = 0);
// One channel as to_rgba8_bottom_up converts it (equal to to_byte for every float).
inline std::uint8_t to_byte_fast(float v) {
  const float c = v > 0.f ? (v < 1.f ? v : 1.f) : 0.f;  // NaN -> 0
  const float x = c * 255.f;                              // in [0, 255]: truncation is floor
  const int r = static_cast<int>(x);
  return static_cast<std::uint8_t>(r + ((x - static_cast<float>(r)) >= 0.5f ? 1 : 0));  // x - r is exact
}

}  // namespace circles
