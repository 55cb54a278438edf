// A layer: a contiguous range of a scene's circles drawn on the CPU over the whole frame without
// what lies under them, so that layers drawn apart (the ranks of an MPI render split by circles,
// docs/SCALE.md) composite into the picture. Per pixel it holds the premultiplied colour C
// (start 0), the transmittance T (start 1) and the alpha sum S (start 0), and blends each circle
// that covers the pixel, in order, through blend_circle itself (render/raster.h: the same coverage
// test, the same snow shading, C = fmaf(keep, C, a*col), S = S + a), then T = T * keep with
// keep = 1 - a. In real numbers the layer's pixel drawn over a value x gives C + T*x (S + x for
// alpha): composite_onto below.
// The bottom layer (the scene's first circles) starts from the frame's background instead (C and
// S the row's background, as cpu-ref starts), so it is cpu-ref's image of those circles, to the bit.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "render/image.h"
#include "render/scene.h"

namespace circles {

// One pixel of a layer: c.x, c.y, c.z the colour C (premultiplied), c.w the alpha sum S, t the
// transmittance T. 20 bytes, no padding: a layer's rows go into MPI messages as they lie.
struct LayerPixel {
  Float4 c;
  float t = 1.f;
};
static_assert(sizeof(LayerPixel) == 5 * sizeof(float), "LayerPixel must be five packed floats");

// `over` (a layer drawn after, in front) composited onto `acc` (what lies under it), in place:
// each colour channel fmaf(T, acc, C), one rounding; alpha acc + S. The one expression every
// composite uses.
inline void composite_onto(Float4* acc, const LayerPixel& over) {
  acc->x = fmaf(over.t, acc->x, over.c.x);
  acc->y = fmaf(over.t, acc->y, over.c.y);
  acc->z = fmaf(over.t, acc->z, over.c.z);
  acc->w = acc->w + over.c.w;
}

// A range of a scene's circles, the rest dropped: what one rank of a render split by circles keeps.
struct CircleRange {
  Scene scene;                 // the scene's settings, and its circles [first, first + count) only
  std::size_t first = 0;       // the whole scene's index of scene.circles[0] (animations hash it)
  std::size_t total = 0;       // the whole scene's circle count
  std::vector<Circle> bursts;  // fireworks: the whole scene's first kFireworkBursts circles (they never move)
};

// Circles [begin, end) of `whole` (clamped to its count), which is consumed: where its circles are
// a view of a mapped file (render/scene_npz.h) the range is a view of the same mapping, no circle
// copied; else the range is copied and the whole list released.
CircleRange take_circle_range(Scene whole, std::size_t begin, std::size_t end);

class LayerRenderer {
 public:
  // threads: 1 draws circle by circle in one thread (cpu-ref's loop); 0 (all cores) or more shades
  // stripes of rows in parallel, each stripe's circles binned in order first (every pixel still
  // sees its circles in order: the same bits). bottom: start from the background (above).
  LayerRenderer(unsigned threads, bool bottom);
  ~LayerRenderer();
  LayerRenderer(const LayerRenderer&) = delete;
  LayerRenderer& operator=(const LayerRenderer&) = delete;

  // Takes the range at its scene's frame and the frame size (1..16384 a side).
  void load(CircleRange range, int width, int height);
  // Moves the range's circles on by one frame, each as the whole scene's renderers move it (its
  // own index in the whole scene; a firework spark by its burst's kept copy).
  void advance();
  // Advances to `frame` (>= frame()); a still scene takes the number.
  void seek(std::int64_t frame);
  // Draws the layer (its start included).
  void render();

  std::int64_t frame() const;
  int width() const;
  int height() const;
  // width * height pixels, row-major, row 0 = bottom (as Image).
  const std::vector<LayerPixel>& pixels() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// The promise of layers composited in order against cpu-ref (docs/SCALE.md derives it): where the
// circles' colours are at most `max_colour` (the alphas and the background lie in [0, 1]), every
// 8-bit channel of a pixel covered by fewer than the returned count of circles is within 1 of
// cpu-ref's, over `layers` layers (1: cpu-ref's bytes at any depth, the largest int64_t). With W
// the least power of two at or above max(1, max_colour), d the pixel's depth and m the layers after
// the first holding one of its circles (at most min(d, layers - 1)), the floats differ by at most
// W ((1.5 d + m) u + d^2 u^2 / 2) with u = 2^-24, and the bytes by at most 1 while that is at most
// (1 - 256 u) / 255: W (1.5 d + m + d^2 u / 2) <= 65792. At least 1 (no circle: the background, exact).
std::int64_t layered_depth_limit(float max_colour, std::int64_t layers);

// `layers` (in draw order, the first a bottom layer) composited into an image: the first layer's
// C and S, then composite_onto with each next one. All the same size. For tests and one process.
Image composite_layers(const std::vector<const LayerRenderer*>& layers);

}  // namespace circles
