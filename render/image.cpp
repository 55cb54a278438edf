#include "render/image.h"

#include <cmath>

#include "render/raster.h"

namespace circles {

std::vector<std::uint8_t> to_rgba8(const Image& img) {
  std::vector<std::uint8_t> out(static_cast<std::size_t>(img.width) * img.height * 4);
  for (int row = 0; row < img.height; ++row) {
    const int j = img.height - 1 - row;  // top row first
    std::uint8_t* dst = &out[static_cast<std::size_t>(row) * img.width * 4];
    for (int i = 0; i < img.width; ++i) {
      const Float4& p = img.at(i, j);
      dst[4 * i + 0] = to_byte(p.x);
      dst[4 * i + 1] = to_byte(p.y);
      dst[4 * i + 2] = to_byte(p.z);
      dst[4 * i + 3] = to_byte(p.w);
    }
  }
  return out;
}

}  // namespace circles
