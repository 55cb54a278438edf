// The one interface every renderer implements (CPU or CUDA). A renderer owns the circles'
// current state and its output image; the caller loads a scene, then advances and renders.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "render/circle_arrays.h"
#include "render/image.h"
#include "render/modes.h"
#include "render/progress.h"
#include "render/scene.h"

namespace circles {

// cuda-tile-binned's own per-frame choices, forced (tests, experiments; the `--binned-*`
// options): each left at its default lets the renderer choose. None changes the picture beyond
// its mode's promise; they choose which kernels draw it.
struct BinnedChoices {
  enum class Strategy { Choose, Direct, Binned };
  Strategy strategy = Strategy::Choose;  // walk every circle in every tile, or bin them first
  unsigned long long max_pairs = 0;      // a chunk's pair budget (0: the renderer's); 1 chunks at every tile's worth
  int rows = 0;                          // exact frames at tile 32: pixels a lane at most, 2, 4 or 8 (0: 8)
  bool force_early = false;              // early exit where the scene would hardly settle (never past its bound)
  bool sort = false;                     // bin by CUB's radix sort even where counting fits
  int block = 0;                         // bin by counting in blocks of this many circles (32..1024, rounded down to a power of two)
  int compose = -1;                      // runs composed: 0 none, 1 warp boxes, 2 tiles too (exact frames: at most 1)
  int tiny = -1;                         // binned exact flat frames through the tiny-circle kernel: 1 always, 0 never
  bool few_scatter = false;              // a chunk ahead of its count takes the scatter's smaller sort
  bool any() const { return !(*this == BinnedChoices{}); }
  bool operator==(const BinnedChoices& o) const {
    return strategy == o.strategy && max_pairs == o.max_pairs && rows == o.rows && force_early == o.force_early &&
           sort == o.sort && block == o.block && compose == o.compose && tiny == o.tiny && few_scatter == o.few_scatter;
  }
};

// The knobs a renderer may take; 0 (or "") means the renderer's default.
struct RendererSettings {
  int tile_size = 0;   // pixels per tile side
  int batch_size = 0;  // circles culled per batch (0: one per thread, tile_size^2)
  // The scan the renderer uses, by name (a kernel-lab variant, or "ballot"; the registry lists
  // each renderer's). Initialized explicitly, so {tile, batch} stays a complete initializer.
  std::string scan{};
  // Early termination (renderers whose registry entry says so): composite front to back and stop
  // a pixel once the circles under it can no longer move any 8-bit channel; the 8-bit picture is
  // cpu-ref's within one step per channel (docs/ARCHITECTURE.md says exactly what it guarantees).
  bool early_exit = false;
  // Half-precision colour (renderers whose registry entry says so: cuda-tile-binned's
  // eight-pixel walk): R, G and B within 2^-10 of cpu-ref's floats (render/modes.h), where the
  // scene allows it; without it every frame is exact, cpu-ref's floats to the bit.
  bool half_colour = false;
  // cuda-tile-binned only (the registry refuses them elsewhere).
  BinnedChoices binned{};
  bool operator==(const RendererSettings& o) const {
    return tile_size == o.tile_size && batch_size == o.batch_size && scan == o.scan && early_exit == o.early_exit &&
           half_colour == o.half_colour && binned == o.binned;
  }
};

// What a frame cost in work, counted on the device when asked (Renderer::count_work).
struct Workload {
  std::uint64_t circles = 0;         // circles in the scene
  std::uint64_t circles_binned = 0;  // circles in the chunks that were binned (early exit skips the rest)
  std::uint64_t pairs = 0;           // (tile, circle) pairs binned, every chunk
  std::uint64_t chunks = 0;          // binning passes (1 unless the pair budget or early exit split it)
  std::uint64_t pair_budget = 0;     // the most pairs a chunk may hold (the scratch it sizes; 0: no binning)
  std::uint64_t pixel_tests = 0;     // circle-pixel coverage tests in the shade kernel
  std::uint64_t blends = 0;          // circle-pixel blends
};

// One stage's time in the last rendered frame (GPU times from CUDA events, CPU from a clock).
struct StageTiming {
  std::string stage;  // e.g. "clear", "animate", "cull+scan+shade"
  double ms = 0;
};

// One stage's interval on a clock shared with other measurements (the viewer's timeline): ms
// since an origin the caller chose.
struct TimedSpan {
  std::string stage;
  double t0 = 0, t1 = 0;
};

class Renderer {
 public:
  virtual ~Renderer() = default;
  // Takes the scene's circles at scene.frame and the output size (pixels).
  virtual void load(const Scene& scene, int width, int height) = 0;
  // Moves the animation on by one frame (dt = 1/60 s); a still scene stays as it is.
  virtual void advance() = 0;
  // GPU renderers: the circles from arrays in device memory (render/circle_arrays.h's fields as
  // CUDA pointers, written on `stream`, a cudaStream_t; nullptr: the default stream), gathered
  // and checked on the GPU: nothing goes through the host. `settings` gives the rest of the scene
  // (its circles are ignored). Throws ArrayError for a bad element, as gather_circles would.
  // False where the renderer cannot (the CPU renderers).
  virtual bool load_device(const Scene& /*settings*/, const CircleArrays& /*arrays*/, const void* /*stream*/,
                           int /*width*/, int /*height*/) {
    return false;
  }
  // GPU renderers: the last rendered frame into device memory at `dst`, top row first (image-library
  // order), 8-bit RGBA (to_byte) or float RGBA, rows `row_stride` bytes apart, ordered on `stream`
  // after the frame; returns without waiting. False where the renderer cannot.
  virtual bool write_device(void* /*dst*/, std::size_t /*row_stride*/, bool /*float32*/, const void* /*stream*/) {
    return false;
  }
  // Advances to `frame` (>= frame()); a still scene just takes the number, in no time.
  virtual void seek(std::int64_t frame) = 0;
  // Draws the current state into the renderer's image (clear included).
  virtual void render() = 0;
  // Copies the last rendered image to the host.
  virtual void read_image(Image* out) = 0;
  // The last rendered image as 8-bit RGBA (to_byte per channel), row 0 = bottom: width * height
  // * 4 bytes into dst, for the viewer's host-copy path. The default reads the image and converts
  // it on every core; the CPU renderers convert their own image without the copy, and the GPU
  // renderers convert on the device and copy a quarter of the bytes.
  virtual void read_rgba8(std::uint8_t* dst) {
    Image img;
    read_image(&img);
    to_rgba8_bottom_up(img, dst);
  }
  // One pixel (row 0 = bottom) of the last rendered image, for the pixel inspector; the default
  // copies the whole image.
  virtual Float4 read_pixel(int i, int j) {
    Image img;
    read_image(&img);
    return img.at(i, j);
  }
  // Stage times of a frame (its advance() and render()). wait = true: the last frame's, waiting
  // for it (benchmarks). wait = false: never blocks; the newest frame whose times are complete,
  // which may be a few frames old, or nothing yet (a live viewer).
  virtual std::vector<StageTiming> timings(bool wait = true) const = 0;
  // time_stages(false): from the next frame on, timings() gives the whole frame only, one entry
  // "frame", measured without the events between stages (each event recorded between two
  // kernels delays the second by about 1.4 us on the H100 and stops it from starting early,
  // docs/BENCHMARKS.md); time_stages(true): stage by stage. GPU renderers time frames whole until
  // asked for stages and return true; the others always time their stages and return false.
  virtual bool time_stages(bool /*on*/) { return false; }
  // GPU renderers: the stages of every frame finished since the last call, as intervals in ms
  // since `origin_event` (a cudaEvent_t recorded before them), for the viewer's timeline; never
  // blocks. Frames more than a few behind are dropped (the timer keeps a small ring). Others: {}.
  virtual std::vector<TimedSpan> take_spans(const void* /*origin_event*/) { return {}; }
  // GPU renderers: the device image (float4 RGBA, width * height, row 0 = bottom) and the
  // cudaStream_t it is written on, for presenting without a copy to the host. CPU: nullptr.
  virtual const void* device_pixels() const { return nullptr; }
  virtual void* device_stream() const { return nullptr; }
  // The animation frame the current state is at.
  virtual std::int64_t frame() const = 0;

  // The viewer's tile heat maps (GPU renderers; the default says "not here" with false).
  // heat_counts: for the current state, per tile of `tile` pixels the circles whose conservative
  // box touches it (tile-scan's and the inspector's test), and per pixel the circles that cover
  // it (the blends it takes); waits for the result.
  struct HeatCounts {
    int tile = 0, tiles_x = 0, tiles_y = 0;
    std::vector<int> circles_per_tile;  // tiles_x * tiles_y, row 0 = bottom
    std::vector<int> blends_per_pixel;  // width * height, row 0 = bottom
  };
  virtual bool heat_counts(int /*tile*/, HeatCounts* /*out*/) { return false; }
  // time_tiles(true): from the next render() on, each block of the shade kernel records its
  // clock64() cycles, copied to the host behind the frame; tile_cycles() returns the newest frame's
  // whose copy has finished (never waits; with wait = true it waits for the copy in flight), per
  // tile of the renderer's own tile size (*tile), summed over the frame's shade launches (a frame
  // binned in chunks shades each tile once a chunk), row 0 = bottom; empty when off, not supported,
  // or before the first copy at the current size has finished.
  virtual bool time_tiles(bool /*on*/) { return false; }
  virtual std::vector<double> tile_cycles(int* /*tile*/, int* /*tiles_x*/, int* /*tiles_y*/, bool /*wait*/ = true) {
    return {};
  }
  // The Counters panel's per-stage measurements (GPU renderers): while set, render() opens the
  // hardware-counter range (kernels/cuda/counters.h, counters_range_push/pop) around that stage's
  // kernels only. "" turns it off. False where the renderer has no such hook.
  virtual bool profile_stage(const std::string& /*stage*/) { return false; }
  // How the last frame was drawn and why (a renderer with strategies: "direct: ..." or
  // "binned: ..."); "" for one way only.
  virtual std::string plan() const { return ""; }
  // The mode the last frame was drawn in (render/modes.h: what it promises against cpu-ref):
  // exact unless the renderer took a fast mode that was asked for and that the scene allows.
  virtual Mode mode() const { return Mode::Exact; }
  // count_work(true): from the next render() on, the renderer counts its work (a little slower);
  // work() returns the last rendered frame's counts (waits), false where not supported.
  virtual bool count_work(bool /*on*/) { return false; }
  virtual bool work(Workload* /*out*/) { return false; }
  // The most device memory this renderer has held at once since its last load(), in bytes (0 on
  // the CPU).
  virtual std::uint64_t device_memory_peak() const { return 0; }
};

}  // namespace circles

namespace circles {

// Advances `r` (loaded with `scene`) to `frame` in steps, reporting them on `progress` (when
// given): seeking far into an animation can take long, and is shown, and can be stopped. A still
// scene takes the number at once.
inline void seek_frames(Renderer& r, const Scene& scene, std::int64_t frame, Progress* progress) {
  if (!progress || scene.animation == Animation::None || frame - r.frame() <= 1) {
    r.seek(frame);
    return;
  }
  const std::int64_t from = r.frame();
  progress->restart("seek to frame " + std::to_string(frame), static_cast<double>(frame - from));
  while (r.frame() < frame) {
    r.seek(std::min(frame, r.frame() + 64));
    progress->update(static_cast<double>(r.frame() - from), "frame " + std::to_string(r.frame()));
  }
}

// Loads `scene` into `r` at width x height, advances to frame `first` (>= scene.frame), then for
// each frame f in [first, last) renders it and calls on_frame(f). The one frame loop shared by the
// CLI, the tests and the benchmark. With `progress`, the seek and the frames are shown on it (its
// task is `task`).
template <class OnFrame>
void run_frames(Renderer& r, const Scene& scene, int width, int height, std::int64_t first,
                std::int64_t last, OnFrame on_frame, Progress* progress = nullptr,
                const std::string& task = {}) {
  r.load(scene, width, height);
  seek_frames(r, scene, first, progress);
  if (progress) progress->restart(task, static_cast<double>(last - first));
  for (std::int64_t f = first; f < last; ++f) {
    if (f > first) r.advance();
    if (progress) progress->update(static_cast<double>(f - first), "frame " + std::to_string(f));
    r.render();
    on_frame(f);
  }
}

}  // namespace circles
