#include "app/viewer/viewer_layout.h"

#include <algorithm>
#include <cmath>

namespace circles {

PixelRect scene_area(int fb_w, int fb_h, float pixel_scale, float ui_scale) {
  const int panel = static_cast<int>(std::lround(panel_width(ui_scale) * static_cast<double>(pixel_scale)));
  PixelRect r;
  r.x = std::min(panel, std::max(fb_w - 1, 0));
  r.y = 0;
  r.w = std::max(fb_w - r.x, 1);
  r.h = std::max(fb_h, 1);
  return r;
}

namespace {
double fit_scale(const PixelRect& area, int img_w, int img_h) {
  return std::min(static_cast<double>(area.w) / img_w, static_cast<double>(area.h) / img_h);
}
}  // namespace

Placement place_frame(const PixelRect& area, int img_w, int img_h, const ViewState& view) {
  Placement p;
  if (img_w < 1 || img_h < 1) return p;
  p.scale = fit_scale(area, img_w, img_h) * view.zoom;
  p.origin_x = std::round(area.x + (area.w - img_w * p.scale) / 2 + view.pan_x);
  p.origin_y = std::round(area.y + (area.h - img_h * p.scale) / 2 + view.pan_y);
  return p;
}

void zoom_about(ViewState* view, const PixelRect& area, int img_w, int img_h, double px, double py,
                double factor) {
  if (img_w < 1 || img_h < 1) return;
  const Placement before = place_frame(area, img_w, img_h, *view);
  // The frame point (in texels) under the cursor.
  const double tx = (px - before.origin_x) / before.scale, ty = (py - before.origin_y) / before.scale;
  view->zoom = std::clamp(view->zoom * factor, 1.0 / 64, 256.0);
  const double scale = fit_scale(area, img_w, img_h) * view->zoom;
  // Choose the pan that puts (tx, ty) back under the cursor.
  view->pan_x = px - tx * scale - (area.x + (area.w - img_w * scale) / 2);
  view->pan_y = py - ty * scale - (area.y + (area.h - img_h * scale) / 2);
}

void render_size_for(const PixelRect& area, int fixed_w, int fixed_h, int* w, int* h) {
  if (fixed_w > 0 && fixed_h > 0) {
    *w = fixed_w;
    *h = fixed_h;
  } else {
    // The largest square in the area: the frame is exactly the scene's unit square, so its edges
    // are the frame's, set off by the letterbox, instead of circles spilling into side bands.
    *w = *h = std::max(std::min(area.w, area.h), 1);
  }
}

void History::push(float v) {
  values_[static_cast<std::size_t>(next_)] = v;
  next_ = (next_ + 1) % kSize;
  count_ = std::min(count_ + 1, kSize);
}

void History::clear() {
  next_ = count_ = 0;
}

float History::latest() const {
  if (count_ == 0) return 0.f;
  return values_[static_cast<std::size_t>((next_ + kSize - 1) % kSize)];
}

float History::recent_median(int n) const {
  n = std::min(n, count_);
  if (n <= 0) return 0.f;
  std::vector<float> v(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) v[static_cast<std::size_t>(k)] = values_[static_cast<std::size_t>((next_ + kSize - 1 - k) % kSize)];
  std::nth_element(v.begin(), v.begin() + n / 2, v.end());
  const float upper = v[static_cast<std::size_t>(n / 2)];
  if (n % 2) return upper;
  const float lower = *std::max_element(v.begin(), v.begin() + n / 2);
  return 0.5f * (lower + upper);
}

float History::back(int k) const {
  if (k < 0 || k >= count_) return 0.f;
  return values_[static_cast<std::size_t>((next_ + kSize - 1 - k) % kSize)];
}

std::vector<std::vector<float>> stacked_columns(const std::vector<const History*>& series, int columns) {
  std::vector<std::vector<float>> out(static_cast<std::size_t>(std::max(columns, 0)),
                                      std::vector<float>(series.size(), 0.f));
  for (int c = 0; c < columns; ++c)
    for (std::size_t s = 0; s < series.size(); ++s)
      out[static_cast<std::size_t>(c)][s] = series[s]->back(columns - 1 - c);
  return out;
}

float History::max() const {
  float m = 0.f;
  for (int i = 0; i < count_; ++i) m = std::max(m, values_[static_cast<std::size_t>(i)]);
  return m;
}

std::array<std::uint8_t, 3> heat_colour(float t) {
  static const float stops[][3] = {{0.05f, 0.03f, 0.25f}, {0.45f, 0.08f, 0.55f}, {0.85f, 0.25f, 0.35f},
                                   {0.98f, 0.6f, 0.1f}, {1.f, 0.98f, 0.7f}};
  constexpr int kLast = 4;
  t = !(t > 0.f) ? 0.f : (t > 1.f ? 1.f : t);  // NaN to 0
  const float x = t * kLast;
  const int k = x >= kLast ? kLast - 1 : static_cast<int>(x);
  const float f = x - static_cast<float>(k);
  std::array<std::uint8_t, 3> c{};
  for (int ch = 0; ch < 3; ++ch)
    c[static_cast<std::size_t>(ch)] =
        static_cast<std::uint8_t>(std::lround(255.f * (stops[k][ch] + f * (stops[k + 1][ch] - stops[k][ch]))));
  return c;
}

std::vector<std::uint8_t> heat_texels(const std::vector<float>& values, int width, int height, float lo, float hi) {
  std::vector<std::uint8_t> out(static_cast<std::size_t>(width) * height * 4);
  const float span = hi > lo ? hi - lo : 1.f;
  for (std::size_t k = 0; k < out.size() / 4 && k < values.size(); ++k) {
    const std::array<std::uint8_t, 3> c = heat_colour((values[k] - lo) / span);
    out[4 * k] = c[0];
    out[4 * k + 1] = c[1];
    out[4 * k + 2] = c[2];
    out[4 * k + 3] = 255;
  }
  return out;
}

}  // namespace circles
