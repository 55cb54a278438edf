// The viewer's bulk 8-bit conversion (to_rgba8_bottom_up, to_byte_fast) gives to_byte's bytes:
// the PNG's and the texture's definition of a channel.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "render/image.h"
#include "render/raster.h"

namespace circles {
namespace {

float from_bits(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

TEST(Rgba8, FastChannelEqualsToByteAcrossTheUnitInterval) {
  // Every 61st float of [0, 1] (16 million values) ...
  const std::uint32_t one = 0x3f800000u;
  std::size_t checked = 0;
  for (std::uint32_t b = 0; b <= one; b += 61, ++checked) {
    const float v = from_bits(b);
    ASSERT_EQ(to_byte_fast(v), to_byte(v)) << v;
  }
  EXPECT_GT(checked, 16000000u);
  // ... and every rounding boundary k + 0.5 (over 255), 64 floats either side, where a rounding
  // shortcut would differ.
  for (int k = 0; k < 255; ++k) {
    const float mid = (static_cast<float>(k) + 0.5f) / 255.f;
    float v = mid;
    for (int s = 0; s < 64; ++s) v = std::nextafter(v, 0.f);
    for (int s = 0; s < 128; ++s, v = std::nextafter(v, 2.f)) ASSERT_EQ(to_byte_fast(v), to_byte(v)) << v;
  }
  for (float v : {-0.f, -1e-30f, -1.f, 1.f, 1.0000001f, 2.f, 1e30f, std::numeric_limits<float>::infinity(),
                  -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                  std::numeric_limits<float>::denorm_min(), 0.99999994f})
    EXPECT_EQ(to_byte_fast(v), to_byte(v)) << v;
}

TEST(Rgba8, BottomUpBytesAreThePngBytesWithRowsInImageOrder) {
  Image img(67, 41);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(-0.25f, 1.25f);
  for (Float4& p : img.pixels) p = {d(rng), d(rng), d(rng), d(rng)};
  img.at(3, 4).x = std::numeric_limits<float>::quiet_NaN();
  const std::vector<std::uint8_t> png = to_rgba8(img);  // top row first
  for (unsigned threads : {1u, 3u, 0u}) {
    std::vector<std::uint8_t> tex(png.size(), 0xA5);
    to_rgba8_bottom_up(img, tex.data(), threads);
    const std::size_t row = static_cast<std::size_t>(img.width) * 4;
    for (int j = 0; j < img.height; ++j)
      ASSERT_EQ(0, std::memcmp(&tex[j * row], &png[(img.height - 1 - j) * row], row)) << "row " << j << ", threads "
                                                                                    << threads;
  }
}

}  // namespace
}  // namespace circles
