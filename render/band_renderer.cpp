// A band of rows of a frame on the CPU (render/band_renderer.h): cpu-ref's loop, circle by circle
// in order, over the band's rows only, with the whole frame's pixel centres and backgrounds; with
// threads, stripes of rows are shaded in parallel, each stripe's circles binned in order first.
#include "render/band_renderer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "render/cpu_renderers.h"
#include "render/interrupt.h"
#include "render/progress.h"
#include "render/raster.h"
#include "render/stripes.h"

namespace circles {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

class BandRenderer final : public Renderer {
 public:
  BandRenderer(int first_row, int rows, unsigned threads) : first_(first_row), rows_(rows), threads_(threads) {}

  void load(const Scene& scene, int width, int height) override {
    if (width < 1 || height < 1 || first_ < 0 || rows_ < 0 || first_ > height - rows_)
      throw std::invalid_argument("band of rows " + std::to_string(first_) + ".." + std::to_string(first_ + rows_ - 1) +
                                  " does not lie in a " + std::to_string(width) + "x" + std::to_string(height) +
                                  " frame");
    scene_ = scene;
    view_ = make_view(width, height);
    image_ = Image(width, rows_);
    px_.resize(width);
    py_.resize(rows_);
    for (int i = 0; i < width; ++i) px_[i] = view_.pixel_x(i);
    for (int j = 0; j < rows_; ++j) py_[j] = view_.pixel_y(first_ + j);  // the frame's rows, not the band's
  }

  void advance() override {
    const auto t0 = Clock::now();
    if (threads_ == 1) {
      animate_circles(&scene_, 0, scene_.circles.size());
    } else {
      scene_.circles.edit();  // owned here, before the threads change it
      parallel_for(scene_.circles.size(), 1 << 14,
                   [](void* s, std::size_t b, std::size_t e) { animate_circles(static_cast<Scene*>(s), b, e); },
                   &scene_, threads_);
    }
    ++scene_.frame;
    animate_ms_ = ms_since(t0);
  }

  void seek(std::int64_t frame) override {
    if (scene_.animation == Animation::None) scene_.frame = std::max(scene_.frame, frame);
    while (scene_.frame < frame) {
      stop_if_interrupted();  // between frames: the scene stays a whole frame's
      advance();
    }
  }

  void render() override {
    const auto t0 = Clock::now();
    if (threads_ == 1) draw_in_order();
    else draw_in_stripes();
    render_ms_ = ms_since(t0);
  }

  void read_image(Image* out) override { *out = image_; }
  void read_rgba8(std::uint8_t* dst) override { to_rgba8_bottom_up(image_, dst); }
  Float4 read_pixel(int i, int j) override { return image_.at(i, j); }
  std::int64_t frame() const override { return scene_.frame; }
  std::vector<StageTiming> timings(bool /*wait*/) const override {
    return {{"animate", animate_ms_}, {"render", render_ms_}};
  }

 private:
  // Band rows [b0, b1] (band indices) that circle c may cover: the frame's span, clamped to them.
  void rows_of(const Circle& c, int b0, int b1, int* lo, int* hi) const {
    pixel_span(c.y, c.radius, view_.scale, view_.off_y, view_.height, lo, hi);
    *lo = std::max(*lo - first_, b0);
    *hi = std::min(*hi - first_, b1);
  }

  void clear(int b0, int b1) {
    for (int j = b0; j <= b1; ++j)
      std::fill_n(&image_.at(0, j), view_.width, background_at(scene_.background, first_ + j, view_.height));
  }

  // Circle c over band rows [j0, j1] and its columns.
  void blend(const Circle& c, int j0, int j1) {
    int i0, i1;
    pixel_span(c.x, c.radius, view_.scale, view_.off_x, view_.width, &i0, &i1);
    for (int j = j0; j <= j1; ++j) blend_row(scene_.shading, c, px_.data(), py_[j], &image_.at(0, j), i0, i1);
  }

  void draw_in_order() {
    if (rows_ == 0) return;
    clear(0, rows_ - 1);
    const std::size_t n = scene_.circles.size();
    for (std::size_t k = 0; k < n; ++k) {
      stop_if_interrupted();
      if ((k & 4095) == 0) progress_within(static_cast<double>(k) / n);
      const Circle& c = scene_.circles[k];
      int j0, j1;
      rows_of(c, 0, rows_ - 1, &j0, &j1);
      if (j0 <= j1) blend(c, j0, j1);
    }
  }

  // The band drawn in stripes of rows on the threads (draw_in_stripes, render/stripes.h).
  void draw_in_stripes() {
    circles::draw_in_stripes(
        rows_, scene_.circles.size(), threads_, &bins_,
        [this](std::size_t idx, int* j0, int* j1) {
          rows_of(scene_.circles[idx], 0, rows_ - 1, j0, j1);
          return *j0 <= *j1;
        },
        [this](int s, int b0, int b1) { shade_stripe(s, b0, b1); });
  }

  // Stripe s, band rows [b0, b1]: their backgrounds, then its binned circles in order.
  void shade_stripe(int s, int b0, int b1) {
    clear(b0, b1);
    for (const auto& chunk_bins : bins_)
      for (std::uint32_t idx : chunk_bins[s]) {
        const Circle& c = scene_.circles[idx];
        int j0, j1;
        rows_of(c, b0, b1, &j0, &j1);
        if (j0 <= j1) blend(c, j0, j1);
      }
  }

  const int first_, rows_;
  const unsigned threads_;
  Scene scene_;
  View view_;
  Image image_;
  std::vector<float> px_, py_;  // pixel centres of the columns and of the band's rows
  double animate_ms_ = 0, render_ms_ = 0;
  StripeBins bins_;  // [chunk][stripe] -> circle ids
};

}  // namespace

std::unique_ptr<Renderer> make_band_renderer(int first_row, int rows, unsigned threads) {
  return std::make_unique<BandRenderer>(first_row, rows, threads);
}

}  // namespace circles
