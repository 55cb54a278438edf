#include "render/compare.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "render/raster.h"

namespace circles {

static void channels(const Float4& p, float out[4]) {
  out[0] = clampf(p.x, 0.f, 1.f);
  out[1] = clampf(p.y, 0.f, 1.f);
  out[2] = clampf(p.z, 0.f, 1.f);
  out[3] = clampf(p.w, 0.f, 1.f);
}

Comparison compare_images(const Image& reference, const Image& test, float tolerance) {
  Comparison c;
  if (reference.width != test.width || reference.height != test.height) {
    c.size_mismatch = true;
    return c;
  }
  c.pixels = static_cast<std::int64_t>(reference.pixels.size());
  double sq = 0;
  for (std::size_t k = 0; k < reference.pixels.size(); ++k) {
    float a[4], b[4];
    channels(reference.pixels[k], a);
    channels(test.pixels[k], b);
    bool over = false;
    for (int ch = 0; ch < 4; ++ch) {
      const float d = std::fabs(a[ch] - b[ch]);
      if (!(d <= c.max_abs[ch])) c.max_abs[ch] = d;  // NaN sticks as the max
      if (!(d <= tolerance)) over = true;
      if (ch < 3) sq += static_cast<double>(d) * d;
    }
    c.over_tolerance += over ? 1 : 0;
  }
  const double mse = c.pixels ? sq / (3.0 * c.pixels) : 0;
  c.psnr_db = mse > 0 ? 10.0 * std::log10(1.0 / mse) : std::numeric_limits<double>::infinity();
  return c;
}

std::string Comparison::summary() const {
  if (size_mismatch) return "images differ in size";
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "max |diff| r %.3g g %.3g b %.3g a %.3g; %lld of %lld pixels over tolerance; "
                "PSNR %.2f dB",
                max_abs[0], max_abs[1], max_abs[2], max_abs[3],
                static_cast<long long>(over_tolerance), static_cast<long long>(pixels), psnr_db);
  return buf;
}

Image difference_image(const Image& reference, const Image& test, float gain) {
  Image out(reference.width, reference.height);
  if (reference.width != test.width || reference.height != test.height) return out;
  for (std::size_t k = 0; k < reference.pixels.size(); ++k) {
    float a[4], b[4];
    channels(reference.pixels[k], a);
    channels(test.pixels[k], b);
    out.pixels[k] = Float4{clampf(std::fabs(a[0] - b[0]) * gain, 0.f, 1.f),
                           clampf(std::fabs(a[1] - b[1]) * gain, 0.f, 1.f),
                           clampf(std::fabs(a[2] - b[2]) * gain, 0.f, 1.f), 1.f};
  }
  return out;
}

}  // namespace circles
