// The library API (api/circles/circles.h): thin over the registry, the scene model and the
// renderers, so the library draws exactly what the command line draws.
#include "api/circles/circles.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "app/common/registry.h"
#if CIRCLES_HAVE_CUDA
#include "kernels/cuda/device.h"
#endif
#include "render/compare.h"
#include "render/stats.h"

#ifndef CIRCLES_VERSION
#define CIRCLES_VERSION "0"
#endif

namespace circles {

const char* version() { return CIRCLES_VERSION; }

namespace {

// The settings of a scene made from arrays, checked as a scene file's are.
void check_settings(const Scene& scene) {
  if (scene.width < 1 || scene.width > 16384 || scene.height < 1 || scene.height > 16384)
    throw std::invalid_argument("size: width and height must be 1..16384, found " + std::to_string(scene.width) +
                                "x" + std::to_string(scene.height));
  if (scene.frame < 0 || scene.frame > kMaxFrame)
    throw std::invalid_argument("frame must be between 0 and " + std::to_string(kMaxFrame) + ", found " +
                                std::to_string(scene.frame));
  const Background& bg = scene.background;
  const float channels[8] = {bg.top.x, bg.top.y, bg.top.z, bg.top.w, bg.bottom.x, bg.bottom.y, bg.bottom.z, bg.bottom.w};
  for (int k = 0; k < 8; ++k)
    if (const std::string m = unit_problem(channels[k]); !m.empty())
      throw ArrayError("background[" + std::to_string(k / 4) + ", " + std::to_string(k % 4) + "]", m);
}

}  // namespace

Scene scene_from_arrays(const CircleArrays& arrays, const Scene& settings) {
  Scene scene;
  scene.name = settings.name.empty() ? "arrays" : settings.name;
  scene.width = settings.width;
  scene.height = settings.height;
  scene.background = settings.background;
  scene.shading = settings.shading;
  scene.animation = settings.animation;
  scene.seed = settings.seed;
  scene.frame = settings.frame;
  check_settings(scene);
  scene.circles = gather_circles(arrays);
  scene.has_velocity = arrays.velocity.present();
  return scene;
}

std::vector<SceneEntry> builtin_scenes() {
  std::vector<SceneEntry> out;
  for (const SceneInfo& s : scene_registry()) out.push_back({s.name, s.description, s.circle_count});
  return out;
}

std::vector<RendererEntry> renderers() {
  std::vector<RendererEntry> out;
  for (const RendererInfo& r : renderer_registry()) {
    RendererEntry e{r.name, r.description, false, unavailable_reason(r), {"exact"}};
    e.available = e.unavailable_reason.empty();
    if (r.half_colour) e.modes.push_back("half-colour");
    if (r.early_exit) e.modes.push_back("early-exit");
    out.push_back(std::move(e));
  }
  return out;
}

std::string default_renderer() { return default_renderer_name(); }

Mode parse_mode(const std::string& name) {
  if (name == "exact" || name.empty()) return Mode::Exact;
  if (name == "half-colour" || name == "half colour" || name == "half-color") return Mode::HalfColour;
  if (name == "early-exit" || name == "early exit") return Mode::EarlyExit;
  throw std::invalid_argument("unknown mode '" + name + "' (expected exact, half-colour or early-exit)");
}

namespace {

// The renderer's settings with the mode asked for; a renderer that has no such mode is refused.
RendererSettings settings_for(const RenderOptions& o, std::string* name) {
  *name = o.renderer.empty() ? default_renderer_name() : o.renderer;
  const RendererInfo* info = find_renderer(*name);
  RendererSettings s = o.settings;
  const Mode mode = parse_mode(o.mode);
  if (mode == Mode::HalfColour) s.half_colour = true;
  if (mode == Mode::EarlyExit) s.early_exit = true;
  if (info && s.half_colour && !info->half_colour)
    throw std::invalid_argument("renderer '" + *name + "' has no half-colour mode (cuda-tile-binned has)");
  if (info && s.early_exit && !info->early_exit)
    throw std::invalid_argument("renderer '" + *name + "' has no early-exit mode (cuda-tile-binned has)");
  return s;
}

void check_size(int w, int h) {
  if (w < 1 || h < 1 || w > 16384 || h > 16384)
    throw std::invalid_argument("size: width and height must be 1..16384, found " + std::to_string(w) + "x" +
                                std::to_string(h));
}

}  // namespace

struct Canvas::Impl {
  Scene scene;  // shares a view's circles; a copy of an owned list
  std::string renderer_name;
  std::unique_ptr<Renderer> r;
  int w = 0, h = 0;
  bool drawn = false;
  std::int64_t next = 0;
};

Canvas::Canvas(const Scene& scene, const RenderOptions& options) : impl_(new Impl) {
  Impl& m = *impl_;
  const RendererSettings s = settings_for(options, &m.renderer_name);
  m.w = options.width ? options.width : scene.width;
  m.h = options.height ? options.height : scene.height;
  check_size(m.w, m.h);
  if (options.frame >= 0 && options.frame < scene.frame)
    throw std::invalid_argument("frame " + std::to_string(options.frame) + " is before the scene's frame " +
                                std::to_string(scene.frame));
  m.r = make_renderer(m.renderer_name, s);
  m.r->load(scene, m.w, m.h);
  m.next = options.frame >= 0 ? options.frame : scene.frame;
  m.scene.animation = scene.animation;  // for seek_frames' test; the renderer holds the circles
}

void Canvas::load(const Scene& scene, std::int64_t frame) {
  Impl& m = *impl_;
  if (frame >= 0 && frame < scene.frame)
    throw std::invalid_argument("frame " + std::to_string(frame) + " is before the scene's frame " +
                                std::to_string(scene.frame));
  m.drawn = false;
  m.r->load(scene, m.w, m.h);
  m.next = frame >= 0 ? frame : scene.frame;
  m.scene.animation = scene.animation;
}

Canvas::Canvas(const CircleArrays& device_arrays, const void* stream, const Scene& settings,
               const RenderOptions& options)
    : impl_(new Impl) {
  Impl& m = *impl_;
  const RendererSettings s = settings_for(options, &m.renderer_name);
  m.w = options.width ? options.width : settings.width;
  m.h = options.height ? options.height : settings.height;
  check_size(m.w, m.h);
  m.r = make_renderer(m.renderer_name, s);
  load_device(device_arrays, stream, settings, options.frame);
}

void Canvas::load_device(const CircleArrays& device_arrays, const void* stream, const Scene& settings,
                         std::int64_t frame) {
  Impl& m = *impl_;
  check_settings(settings);
  if (frame >= 0 && frame < settings.frame)
    throw std::invalid_argument("frame " + std::to_string(frame) + " is before the scene's frame " +
                                std::to_string(settings.frame));
  m.drawn = false;
  if (!m.r->load_device(settings, device_arrays, stream, m.w, m.h))
    throw std::invalid_argument("renderer '" + m.renderer_name +
                                "' draws from host memory: GPU arrays need a CUDA renderer (circles list)");
  m.next = frame >= 0 ? frame : settings.frame;
  m.scene.animation = settings.animation;
}

void Canvas::write_device(void* dst, bool float32, const void* stream, std::size_t row_stride) {
  Impl& m = *impl_;
  const std::size_t row = static_cast<std::size_t>(m.w) * (float32 ? 16 : 4);
  if (row_stride == 0) row_stride = row;
  if (row_stride < row) throw std::invalid_argument("row_stride " + std::to_string(row_stride) + " is below a row's " +
                                                    std::to_string(row) + " bytes");
  if (!m.r->write_device(dst, row_stride, float32, stream))
    throw std::invalid_argument("renderer '" + m.renderer_name + "' has no frame in GPU memory (a CUDA renderer has)");
}

Canvas::~Canvas() = default;
Canvas::Canvas(Canvas&&) noexcept = default;
Canvas& Canvas::operator=(Canvas&&) noexcept = default;

int Canvas::width() const { return impl_->w; }
int Canvas::height() const { return impl_->h; }
std::int64_t Canvas::frame() const { return impl_->next; }
const std::string& Canvas::renderer() const { return impl_->renderer_name; }
Renderer& Canvas::raw() { return *impl_->r; }

void Canvas::draw(std::int64_t frame, Progress* progress) {
  Impl& m = *impl_;
  if (frame < 0) frame = m.next;
  if (frame < m.r->frame())
    throw std::invalid_argument("frame " + std::to_string(frame) + " is before the canvas's frame " +
                                std::to_string(m.r->frame()) + " (frames go forward; make a new Canvas)");
  if (frame > kMaxFrame) throw std::invalid_argument("frame must be at most " + std::to_string(kMaxFrame));
  if (frame == m.r->frame() + 1 && m.drawn) m.r->advance();
  else seek_frames(*m.r, m.scene, frame, progress);
  m.r->render();
  m.drawn = true;
  m.next = frame + 1;
}

Image Canvas::image() {
  Image img;
  impl_->r->read_image(&img);
  return img;
}

void Canvas::read_rgba8(std::uint8_t* out, std::size_t row_stride) {
  Impl& m = *impl_;
  const std::size_t row = static_cast<std::size_t>(m.w) * 4;
  if (row_stride == 0) row_stride = row;
  if (row_stride < row) throw std::invalid_argument("row_stride " + std::to_string(row_stride) + " is below a row's " +
                                                    std::to_string(row) + " bytes");
  std::vector<std::uint8_t> bottom_up(row * static_cast<std::size_t>(m.h));
  m.r->read_rgba8(bottom_up.data());
  for (int j = 0; j < m.h; ++j)
    std::memcpy(out + static_cast<std::size_t>(j) * row_stride, bottom_up.data() + static_cast<std::size_t>(m.h - 1 - j) * row,
                row);
}

void Canvas::read_rgba32f(float* out, std::size_t row_stride) {
  Impl& m = *impl_;
  const std::size_t row = static_cast<std::size_t>(m.w) * sizeof(Float4);
  if (row_stride == 0) row_stride = row;
  if (row_stride < row) throw std::invalid_argument("row_stride " + std::to_string(row_stride) + " is below a row's " +
                                                    std::to_string(row) + " bytes");
  Image img;
  m.r->read_image(&img);
  for (int j = 0; j < m.h; ++j)
    std::memcpy(reinterpret_cast<char*>(out) + static_cast<std::size_t>(j) * row_stride,
                img.pixels.data() + static_cast<std::size_t>(m.h - 1 - j) * m.w, row);
}

Mode Canvas::mode() const { return impl_->r->mode(); }
std::string Canvas::plan() const { return impl_->r->plan(); }
std::vector<StageTiming> Canvas::timings() const { return impl_->r->timings(true); }
double Canvas::frame_ms() {
  double sum = 0;
  for (const StageTiming& t : impl_->r->timings(true)) sum += t.ms;
  return sum;
}

Image render(const Scene& scene, const RenderOptions& options) {
  Canvas c(scene, options);
  c.draw();
  return c.image();
}

void render_rgba8(const Scene& scene, const RenderOptions& options, std::uint8_t* out, std::size_t row_stride) {
  Canvas c(scene, options);
  c.draw();
  c.read_rgba8(out, row_stride);
}

void render_rgba32f(const Scene& scene, const RenderOptions& options, float* out, std::size_t row_stride) {
  Canvas c(scene, options);
  c.draw();
  c.read_rgba32f(out, row_stride);
}

#if CIRCLES_HAVE_CUDA
void* gpu_alloc(std::size_t bytes) { return device_alloc(bytes); }
void gpu_free(void* p) noexcept { device_free(p); }
int gpu_device() { return current_device(); }
void gpu_stream_wait(const void* waiter, const void* producer) { stream_wait(waiter, producer); }
std::uint64_t circle_bytes_uploaded() { return circles::circle_bytes_uploaded_by_renderers(); }
#else
namespace {
[[noreturn]] void no_cuda() { throw std::runtime_error("this build of circles has no CUDA"); }
}  // namespace
void* gpu_alloc(std::size_t) { no_cuda(); }
void gpu_free(void*) noexcept {}
int gpu_device() { no_cuda(); }
void gpu_stream_wait(const void*, const void*) { no_cuda(); }
std::uint64_t circle_bytes_uploaded() { return 0; }
#endif

CheckResult check(const Scene& scene, const RenderOptions& options) {
  Canvas test(scene, options);
  RenderOptions ref_options;
  ref_options.renderer = "cpu-ref";
  ref_options.width = test.width();
  ref_options.height = test.height();
  ref_options.frame = options.frame;
  Canvas ref(scene, ref_options);
  test.draw(options.frame);
  ref.draw(options.frame);
  const Image a = ref.image(), b = test.image();
  const Comparison c = compare_images(a, b, 0.f);
  CheckResult out;
  out.mode = test.mode();
  out.broken = promise_broken(out.mode, a, b);
  out.ok = out.broken.empty();
  out.bytes_differ = c.bytes_differ;
  out.floats_differ = c.floats_differ;
  out.max_steps = c.max_steps;
  std::copy(std::begin(c.max_abs), std::end(c.max_abs), out.max_abs);
  out.summary = c.summary();
  return out;
}

BenchResult bench(const Scene& scene, const RenderOptions& options, int repeat, int warmup) {
  if (repeat < 1) throw std::invalid_argument("repeat must be at least 1, found " + std::to_string(repeat));
  if (warmup < 0) throw std::invalid_argument("warmup must be at least 0, found " + std::to_string(warmup));
  Canvas c(scene, options);
  Renderer& r = c.raw();
  // As `circles bench`: each frame advances and renders; GPU frames are timed whole by events.
  for (int i = 0; i < std::max(1, warmup); ++i) {
    r.advance();
    r.render();
    c.frame_ms();
  }
  r.time_stages(false);
  std::vector<double> times;
  for (int i = 0; i < repeat; ++i) {
    r.advance();
    r.render();
    times.push_back(c.frame_ms());
  }
  // One frame by stages, for their times.
  r.time_stages(true);
  r.advance();
  r.render();
  BenchResult out;
  out.stages = r.timings(true);
  r.time_stages(false);
  out.renderer = c.renderer();
  out.plan = r.plan();
  out.mode = r.mode();
  out.frames = repeat;
  out.median_ms = median(times);
  out.min_ms = *std::min_element(times.begin(), times.end());
  out.max_ms = *std::max_element(times.begin(), times.end());
  return out;
}

}  // namespace circles
