// circles as a library (docs/API.md): scenes from arrays, files or built-ins; frames drawn by any
// renderer, in any mode, into an owned image or the caller's buffer; checked against cpu-ref.
//
//   circles::Scene scene = circles::scene_from_arrays(arrays);   // or circles::load_scene("rand1M")
//   circles::Image image = circles::render(scene, {"cuda-tile-binned"});
//
// Errors are exceptions whose what() is the command line's message: std::invalid_argument for a
// caller's mistake (circles::ArrayError for a bad array element, an unknown renderer, scene or
// mode, a bad size), circles::SceneError / circles::NpyError for a bad scene file, and
// std::runtime_error for the rest (a file that cannot be written, a CUDA failure). Nothing is
// drawn or written after an error.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "render/builtin_scenes.h"  // load_scene, scene_registry
#include "render/circle_arrays.h"  // ArrayView, CircleArrays, ArrayError
#include "render/image.h"          // Image (float RGBA, row 0 at the bottom)
#include "render/interrupt.h"      // request_interrupt, Interrupted
#include "render/npy.h"            // NpyError
#include "render/renderer.h"       // RendererSettings, StageTiming, Workload
#include "render/scene.h"          // Scene, Circle, Background, Shading, Animation
#include "render/scene_io.h"       // SceneError

namespace circles {

// The library's version (CMake's project version).
const char* version();

// ---- scenes ----------------------------------------------------------------------------------

// A scene of the circles in `arrays` (render/circle_arrays.h: xy, radius, color, alpha, z,
// velocity), every value checked, with `settings`'s size, background, shading, animation, seed and
// frame (its circles are ignored). Throws ArrayError naming the array and element.
Scene scene_from_arrays(const CircleArrays& arrays, const Scene& settings = Scene{});
// Built-in scenes and scene files come from render/builtin_scenes.h and render/scene_io.h:
//   load_scene(name_or_path, seed)  a built-in by name, or a file: text (docs/FORMAT.md), .npz, .npy
//   save_scene_file(scene, path)    .npz: the binary format; any other name: scene text; atomic

struct SceneEntry {
  std::string name, description;
  std::size_t circles = 0;
};
std::vector<SceneEntry> builtin_scenes();

// ---- renderers and modes ---------------------------------------------------------------------

struct RendererEntry {
  std::string name, description;
  bool available = false;
  std::string unavailable_reason;    // why not, where not
  std::vector<std::string> modes;    // "exact" and the fast modes it takes
};
std::vector<RendererEntry> renderers();
// cuda-tile-binned where a GPU is usable, else cpu-mt.
std::string default_renderer();
// "exact", "half-colour", "early-exit" (also "half colour", "early exit").
Mode parse_mode(const std::string& name);

struct RenderOptions {
  std::string renderer;       // "": default_renderer()
  std::string mode = "exact";
  int width = 0, height = 0;  // 0: the scene's size
  std::int64_t frame = -1;    // the animation frame; -1: the scene's own
  RendererSettings settings;  // tile size, batch, scan, cuda-tile-binned's choices (0: defaults)
};

// ---- drawing ---------------------------------------------------------------------------------

// Frames of one scene on one renderer, loaded once: the way to draw an animation or to time.
class Canvas {
 public:
  Canvas(const Scene& scene, const RenderOptions& options = {});
  // Circles already in GPU memory (a CUDA renderer only): `arrays` holds CUDA pointers, written
  // on `stream` (a cudaStream_t; nullptr: the default stream), gathered and checked on the GPU
  // without a copy through the host; `settings` gives the rest of the scene (size, background,
  // shading, animation, seed, frame; its circles are ignored).
  Canvas(const CircleArrays& device_arrays, const void* stream, const Scene& settings, const RenderOptions& options = {});
  ~Canvas();
  Canvas(Canvas&&) noexcept;
  Canvas& operator=(Canvas&&) noexcept;

  // Another scene on the same renderer, at the same size: its buffers are kept, so drawing scene
  // after scene costs their upload and no allocations. The next draw draws `frame` (-1: the
  // scene's own).
  void load(const Scene& scene, std::int64_t frame = -1);
  void load_device(const CircleArrays& device_arrays, const void* stream, const Scene& settings, std::int64_t frame = -1);

  int width() const;
  int height() const;
  std::int64_t frame() const;  // the frame the next draw() draws
  const std::string& renderer() const;

  // Draws frame `frame` (>= frame(); -1: frame()), then frame() is one more. Progress, when given,
  // shows a long seek on the terminal. request_interrupt() (from a signal handler, or another
  // thread) stops a long frame or seek part-way with Interrupted; the canvas stays usable, and
  // drawing the same frame again (after clear_interrupt()) draws it whole.
  void draw(std::int64_t frame = -1, Progress* progress = nullptr);
  // The last frame drawn.
  Image image();
  // As 8-bit RGBA, top row first (PNG and image-library order): row_stride bytes apart (0: width * 4).
  void read_rgba8(std::uint8_t* out, std::size_t row_stride = 0);
  // As float RGBA, top row first: row_stride bytes apart (0: width * 16).
  void read_rgba32f(float* out, std::size_t row_stride = 0);
  // Into GPU memory at `dst` (a CUDA renderer only), top row first, 8-bit or float RGBA, rows
  // row_stride bytes apart (0: packed), ordered on `stream` after the frame; does not wait.
  void write_device(void* dst, bool float32, const void* stream, std::size_t row_stride = 0);

  Mode mode() const;                       // the mode the last frame was drawn in
  std::string plan() const;                // how and why (cuda-tile-binned), or ""
  std::vector<StageTiming> timings() const;  // the last frame's stages, waiting for them
  double frame_ms();                       // the last frame whole (GPU: CUDA events), waiting for it
  Renderer& raw();                         // the renderer itself (render/renderer.h)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One frame into an owned image (row 0 at the bottom, as Image is) or into the caller's buffer
// (top row first). Frames of an animation: options.frame, or a Canvas.
Image render(const Scene& scene, const RenderOptions& options = {});
void render_rgba8(const Scene& scene, const RenderOptions& options, std::uint8_t* out, std::size_t row_stride = 0);
void render_rgba32f(const Scene& scene, const RenderOptions& options, float* out, std::size_t row_stride = 0);

// ---- GPU memory, for frames kept on the GPU (CUDA builds; elsewhere these throw) ------------

void* gpu_alloc(std::size_t bytes);           // on the current device
void gpu_free(void* p) noexcept;
int gpu_device();                             // the current device's number
// `waiter` (a cudaStream_t; nullptr the default stream) waits for what `producer` has enqueued.
void gpu_stream_wait(const void* waiter, const void* producer);
// Bytes of circles copied from the host to the GPU by every CUDA renderer in this process: host
// scenes add theirs at each load, device arrays nothing (0 without CUDA).
std::uint64_t circle_bytes_uploaded();

// ---- checking and timing ---------------------------------------------------------------------

struct CheckResult {
  bool ok = false;            // the frame keeps its mode's promise against cpu-ref
  Mode mode = Mode::Exact;    // the mode the renderer drew it in
  std::string broken;         // what broke, with the first pixel and channel ("" when ok)
  std::int64_t bytes_differ = 0, floats_differ = 0;
  int max_steps = 0;          // the largest 8-bit difference
  float max_abs[4] = {0, 0, 0, 0};
  std::string summary;        // the command line's one-line comparison
};
// Draws the frame with `options` and with cpu-ref, and compares them (circles check).
CheckResult check(const Scene& scene, const RenderOptions& options = {});

struct BenchResult {
  std::string renderer, plan;
  Mode mode = Mode::Exact;
  int frames = 0;                  // timed frames
  double median_ms = 0, min_ms = 0, max_ms = 0;
  std::vector<StageTiming> stages;  // per stage, the median
};
// Times frames as `circles bench` does: `warmup` untimed frames, then `repeat` timed ones (GPU:
// CUDA events around each frame), their median.
BenchResult bench(const Scene& scene, const RenderOptions& options = {}, int repeat = 20, int warmup = 3);

}  // namespace circles
