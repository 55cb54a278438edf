#include "render/image.h"

#include <cmath>

#include "render/cpu_renderers.h"

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

void to_rgba8_bottom_up(const Image& img, std::uint8_t* dst, unsigned threads) {
  struct Ctx {
    const Float4* src;
    std::uint8_t* dst;
  } ctx{img.pixels.data(), dst};
  const std::size_t n = img.pixels.size();
  parallel_for(
      n, std::size_t{1} << 16,
      [](void* c, std::size_t b, std::size_t e) {
        const Ctx& x = *static_cast<const Ctx*>(c);
        const float* in = &x.src[b].x;
        std::uint8_t* out = x.dst + 4 * b;
        for (std::size_t k = 0; k < 4 * (e - b); ++k) out[k] = to_byte_fast(in[k]);
      },
      &ctx, threads);
}

}  // namespace circles
