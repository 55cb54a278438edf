// The viewer's pure parts (no GL, no ImGui): the window layout, where the frame is drawn for a
// given pan and zoom, rolling histories and medians for the timings, and the heat map's colours.
// Unit-tested in tests/viewer/.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "app/gl/placement.h"
#include "render/image.h"

namespace circles {

// Width of the panel column on the left, in ImGui (window) coordinates at UI scale 1 (it grows
// with --ui-scale: panel_width). The scene area is the rest of the window; at the default view its
// pixels show the frame 1:1.
constexpr int kPanelWidth = 360;
inline int panel_width(float ui_scale) { return static_cast<int>(kPanelWidth * ui_scale + 0.5f); }
// The column's scale for a UI scale and a font size in pixels (0: 13 x the scale): it follows the
// font where that is larger, so a line that fits at 13 px fits at any size.
inline float column_scale(float ui_scale, float font_px) { return font_px / 13.f > ui_scale ? font_px / 13.f : ui_scale; }
// The offscreen "window" size when -s is not given.
constexpr int kDefaultOffscreenWidth = 1280, kDefaultOffscreenHeight = 720;
// The window size at start-up.
constexpr int kDefaultWindowWidth = 1280, kDefaultWindowHeight = 720;
// Smallest window that leaves a usable scene area.
constexpr int kMinWindowWidth = kPanelWidth + 32, kMinWindowHeight = 120;


// The scene area of a framebuffer of fb_w x fb_h pixels (pixel_scale framebuffer pixels per
// window coordinate; the panels at ui_scale): everything right of the panel column; never smaller
// than 1x1.
PixelRect scene_area(int fb_w, int fb_h, float pixel_scale, float ui_scale = 1.f);

// The user's view: zoom relative to "fit the frame in the scene area", pan in pixels.
struct ViewState {
  double zoom = 1.0;
  double pan_x = 0.0, pan_y = 0.0;
  bool is_default() const { return zoom == 1.0 && pan_x == 0.0 && pan_y == 0.0; }
};


// Fits the frame in `area` keeping its aspect (letterboxing the rest), centred, then applies
// the view's zoom and pan. A frame the size of the area is placed 1:1 at the area's corner.
Placement place_frame(const PixelRect& area, int img_w, int img_h, const ViewState& view);
// Zooms by `factor` keeping the frame point under framebuffer pixel (px, py) where it is.
void zoom_about(ViewState* view, const PixelRect& area, int img_w, int img_h, double px, double py,
                double factor);

// The render size: the largest square in the scene area (the scene's unit square fills the frame,
// letterboxed), unless a fixed size is given (fixed_w, fixed_h > 0).
void render_size_for(const PixelRect& area, int fixed_w, int fixed_h, int* w, int* h);

// The last kSize values of a series, for ImGui::PlotLines (values(), count(), offset()).
class History {
 public:
  static constexpr int kSize = 240;
  void push(float v);
  void clear();
  int count() const { return count_; }
  // Index of the oldest value in values() once the ring is full (PlotLines' values_offset).
  int offset() const { return count_ < kSize ? 0 : next_; }
  const float* values() const { return values_.data(); }
  float latest() const;
  float max() const;
  // Median of the newest `n` values (all of them when fewer): the figure a panel shows as current.
  float recent_median(int n) const;
  // The k-th newest value (k = 0: the latest); 0 when there are not that many.
  float back(int k) const;

 private:
  std::array<float, kSize> values_{};
  int next_ = 0, count_ = 0;
};

// The stage chart's columns, oldest first: for each of the newest `columns` frames, one value per
// series (in series order), stacked by the chart. Column c holds each series' c-th newest sample
// counted from the right, so the series line up on their newest samples (GPU times arrive a
// frame or two late, and not for every frame); 0 where a series has no sample that old.
std::vector<std::vector<float>> stacked_columns(const std::vector<const History*>& series, int columns);

// The tile heat maps' colour ramp: t in [0, 1] (clamped) from dark blue through magenta and
// orange to pale yellow, every step brighter than the last, so order reads without the legend.
std::array<std::uint8_t, 3> heat_colour(float t);
// The heat map's texels: `values` (width x height, row 0 = bottom) through heat_colour from lo
// to hi, opaque, bottom row first (a texture's order).
std::vector<std::uint8_t> heat_texels(const std::vector<float>& values, int width, int height, float lo, float hi);

// median() of a timing series: render/stats.h.


}  // namespace circles
