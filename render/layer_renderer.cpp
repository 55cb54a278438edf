// A layer of a range of circles on the CPU (render/layer_renderer.h): cpu-ref's loop, circle by
// circle in order over each circle's pixel box, blending C and S through blend_circle and T after
// it; with threads, stripes of rows are shaded in parallel, each stripe's circles binned in order
// first (the band renderer's way: draw_in_stripes, render/stripes.h). Animation steps each circle
// of the range with its index in the whole scene.
#include "render/layer_renderer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "render/animate.h"
#include "render/cpu_renderers.h"
#include "render/interrupt.h"
#include "render/progress.h"
#include "render/raster.h"
#include "render/stripes.h"

namespace circles {

CircleRange take_circle_range(Scene whole, std::size_t begin, std::size_t end) {
  CircleRange r;
  r.total = whole.circles.size();
  end = std::min(end, r.total);
  begin = std::min(begin, end);
  r.first = begin;
  if (whole.animation == Animation::Fireworks)
    r.bursts.assign(whole.circles.begin(), whole.circles.begin() + std::min<std::size_t>(r.total, kFireworkBursts));
  CircleList part;
  if (whole.circles.is_view()) {
    // The whole list (a view: a few pointers) keeps the mapping alive; the range views into it.
    auto keeper = std::make_shared<const CircleList>(std::move(whole.circles));
    part = CircleList::view(keeper, keeper->data() + begin, end - begin);
  } else {
    part.edit().assign(whole.circles.begin() + begin, whole.circles.begin() + end);
  }
  whole.circles = std::move(part);  // the rest released here
  r.scene = std::move(whole);
  return r;
}

namespace {

// Circle c over pixels [i0, i1] of one layer row (centres px[i], py): blend_circle on C and S,
// then T. Built twice, as cpu-ref's blend_row is (render/cpu_renderers.cpp): with FMA
// instructions and without (glibc's fmaf, correctly rounded too: the same bits either way).
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
__attribute__((target_clones("fma", "default")))
#endif
void blend_layer_row(Shading shading, const Circle& c, const float* px, float py, LayerPixel* row, int i0, int i1) {
  for (int i = i0; i <= i1; ++i) {
    float a = 0.f;
    if (blend_circle(shading, px[i], py, c.x, c.y, c.z, c.radius, c.r, c.g, c.b, c.a, &row[i].c, &a))
      row[i].t = row[i].t * (1.f - a);  // keep = 1 - a, as blend_circle computes it
  }
}

}  // namespace

struct LayerRenderer::State {
  unsigned threads = 1;
  bool bottom = false;
  CircleRange range;
  View view;
  std::vector<float> px, py;  // pixel centres of the columns and rows
  std::vector<LayerPixel> pixels;
  StripeBins bins;  // [chunk][stripe] -> circle ids

  const CircleList& circles() const { return range.scene.circles; }
  LayerPixel* row(int j) { return &pixels[static_cast<std::size_t>(j) * view.width]; }

  // Circles [b, e) of the range moved on one frame, each under its index in the whole scene.
  void animate(std::size_t b, std::size_t e) {
    std::vector<Circle>& cs = range.scene.circles.edit();  // owned before threads share it
    const std::vector<Circle>& bursts = range.bursts;
    auto burst = [&bursts](std::uint32_t k) {
      const Circle& c = bursts[k];
      return Motion{c.x, c.y, c.z, c.radius, c.vx, c.vy};
    };
    const Scene& s = range.scene;
    for (std::size_t i = b; i < e; ++i) {
      Circle& c = cs[i];
      Motion m{c.x, c.y, c.z, c.radius, c.vx, c.vy};
      step_circle(s.animation, s.seed, s.frame, static_cast<std::uint32_t>(range.first + i), &m, burst);
      c.x = m.x, c.y = m.y, c.z = m.z, c.radius = m.radius, c.vx = m.vx, c.vy = m.vy;
    }
  }

  // Rows [j0, j1] at the layer's start: the background (bottom) or nothing (C = S = 0, T = 1).
  void clear(int j0, int j1) {
    for (int j = j0; j <= j1; ++j) {
      LayerPixel start;
      if (bottom) start.c = background_at(range.scene.background, j, view.height);
      std::fill_n(row(j), view.width, start);
    }
  }

  // Circle c over rows [r0, r1] (clamped to its span) and its columns.
  void blend(const Circle& c, int r0, int r1) {
    int i0, i1, j0, j1;
    pixel_span(c.y, c.radius, view.scale, view.off_y, view.height, &j0, &j1);
    j0 = std::max(j0, r0), j1 = std::min(j1, r1);
    if (j0 > j1) return;
    pixel_span(c.x, c.radius, view.scale, view.off_x, view.width, &i0, &i1);
    for (int j = j0; j <= j1; ++j) blend_layer_row(range.scene.shading, c, px.data(), py[j], row(j), i0, i1);
  }

  void draw_in_order() {
    clear(0, view.height - 1);
    const std::size_t n = circles().size();
    for (std::size_t k = 0; k < n; ++k) {
      stop_if_interrupted();
      if ((k & 4095) == 0) progress_within(static_cast<double>(k) / n);
      blend(circles()[k], 0, view.height - 1);
    }
  }

  // The layer drawn in stripes of rows on the threads (draw_in_stripes, render/stripes.h).
  void draw_in_stripes() {
    circles::draw_in_stripes(
        view.height, circles().size(), threads, &bins,
        [this](std::size_t idx, int* j0, int* j1) { return rows_of(circles()[idx], j0, j1); },
        [this](int s, int r0, int r1) { shade_stripe(s, r0, r1); });
  }

  // Whether circle c may touch the layer (its row and column spans both non-empty), its rows [j0, j1].
  bool rows_of(const Circle& c, int* j0, int* j1) const {
    int i0, i1;
    pixel_span(c.y, c.radius, view.scale, view.off_y, view.height, j0, j1);
    pixel_span(c.x, c.radius, view.scale, view.off_x, view.width, &i0, &i1);
    return *j0 <= *j1 && i0 <= i1;
  }

  // Stripe s, rows [r0, r1]: its start, then its binned circles in order.
  void shade_stripe(int s, int r0, int r1) {
    clear(r0, r1);
    for (const auto& chunk_bins : bins)
      for (std::uint32_t idx : chunk_bins[s]) blend(circles()[idx], r0, r1);
  }
};

LayerRenderer::LayerRenderer(unsigned threads, bool bottom) : s_(std::make_unique<State>()) {
  s_->threads = threads;
  s_->bottom = bottom;
}

LayerRenderer::~LayerRenderer() = default;

void LayerRenderer::load(CircleRange range, int width, int height) {
  if (width < 1 || height < 1)
    throw std::invalid_argument("a layer of " + std::to_string(width) + "x" + std::to_string(height) + " pixels");
  if (range.scene.circles.size() > std::size_t{0xffffffffu})
    throw std::invalid_argument("a layer takes at most 2^32 - 1 circles");
  State& s = *s_;
  s.range = std::move(range);
  s.view = make_view(width, height);
  s.pixels.assign(static_cast<std::size_t>(width) * height, LayerPixel{});
  s.px.resize(width);
  s.py.resize(height);
  for (int i = 0; i < width; ++i) s.px[i] = s.view.pixel_x(i);
  for (int j = 0; j < height; ++j) s.py[j] = s.view.pixel_y(j);
}

void LayerRenderer::advance() {
  State& s = *s_;
  if (s.threads == 1) {
    s.animate(0, s.circles().size());
  } else {
    s.range.scene.circles.edit();  // owned here, before the threads change it
    parallel_for(s.circles().size(), 1 << 14,
                 [](void* me, std::size_t b, std::size_t e) { static_cast<State*>(me)->animate(b, e); }, &s,
                 s.threads);
  }
  ++s.range.scene.frame;
}

void LayerRenderer::seek(std::int64_t frame) {
  Scene& scene = s_->range.scene;
  if (scene.animation == Animation::None) scene.frame = std::max(scene.frame, frame);
  while (scene.frame < frame) {
    stop_if_interrupted();  // between frames: the circles stay a whole frame's
    advance();
  }
}

void LayerRenderer::render() {
  if (s_->threads == 1) s_->draw_in_order();
  else s_->draw_in_stripes();
}

std::int64_t LayerRenderer::frame() const { return s_->range.scene.frame; }
int LayerRenderer::width() const { return s_->view.width; }
int LayerRenderer::height() const { return s_->view.height; }
const std::vector<LayerPixel>& LayerRenderer::pixels() const { return s_->pixels; }

std::int64_t layered_depth_limit(float max_colour, std::int64_t layers) {
  if (layers <= 1) return std::numeric_limits<std::int64_t>::max();
  const double w = std::exp2(std::ceil(std::log2(std::max(1.0, static_cast<double>(max_colour)))));
  const double u = 1.0 / 16777216.0;
  auto holds = [&](double d) {
    return w * (1.5 * d + std::min(d, static_cast<double>(layers - 1)) + 0.5 * d * d * u) <= 65792.0;
  };
  // The least depth where it fails: holds() is monotonic in d, and fails by d = 2^16.
  std::int64_t lo = 0, hi = std::int64_t{1} << 16;
  while (lo < hi) {
    const std::int64_t mid = (lo + hi) / 2;
    if (holds(static_cast<double>(mid))) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

Image composite_layers(const std::vector<const LayerRenderer*>& layers) {
  if (layers.empty()) return {};
  Image img(layers[0]->width(), layers[0]->height());
  for (std::size_t p = 0; p < img.pixels.size(); ++p) {
    Float4 acc = layers[0]->pixels()[p].c;
    for (std::size_t r = 1; r < layers.size(); ++r) composite_onto(&acc, layers[r]->pixels()[p]);
    img.pixels[p] = acc;
  }
  return img;
}

}  // namespace circles
