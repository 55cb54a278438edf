#include "render/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "render/raster.h"

namespace circles {

namespace {

void channels(const Float4& p, float out[4]) {
  out[0] = p.x;
  out[1] = p.y;
  out[2] = p.z;
  out[3] = p.w;
}

// |a - b| / max(1, |a|): absolute where the reference is in [-1, 1], relative beyond.
float scaled_difference(float a, float b) { return std::fabs(a - b) / std::max(1.f, std::fabs(a)); }

}  // namespace

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
      const float s = scaled_difference(a[ch], b[ch]);
      if (!(d <= c.max_abs[ch])) c.max_abs[ch] = d;  // NaN sticks as the max
      if (!(s <= c.max_scaled[ch])) c.max_scaled[ch] = s;
      if (!(s <= tolerance)) over = true;
      if (std::memcmp(&a[ch], &b[ch], sizeof(float)) != 0) ++c.floats_differ;
      const int steps = std::abs(static_cast<int>(to_byte(a[ch])) - static_cast<int>(to_byte(b[ch])));
      if (steps) {
        ++c.bytes_differ;
        c.max_steps = std::max(c.max_steps, steps);
      }
      if (ch < 3) {
        const float shown = clampf(a[ch], 0.f, 1.f) - clampf(b[ch], 0.f, 1.f);
        sq += static_cast<double>(shown) * shown;
      }
    }
    c.over_tolerance += over ? 1 : 0;
  }
  const double mse = c.pixels ? sq / (3.0 * c.pixels) : 0;
  c.psnr_db = mse > 0 ? 10.0 * std::log10(1.0 / mse) : std::numeric_limits<double>::infinity();
  return c;
}

std::string Comparison::summary() const {
  if (size_mismatch) return "images differ in size";
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "max |diff| r %.3g g %.3g b %.3g a %.3g (relative above 1: r %.3g g %.3g b %.3g a %.3g); "
                "%lld of %lld pixels over tolerance; floats: %lld of %lld values differ; 8-bit: %lld values "
                "differ, by up to %d step%s; PSNR %.2f dB",
                max_abs[0], max_abs[1], max_abs[2], max_abs[3], max_scaled[0], max_scaled[1], max_scaled[2],
                max_scaled[3], static_cast<long long>(over_tolerance), static_cast<long long>(pixels),
                static_cast<long long>(floats_differ), static_cast<long long>(4 * pixels),
                static_cast<long long>(bytes_differ), max_steps, max_steps == 1 ? "" : "s", psnr_db);
  return buf;
}

Image difference_image(const Image& reference, const Image& test, float gain) {
  Image out(reference.width, reference.height);
  if (reference.width != test.width || reference.height != test.height) return out;
  for (std::size_t k = 0; k < reference.pixels.size(); ++k) {
    float a[4], b[4];
    channels(reference.pixels[k], a);
    channels(test.pixels[k], b);
    out.pixels[k] = Float4{clampf(scaled_difference(a[0], b[0]) * gain, 0.f, 1.f),
                           clampf(scaled_difference(a[1], b[1]) * gain, 0.f, 1.f),
                           clampf(scaled_difference(a[2], b[2]) * gain, 0.f, 1.f), 1.f};
  }
  return out;
}

}  // namespace circles
