// The picture's definition, shared by every renderer (CPU and CUDA compile this same code):
// how pixels map to the unit square, when a circle covers a pixel, how it is shaded and blended.
// Keep it free of anything but arithmetic so host and device results agree bit for bit (the
// build turns off FMA contraction on both sides, so every fused multiply-add is an explicit fmaf,
// correctly rounded on both; only expf in snow shading may differ by an ulp).
#pragma once
#include <cmath>

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
// (covers_point(dx, dy, r^2)): rgb = a*c + (1-a)*rgb, alpha accumulates. Returns whether it covered; the
// alpha it blended with goes to *used_alpha when given (the pixel inspector).
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
    a = max_alpha * expf(-4.f * nd * nd);
  }
  if (used_alpha) *used_alpha = a;
  const float keep = 1.f - a;
  dst->x = a * r + keep * dst->x;
  dst->y = a * g + keep * dst->y;
  dst->z = a * b + keep * dst->z;
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
