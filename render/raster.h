// The picture's definition, shared by every renderer (CPU and CUDA compile this same code):
// how pixels map to the unit square, when a circle covers a pixel, how it is shaded and blended.
// Keep it free of anything but correctly rounded arithmetic (+, -, *, /, sqrtf, fmaf) so host and
// device results agree bit for bit: the build turns off FMA contraction on both sides, so every
// fused multiply-add is an explicit fmaf, and snow's falloff uses exp_portable below, not a
// library expf (the CUDA and glibc ones differ in the last bit now and then).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

#include "render/hd.h"
#include "render/scene.h"

namespace circles {

// Framing: the unit square is fitted, centred, into the image: with s = min(W, H), pixel (i, j)
// has its centre at ((i + .5 - (W - s)/2) / s, (j + .5 - (H - s)/2) / s). At square sizes this is
// exactly ((i + .5)/W, (j + .5)/H). Row 0 is the bottom row.
struct View {
  int width = 0, height = 0;
  float scale = 1.f;          // s = min(W, H)
  float off_x = 0.f, off_y = 0.f;  // (W - s)/2, (H - s)/2

  CIRCLES_HD float pixel_x(int i) const { return (static_cast<float>(i) + 0.5f - off_x) / scale; }
  CIRCLES_HD float pixel_y(int j) const { return (static_cast<float>(j) + 0.5f - off_y) / scale; }
};

CIRCLES_HD View make_view(int width, int height) {
  View v;
  v.width = width;
  v.height = height;
  const int s = width < height ? width : height;
  v.scale = static_cast<float>(s);
  v.off_x = 0.5f * static_cast<float>(width - s);
  v.off_y = 0.5f * static_cast<float>(height - s);
  return v;
}

// A channel's 8-bit value, the one definition shared by PNG files (to_rgba8), the interop texture
// and the lab's transpose view: 0 for v <= 0 or NaN, 255 for v >= 1, else round-half-away(v * 255).
CIRCLES_HD unsigned char to_byte(float v) {
  if (!(v > 0.f)) return 0;
  if (v >= 1.f) return 255;
  return static_cast<unsigned char>(roundf(v * 255.f));
}

CIRCLES_HD float clampf(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

// Background colour of row j (0 = bottom) in an image of `height` rows.
CIRCLES_HD Float4 background_at(const Background& bg, int j, int height) {
  if (bg.kind == Background::Kind::Solid) return bg.top;
  const float t = static_cast<float>(height - j) / static_cast<float>(height);
  Float4 c;
  c.x = bg.top.x + (bg.bottom.x - bg.top.x) * t;
  c.y = bg.top.y + (bg.bottom.y - bg.top.y) * t;
  c.z = bg.top.z + (bg.bottom.z - bg.top.z) * t;
  c.w = bg.top.w + (bg.bottom.w - bg.top.w) * t;
  return c;
}

// e^x from arithmetic alone, so that the host and the GPU get the same bits: x = k ln2 + r with
// |r| <= ln2/2 (ln2 split in two so that k ln2 is exact enough), e^r by a degree-7 polynomial
// (Horner, fmaf), times 2^k built from its bits. Within 2 ulp of e^x for x in [-87, 88]; 0 below,
// infinity above, NaN for NaN. Snow's falloff, e^(-4 nd^2), is its only use (x in [-4.1, 0]).
CIRCLES_HD float exp_portable(float x) {
  if (x != x) return x;
  if (x < -87.f) return 0.f;
  if (x > 88.f) return INFINITY;
  const float k = rintf(x * 1.44269504f);  // round to nearest: |r| <= ln2/2
  float r = fmaf(k, -0.693145752f, x);      // ln2's high part (k * it is exact: 16 bits of ln2)
  r = fmaf(k, -1.42860677e-6f, r);          // and its low part
  float p = 1.98412698e-4f;                 // 1/7!, 1/6!, ... 1/2!, 1, 1
  p = fmaf(p, r, 1.38888889e-3f);
  p = fmaf(p, r, 8.33333333e-3f);
  p = fmaf(p, r, 4.16666667e-2f);
  p = fmaf(p, r, 1.66666667e-1f);
  p = fmaf(p, r, 0.5f);
  p = fmaf(p, r, 1.f);
  p = fmaf(p, r, 1.f);
  const std::uint32_t bits = static_cast<std::uint32_t>(static_cast<int>(k) + 127) << 23;  // 2^k, k in [-126, 127]
  float scale;
#if defined(__CUDA_ARCH__)
  scale = __uint_as_float(bits);
#else
  std::memcpy(&scale, &bits, sizeof scale);
#endif
  return p * scale;
}

// The snow ramp: 5 colour stops spread over normalised distance [0, 1].
// The stops are selected, not indexed from arrays: an array indexed at run time lives in a GPU
// thread's local memory (stack stores and loads for every covered pixel).
CIRCLES_HD float snow_stop_r(int i) { return i < 2 ? 1.f : .8f; }            // 1, 1, .8, .8, .8
CIRCLES_HD float snow_stop_g(int i) { return i < 2 ? 1.f : (i < 4 ? .9f : .8f); }  // 1, 1, .9, .9, .8
CIRCLES_HD void snow_ramp(float nd, float* r, float* g, float* b) {
  const float t = nd * 4.f;
  int base = static_cast<int>(t);
  base = base < 4 ? base : 4;
  const int next = base + 1 < 4 ? base + 1 : 4;
  const float f = t - static_cast<float>(base);
  *r = snow_stop_r(base) + (snow_stop_r(next) - snow_stop_r(base)) * f;
  *g = snow_stop_g(base) + (snow_stop_g(next) - snow_stop_g(base)) * f;
  *b = 1.f;  // every stop is 1
}

// The coverage test, one definition for every renderer: a circle of radius^2 rr covers the pixel
// centre at (dx, dy) from its centre when
//   dx*dx (rounded) <= rr - dy*dy (coverage_limit: one fmaf, dy*dy exact, rounded once),
// fmaf being correctly rounded on the host and the GPU alike, so they agree to the bit. The
// right-hand side depends on the row only (dy) and the left on the column only (dx): a kernel
// computes the row's limit once for every pixel of the row, or a lane's dx*dx once for its column,
// and then tests a pixel with one compare. Monotonic in |dx| and |dy| (rounding is), as the box
// tests below need. (Until 2026-11-26 the test was fmaf(dy, dy, dx*dx) <= rr, which differs from
// this one only where the two roundings fall on either side of rr.)
CIRCLES_HD float coverage_limit(float dy, float rr) { return fmaf(-dy, dy, rr); }
CIRCLES_HD bool covers_dx2(float dx2, float dy, float rr) { return dx2 <= coverage_limit(dy, rr); }
CIRCLES_HD bool covers_point(float dx, float dy, float rr) { return covers_dx2(dx * dx, dy, rr); }

// The squared distance dx*dx + dy*dy in one fmaf: snow's falloff, and the culling tests (whose
// radius has slack many ulps wide, so the rounding never matters there).
CIRCLES_HD float coverage_d2_dx2(float dx2, float dy) { return fmaf(dy, dy, dx2); }
CIRCLES_HD float coverage_d2(float dx, float dy) { return coverage_d2_dx2(dx * dx, dy); }

// Blends circle (cx, cy, cz, rad, color) over `dst` at pixel centre (px, py) if it covers it
// (covers_point(dx, dy, r^2)): rgb = (1-a)*rgb + a*c, alpha accumulates. Returns whether it
// covered; the alpha it blended with goes to *used_alpha when given (the pixel inspector).
// A channel is fmaf(1 - a, rgb, a*c): one rounding for the product and the sum, which is what a
// GPU kernel does with the colour premultiplied once (a*c rounded) and one FMA a blend, so the
// fast kernels draw this picture to the bit.
CIRCLES_HD bool blend_circle(Shading shading, float px, float py, float cx, float cy, float cz,
                             float rad, float cr, float cg, float cb, float ca, Float4* dst,
                             float* used_alpha = nullptr) {
  const float dx = px - cx;
  const float dy = py - cy;
  if (!covers_point(dx, dy, rad * rad)) return false;
  float r = cr, g = cg, b = cb, a = ca;
  if (shading == Shading::Snow) {
    const float nd = sqrtf(coverage_d2(dx, dy)) / rad;
    snow_ramp(nd, &r, &g, &b);
    const float max_alpha = ca * clampf(.6f + .4f * (1.f - cz), 0.f, 1.f);
    a = max_alpha * exp_portable(-4.f * nd * nd);
  }
  if (used_alpha) *used_alpha = a;
  const float keep = 1.f - a;
  dst->x = fmaf(keep, dst->x, a * r);
  dst->y = fmaf(keep, dst->y, a * g);
  dst->z = fmaf(keep, dst->z, a * b);
  dst->w = dst->w + a;
  return true;
}

// Pixels of slack for any bounding box of a circle (cpu-ref's span, cuda-tile-binned's tiles):
// one pixel, plus enough to cover float rounding in blend_circle's dx = px - cx at this
// magnitude (a few ulps of |c| + r, in pixels). Bounding boxes only cull; they must never drop a
// pixel that blend_circle would cover.
CIRCLES_HD float span_slack(float c, float r, float scale) {
  const float mag = (c < 0.f ? -c : c) + r;
  return 1.f + 4.f * mag * scale * 1.1920929e-7f;
}

// The squared radius the culling tests compare with: the radius plus slack that absorbs rounding,
// so that culling never drops a circle that blend_circle would draw.
CIRCLES_HD float cull_radius_sq(float rad) {
  const float rr = rad * 1.0001f + 1e-6f;
  return rr * rr;
}

// Conservative circle-box test with the culling radius^2 (cull_radius_sq) given: true when the
// circle may cover a pixel centre inside the box [x0, x1] x [y0, y1] (box given by its extreme
// pixel centres).
CIRCLES_HD bool circle_touches_box_sq(float cx, float cy, float cull_rr, float x0, float y0, float x1, float y1) {
  const float qx = clampf(cx, x0, x1);
  const float qy = clampf(cy, y0, y1);
  const float dx = cx - qx;
  const float dy = cy - qy;
  return dx * dx + dy * dy <= cull_rr;
}

// Conservative circle-box test: true when the circle may cover a pixel centre inside the box
// [x0, x1] x [y0, y1] (box given by its extreme pixel centres). Slack absorbs rounding so that
// culling never drops a circle that blend_circle would draw.
CIRCLES_HD bool circle_touches_box(float cx, float cy, float rad, float x0, float y0, float x1,
                                   float y1) {
  return circle_touches_box_sq(cx, cy, cull_radius_sq(rad), x0, y0, x1, y1);
}

// Whether the circle covers every pixel centre of the box [x0, x1] x [y0, y1] by blend_circle's
// own test, so the box needs no per-pixel test: the farthest corner's distance, computed as
// blend_circle tests every pixel (dx = px - cx, then covers_point), with rr = radius * radius.
// Rounding is monotonic, so no pixel centre inside the box comes out farther than that corner.
CIRCLES_HD bool circle_covers_box(float cx, float cy, float rr, float x0, float y0, float x1, float y1) {
  const float fx = fmaxf(fabsf(x0 - cx), fabsf(x1 - cx));
  const float fy = fmaxf(fabsf(y0 - cy), fabsf(y1 - cy));
  return covers_point(fx, fy, rr);
}

}  // namespace circles
