// cpu-ref: for each circle in order, each pixel of its bounding box. The definition of the picture.
// cpu-mt: circles binned into 32x32 tiles (in order), then threads shade whole tiles; each pixel
// sees the same circles in the same order through the same blend_circle, so it is bit-identical.
#include "render/cpu_renderers.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

#include "render/animate.h"
#include "render/interrupt.h"
#include "render/progress.h"
#include "render/raster.h"
#include "render/renderer.h"

namespace circles {

void parallel_for(std::size_t n, std::size_t chunk, void (*fn)(void*, std::size_t, std::size_t),
                  void* ctx, unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t chunks = (n + chunk - 1) / chunk;
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, chunks));
  if (threads <= 1) {
    if (n) fn(ctx, 0, n);
    return;
  }
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t c; (c = next.fetch_add(1)) < chunks;)
      fn(ctx, c * chunk, std::min(n, (c + 1) * chunk));
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
}

// Blends circle c over pixels [i0, i1] of one row (centres px[i], py). Built twice, the CPU
// picking one at load time (GCC's target_clones): with FMA instructions, where blend_circle's
// fmaf is one instruction, and without, where it is glibc's fmaf (a call; correctly rounded
// either way, so the picture is the same to the bit). The call made cpu-ref 40% slower.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
__attribute__((target_clones("fma", "default")))
#endif
void blend_row(Shading shading, const Circle& c, const float* px, float py, Float4* row, int i0, int i1) {
  for (int i = i0; i <= i1; ++i)
    blend_circle(shading, px[i], py, c.x, c.y, c.z, c.radius, c.r, c.g, c.b, c.a, &row[i]);
}

// Pixel index range [lo, hi] (clamped to [0, n-1]) whose centres may lie within [c - r, c + r];
// span_slack pixels of margin on each side absorb rounding. Empty when lo > hi.
void pixel_span(float c, float r, float scale, float off, int n, int* lo, int* hi) {
  const double slack = span_slack(c, r, scale);
  const double a = (static_cast<double>(c) - r) * scale + off - 0.5 - slack;
  const double b = (static_cast<double>(c) + r) * scale + off - 0.5 + slack;
  *lo = static_cast<int>(std::max(0.0, std::min(static_cast<double>(n), std::floor(a))));
  *hi = static_cast<int>(std::max(-1.0, std::min(static_cast<double>(n - 1), std::ceil(b))));
}

void animate_circles(Scene* scene, std::size_t begin, std::size_t end) {
  std::vector<Circle>& cs = scene->circles.edit();  // owned before threads share it (CpuMt)
  auto burst = [&cs](std::uint32_t k) {
    const Circle& b = cs[k];
    return Motion{b.x, b.y, b.z, b.radius, b.vx, b.vy};
  };
  for (std::size_t i = begin; i < end; ++i) {
    Circle& c = cs[i];
    Motion m{c.x, c.y, c.z, c.radius, c.vx, c.vy};
    step_circle(scene->animation, scene->seed, scene->frame, static_cast<std::uint32_t>(i), &m,
                burst);
    c.x = m.x, c.y = m.y, c.z = m.z, c.radius = m.radius, c.vx = m.vx, c.vy = m.vy;
  }
}

void advance_scene(Scene* scene, std::int64_t frames, Progress* progress) {
  if (scene->animation == Animation::None) {
    scene->frame += frames;
    return;
  }
  if (progress) progress->restart("advance to frame " + std::to_string(scene->frame + frames), static_cast<double>(frames));
  for (std::int64_t f = 0; f < frames; ++f) {
    animate_circles(scene, 0, scene->circles.size());
    ++scene->frame;
    if (progress) progress->update(static_cast<double>(f + 1), "frame " + std::to_string(scene->frame));
  }
}

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}


class CpuRenderer : public Renderer {
 public:
  void load(const Scene& scene, int width, int height) override {
    scene_ = scene;
    view_ = make_view(width, height);
    image_ = Image(width, height);
    // Pixel centres, computed once with the shared View functions (same floats, no division
    // per pixel per circle).
    px_.resize(width);
    py_.resize(height);
    for (int i = 0; i < width; ++i) px_[i] = view_.pixel_x(i);
    for (int j = 0; j < height; ++j) py_[j] = view_.pixel_y(j);
  }

  void advance() override {
    const auto t0 = Clock::now();
    animate();
    ++scene_.frame;
    animate_ms_ = ms_since(t0);
  }

  void render() override {
    const auto t0 = Clock::now();
    draw();
    render_ms_ = ms_since(t0);
  }

  void seek(std::int64_t frame) override {
    if (scene_.animation == Animation::None) scene_.frame = std::max(scene_.frame, frame);
    while (scene_.frame < frame) {
      stop_if_interrupted();  // between frames: the scene stays a whole frame's
      advance();
    }
  }

  void read_image(Image* out) override { *out = image_; }
  void read_rgba8(std::uint8_t* dst) override { to_rgba8_bottom_up(image_, dst); }
  Float4 read_pixel(int i, int j) override { return image_.at(i, j); }
  std::int64_t frame() const override { return scene_.frame; }
  std::vector<StageTiming> timings(bool /*wait*/) const override {
    return {{"animate", animate_ms_}, {"render", render_ms_}};
  }

 protected:
  virtual void draw() = 0;
  virtual void animate() { animate_range(0, scene_.circles.size()); }

  void animate_range(std::size_t begin, std::size_t end) { animate_circles(&scene_, begin, end); }

  void clear_rows(int j0, int j1) {
    for (int j = j0; j < j1; ++j) {
      const Float4 bg = background_at(scene_.background, j, view_.height);
      std::fill_n(&image_.at(0, j), view_.width, bg);
    }
  }

  // Blends circle c over the pixels of [i0, i1] x [j0, j1] (inclusive) that it covers.
  void blend_box(const Circle& c, int i0, int i1, int j0, int j1) {
    const Shading shading = scene_.shading;
    for (int j = j0; j <= j1; ++j) blend_row(shading, c, px_.data(), py_[j], &image_.at(0, j), i0, i1);
  }

  Scene scene_;
  View view_;
  Image image_;
  std::vector<float> px_, py_;  // pixel centres of columns and rows
  double animate_ms_ = 0, render_ms_ = 0;
};

class CpuRefRenderer final : public CpuRenderer {
  void draw() override {
    clear_rows(0, view_.height);
    const std::size_t n = scene_.circles.size();
    for (std::size_t k = 0; k < n; ++k) {
      stop_if_interrupted();  // a relaxed load a circle: nothing beside its pixels
      if ((k & 4095) == 0) progress_within(static_cast<double>(k) / n);
      const Circle& c = scene_.circles[k];
      int i0, i1, j0, j1;
      pixel_span(c.x, c.radius, view_.scale, view_.off_x, view_.width, &i0, &i1);
      pixel_span(c.y, c.radius, view_.scale, view_.off_y, view_.height, &j0, &j1);
      blend_box(c, i0, i1, j0, j1);
    }
  }
};

class CpuMtRenderer final : public CpuRenderer {
 public:
  explicit CpuMtRenderer(int tile) : tile_(tile) {}

 private:
  const int tile_;  // pixels per tile side

  void animate() override {
    scene_.circles.edit();  // owned here, before the threads change it
    parallel_for(scene_.circles.size(), 1 << 14,
                 [](void* self, std::size_t b, std::size_t e) {
                   static_cast<CpuMtRenderer*>(self)->animate_range(b, e);
                 },
                 this);
  }

  void draw() override {
    tiles_x_ = (view_.width + tile_ - 1) / tile_;
    tiles_y_ = (view_.height + tile_ - 1) / tile_;
    const std::size_t tiles = static_cast<std::size_t>(tiles_x_) * tiles_y_;
    // Bin: chunk k of the circles fills bins_[k][tile] in circle order; chunks stay in order.
    const std::size_t n = scene_.circles.size();
    const std::size_t chunk = std::max<std::size_t>(4096, (n + 63) / 64);
    const std::size_t chunks = n ? (n + chunk - 1) / chunk : 0;
    bins_.resize(chunks);
    for (auto& b : bins_) {
      b.resize(tiles);
      for (auto& v : b) v.clear();
    }
    bin_chunk_ = chunk;
    // The workers skip what is left once an interrupt is asked for; this thread throws.
    parallel_for(chunks, 1, [](void* self, std::size_t b, std::size_t e) {
      for (std::size_t k = b; k < e && !interrupt_requested(); ++k) static_cast<CpuMtRenderer*>(self)->bin(k);
    }, this);
    stop_if_interrupted();
    tiles_done_ = 0;
    parallel_for(tiles, 1, [](void* self, std::size_t b, std::size_t e) {
      auto* me = static_cast<CpuMtRenderer*>(self);
      for (std::size_t t = b; t < e && !interrupt_requested(); ++t) {
        me->shade_tile(t);
        progress_within(static_cast<double>(++me->tiles_done_) / (static_cast<double>(me->tiles_x_) * me->tiles_y_));
      }
    }, this);
    stop_if_interrupted();
  }

  void bin(std::size_t k) {
    const std::size_t begin = k * bin_chunk_;
    const std::size_t end = std::min(scene_.circles.size(), begin + bin_chunk_);
    std::vector<std::vector<std::uint32_t>>& out = bins_[k];
    for (std::size_t idx = begin; idx < end; ++idx) {
      const Circle& c = scene_.circles[idx];
      int i0, i1, j0, j1;
      pixel_span(c.x, c.radius, view_.scale, view_.off_x, view_.width, &i0, &i1);
      pixel_span(c.y, c.radius, view_.scale, view_.off_y, view_.height, &j0, &j1);
      if (i0 > i1 || j0 > j1) continue;
      for (int ty = j0 / tile_; ty <= j1 / tile_; ++ty)
        for (int tx = i0 / tile_; tx <= i1 / tile_; ++tx)
          out[static_cast<std::size_t>(ty) * tiles_x_ + tx].push_back(static_cast<std::uint32_t>(idx));
    }
  }

  void shade_tile(std::size_t t) {
    const int tx = static_cast<int>(t % tiles_x_), ty = static_cast<int>(t / tiles_x_);
    const int ti0 = tx * tile_, ti1 = std::min(view_.width, ti0 + tile_) - 1;
    const int tj0 = ty * tile_, tj1 = std::min(view_.height, tj0 + tile_) - 1;
    for (int j = tj0; j <= tj1; ++j) {
      const Float4 bg = background_at(scene_.background, j, view_.height);
      std::fill(&image_.at(ti0, j), &image_.at(ti1, j) + 1, bg);
    }
    for (const auto& chunk_bins : bins_) {
      for (std::uint32_t idx : chunk_bins[t]) {
        const Circle& c = scene_.circles[idx];
        int i0, i1, j0, j1;
        pixel_span(c.x, c.radius, view_.scale, view_.off_x, view_.width, &i0, &i1);
        pixel_span(c.y, c.radius, view_.scale, view_.off_y, view_.height, &j0, &j1);
        blend_box(c, std::max(i0, ti0), std::min(i1, ti1), std::max(j0, tj0), std::min(j1, tj1));
      }
    }
  }

  int tiles_x_ = 0, tiles_y_ = 0;
  std::size_t bin_chunk_ = 1;
  std::atomic<std::size_t> tiles_done_{0};  // for the progress line
  std::vector<std::vector<std::vector<std::uint32_t>>> bins_;  // [chunk][tile] -> circle ids
};

}  // namespace

std::unique_ptr<Renderer> make_cpu_ref_renderer(const RendererSettings&) {
  return std::make_unique<CpuRefRenderer>();
}
std::unique_ptr<Renderer> make_cpu_mt_renderer(const RendererSettings& settings) {
  return std::make_unique<CpuMtRenderer>(settings.tile_size);
}

}  // namespace circles
