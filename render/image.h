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

}  // namespace circles
