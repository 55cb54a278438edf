#include "kernels/renderers/base.cuh"

#include <climits>

#include "kernels/cuda/device.h"
#include "kernels/renderers/device_input.cuh"
#include "kernels/renderers/tile_common.cuh"

#include "render/animate.h"
#include "render/units.h"

#include <cstdio>
#include <stdexcept>
#include <cstdlib>
#include <string>
#include <utility>

namespace circles {

namespace {

// Moves every circle one frame on, a thread a circle, in place: one coalesced, memory-bound pass.
// The shared step_circle from render/animate.h (moved_circle), as cpu-ref moves them; fireworks
// sparks read their burst, which no thread writes.
__global__ void animate_kernel(FusedStep s, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  store_moved(s, i, moved_circle(s.kind, s.seed, s.frame, i, s.pos_out[i], s.velocity[i], s.pos_out));
}

}  // namespace

CudaRenderer::CudaRenderer() { timer_.set_stages(false); }

double CudaRenderer::available_device_memory(double held, std::string* limit_note) const {
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  double avail = static_cast<double>(free_bytes) + held;
  const char* cap = std::getenv("CIRCLES_GPU_MEMORY_LIMIT_MB");
  if (cap && *cap) {
    const double limit = std::strtod(cap, nullptr) * 1024 * 1024;
    if (limit >= 0 && limit < avail) {
      avail = limit;
      if (limit_note) *limit_note = std::string(" (CIRCLES_GPU_MEMORY_LIMIT_MB=") + cap + ")";
    }
  }
  return avail;
}

void CudaRenderer::check_device_memory(std::size_t circles, int width, int height, double extra,
                                       const std::string& what, const std::string& detail,
                                       double held_extra) const {
  const double n = static_cast<double>(circles);
  const double need = n * (2 * sizeof(float4) + sizeof(float2)) + static_cast<double>(width) * height * sizeof(float4) + extra;
  const double held = static_cast<double>(pos_rad_.size() + color_.size() + image_.size()) * sizeof(float4) +
                      static_cast<double>(velocity_.size()) * sizeof(float2) + held_extra;
  const char* cap = std::getenv("CIRCLES_GPU_MEMORY_LIMIT_MB");
  // What it holds already suffices (a load like the last one): no need to ask the driver, whose
  // answer costs tens of microseconds.
  if (need <= held && !(cap && *cap)) return;
  // Nor when a load as large passed before: this renderer's buffers only grow, so what it asked
  // for then it holds, or could take, still (an allocation that fails is still an error).
  if (need <= checked_need_ && !(cap && *cap)) return;
  std::string limit_note;
  const double avail = available_device_memory(held, &limit_note);
  const double gib = 1024.0 * 1024 * 1024;
  char buf[512];
  std::snprintf(buf, sizeof buf, "%s at %dx%d with %zu circles needs about %s of GPU memory%s%s", what.c_str(),
                width, height, circles, memory_text(need).c_str(), detail.empty() ? "" : ", ",
                detail.c_str());
  if (need > avail) {
    throw std::runtime_error(std::string(buf) + "; the GPU has " + memory_text(avail) + " free" + limit_note);
  }
  if (need > 2 * gib) std::fprintf(stderr, "circles: note: %s\n", buf);
  checked_need_ = need;
}

void CudaRenderer::load(const Scene& scene, int width, int height) {
  check_device_memory(scene.circles.size(), width, height, 0, "this renderer", "", 0);
  load_unchecked(scene, width, height);
}

bool CudaRenderer::load_device(const Scene& settings, const CircleArrays& arrays, const void* stream, int width,
                               int height) {
  const std::size_t n = circle_count(arrays);
  check_device_memory(n, width, height, 0, "this renderer", "", 0);
  begin_gather_device(arrays, n, settings.shading, stream, 0);
  end_gather_device(arrays);
  load_settings(settings, n, width, height);
  return true;
}

void CudaRenderer::begin_gather_device(const CircleArrays& arrays, std::size_t n, Shading shading, const void* stream,
                                       std::size_t sample_step) {
  if (n > static_cast<std::size_t>(INT_MAX))
    throw std::invalid_argument("xy: " + std::to_string(n) + " circles, more than this renderer takes (2^31 - 1)");
  count_ = 0;  // until the gather has succeeded
  pos_rad_.resize(n);
  color_.resize(n);
  velocity_.resize(n);
  // The arrays are ready once the caller's stream has reached this point.
  cudaStream_t theirs = static_cast<cudaStream_t>(const_cast<void*>(stream));
  CUDA_CHECK(cudaEventRecord(input_ready_.get(), theirs));
  CUDA_CHECK(cudaStreamWaitEvent(this->stream(), input_ready_.get(), 0));
  begin_gather_device_circles(arrays, n, shading, pos_rad_.get(), color_.get(), velocity_.get(), sample_step,
                              &input_scratch_, this->stream());
}

DeviceInputFacts CudaRenderer::end_gather_device(const CircleArrays& arrays) {
  return end_gather_device_circles(arrays, &input_scratch_, stream());
}

bool CudaRenderer::write_device(void* dst, std::size_t row_stride, bool float32, const void* stream) {
  cudaStream_t theirs = static_cast<cudaStream_t>(const_cast<void*>(stream));
  // Their stream waits for the frame; the next frame waits for their copy of this one.
  CUDA_CHECK(cudaEventRecord(input_ready_.get(), this->stream()));
  CUDA_CHECK(cudaStreamWaitEvent(theirs, input_ready_.get(), 0));
  write_frame_top_down(image_.get(), view_.width, view_.height, dst, row_stride, float32, theirs);
  CUDA_CHECK(cudaEventRecord(output_read_.get(), theirs));
  CUDA_CHECK(cudaStreamWaitEvent(this->stream(), output_read_.get(), 0));
  return true;
}

void CudaRenderer::load_unchecked(const Scene& scene, int width, int height) {
  const std::size_t n = scene.circles.size();
  std::vector<float4> pos(n), col(n);
  std::vector<float2> vel(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Circle& c = scene.circles[i];
    pos[i] = make_float4(c.x, c.y, c.z, c.radius);
    col[i] = make_float4(c.r, c.g, c.b, c.a);
    vel[i] = make_float2(c.vx, c.vy);
  }
  pos_rad_.upload(pos.data(), n, stream());
  color_.upload(col.data(), n, stream());
  velocity_.upload(vel.data(), n, stream());
  // The host vectors die at the end of this call: wait for the copies to finish.
  CUDA_CHECK(cudaStreamSynchronize(stream()));
  count_circle_bytes_uploaded(n * (2 * sizeof(float4) + sizeof(float2)));
  load_settings(scene, n, width, height);
}

void CudaRenderer::load_settings(const Scene& scene, std::size_t n, int width, int height) {
  image_.resize(static_cast<std::size_t>(width) * height);
  count_ = static_cast<int>(n);
  view_ = make_view(width, height);
  background_ = scene.background;
  shading_ = scene.shading;
  animation_ = scene.animation;
  seed_ = scene.seed;
  frame_ = scene.frame;
  step_pending_ = swap_after_draw_ = false;
  timer_.reset();
}

void CudaRenderer::launch_animate(std::int64_t frame) {
  FusedStep s;
  s.kind = animation_;
  s.seed = seed_;
  s.frame = frame;
  s.velocity = velocity_.get();
  s.pos_out = pos_rad_.get();
  s.vel_out = velocity_.get();
  s.in_place = true;
  const int threads = 256;
  animate_kernel<<<(count_ + threads - 1) / threads, threads, 0, stream()>>>(s, count_);
  CUDA_CHECK_LAUNCH();
}

void CudaRenderer::advance() {
  // The stage "animate" is timed only where this call launches the step's kernel: a still scene, or
  // a step deferred to the next draw() (which then times it as part of its own stage), puts no work
  // on the GPU here, and two events around nothing would time only the host's gap between their
  // records, which would then count in the frame.
  const bool moves = animation_ != Animation::None && count_ > 0;
  if (moves && (!fuses_steps() || step_pending_)) {
    timer_.open(stream());
    stage_begin("animate");
    launch_animate(fuses_steps() ? step_frame_ : frame_);  // an earlier deferred step, done now
    stage("animate", true);
  }
  if (moves && fuses_steps()) {
    // The step waits for the next draw() to take it (or flush it).
    step_pending_ = true;
    step_frame_ = frame_;
  }
  ++frame_;
}

FusedStep CudaRenderer::take_step(bool in_place) {
  FusedStep s;
  if (!step_pending_) return s;
  step_pending_ = false;
  s.kind = animation_;
  s.seed = seed_;
  s.frame = step_frame_;
  s.velocity = velocity_.get();
  s.in_place = in_place;
  if (in_place) {
    s.pos_out = pos_rad_.get();
    s.vel_out = velocity_.get();
  } else {
    pos_rad_spare_.reserve(static_cast<std::size_t>(count_));
    velocity_spare_.reserve(static_cast<std::size_t>(count_));
    s.pos_out = pos_rad_spare_.get();
    s.vel_out = velocity_spare_.get();
    swap_after_draw_ = true;
  }
  return s;
}

void CudaRenderer::flush_step() {
  if (!step_pending_) return;
  step_pending_ = false;
  stage_begin("animate");
  launch_animate(step_frame_);
  stage("animate", true);
}

void CudaRenderer::render() {
  timer_.open(stream());
  if (timing_tiles_) {  // the shade launches of the frame add their blocks' cycles to zeros
    const std::size_t tiles = static_cast<std::size_t>((view_.width + 15) / 16) * ((view_.height + 15) / 16);
    tile_cycles_.reserve(tiles);
    CUDA_CHECK(cudaMemsetAsync(tile_cycles_.get(), 0, tiles * sizeof(unsigned long long), stream()));
  }
  try {
    draw();
  } catch (const Interrupted&) {  // stopped between chunks: the slot ends with what was done
    timer_.close(stream());
    throw;
  }
  if (step_pending_) throw std::logic_error("render: draw() left the animation step undone");
  if (swap_after_draw_) {  // the step's new state, in the spare buffers, is the circles' now
    std::swap(pos_rad_, pos_rad_spare_);
    std::swap(velocity_, velocity_spare_);
    swap_after_draw_ = false;
  }
  timer_.close(stream());
  if (timing_tiles_ && shade_tile() && !cycles_pending_) {  // behind the frame, read without a wait later
    const std::size_t n = tile_count();
    cycles_host_.reserve(n);
    CUDA_CHECK(cudaMemcpyAsync(cycles_host_.get(), tile_cycles_.get(), n * sizeof(unsigned long long),
                               cudaMemcpyDeviceToHost, stream()));
    cycles_copied_.record(stream());
    cycles_pending_ = true;
    cycles_pending_w_ = view_.width;
    cycles_pending_h_ = view_.height;
  }
}

std::size_t CudaRenderer::tile_count() const {
  const int t = shade_tile();
  return static_cast<std::size_t>((view_.width + t - 1) / t) * ((view_.height + t - 1) / t);
}

namespace {

// The heat map's counts per tile and per pixel: slow like cuda-tile-scan (N x tiles tests).
// A debug view, computed on request, so it can afford that. One block per tile of TILE x TILE
// pixels, one thread per pixel: all N circles in batches of TILE^2 (one per thread), each tested
// against the tile (the count per tile: __syncthreads_count), the survivors compacted into shared
// memory (the ballot scan) and each pixel counting those that cover it (blend_circle's coverage
// test on a scratch colour).
template <int TILE>
__global__ void __launch_bounds__(TILE * TILE) heat_counts_kernel(DeviceCircles circles, View v, Shading shading,
                                                                  int* tiles, int* pixels) {
  constexpr int kThreads = TILE * TILE;
  __shared__ float4 s_pos[kThreads];
  __shared__ int s_warp_totals[kThreads / 32];
  const TilePixel t = tile_pixel<TILE>(v);
  int in_tile = 0, covering = 0;
  for (int base = 0; base < circles.count; base += kThreads) {
    const int k = base + static_cast<int>(threadIdx.x);
    float4 p = make_float4(0.f, 0.f, 0.f, 0.f);
    bool touches = false;
    if (k < circles.count) {
      p = circles.pos_rad[k];
      touches = circle_touches_box(p.x, p.y, p.w, t.x0, t.y0, t.x1, t.y1);
    }
    in_tile += __syncthreads_count(touches);
    int total;
    const int slot = ballot_exclusive_scan_flags<kThreads / 32>(touches, s_warp_totals, &total);
    if (touches) s_pos[slot] = p;
    __syncthreads();
    for (int s = 0; s < total; ++s) {
      const float4 q = s_pos[s];
      Float4 scratch{0.f, 0.f, 0.f, 0.f};
      covering += blend_circle(shading, t.px, t.py, q.x, q.y, q.z, q.w, 1.f, 1.f, 1.f, 0.5f, &scratch) ? 1 : 0;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) tiles[blockIdx.y * gridDim.x + blockIdx.x] = in_tile;
  if (t.i < v.width && t.j < v.height) pixels[static_cast<std::size_t>(t.j) * v.width + t.i] = covering;
}

}  // namespace

bool CudaRenderer::heat_counts(int tile, HeatCounts* out) {
  if (tile != 16) throw std::invalid_argument("heat_counts: tiles of 16 pixels only");
  constexpr int T = 16;
  const int tx = (view_.width + T - 1) / T, ty = (view_.height + T - 1) / T;
  const std::size_t pixels = static_cast<std::size_t>(view_.width) * view_.height;
  flush_step();  // the counts are of the current state
  heat_tiles_.reserve(static_cast<std::size_t>(tx) * ty);
  heat_pixels_.reserve(pixels);
  NvtxScope range("heat map: counts");
  heat_counts_kernel<T><<<dim3(tx, ty), T * T, 0, stream()>>>(circles(), view_, shading_, heat_tiles_.get(),
                                                                heat_pixels_.get());
  CUDA_CHECK_LAUNCH();
  out->tile = T;
  out->tiles_x = tx;
  out->tiles_y = ty;
  out->circles_per_tile.resize(static_cast<std::size_t>(tx) * ty);
  out->blends_per_pixel.resize(pixels);
  CUDA_CHECK(cudaMemcpyAsync(out->circles_per_tile.data(), heat_tiles_.get(), out->circles_per_tile.size() * sizeof(int),
                             cudaMemcpyDeviceToHost, stream()));
  CUDA_CHECK(cudaMemcpyAsync(out->blends_per_pixel.data(), heat_pixels_.get(), pixels * sizeof(int),
                             cudaMemcpyDeviceToHost, stream()));
  CUDA_CHECK(cudaStreamSynchronize(stream()));
  return true;
}

bool CudaRenderer::time_tiles(bool on) {
  if (shade_tile() == 0) return false;
  if (timing_tiles_ != on) cycles_last_.clear();
  timing_tiles_ = on;
  return true;
}

std::vector<double> CudaRenderer::tile_cycles(int* tile, int* tiles_x, int* tiles_y, bool wait) {
  const int t = shade_tile();
  if (!timing_tiles_ || t == 0) return {};
  if (cycles_pending_ && cycles_copied_.done(wait)) {
    cycles_pending_ = false;
    cycles_w_ = cycles_pending_w_;
    cycles_h_ = cycles_pending_h_;
    const std::size_t n = static_cast<std::size_t>((cycles_w_ + t - 1) / t) * ((cycles_h_ + t - 1) / t);
    cycles_last_.assign(cycles_host_.get(), cycles_host_.get() + n);
  }
  // Only a map of the current size: one from before a resize would not fit the frame.
  if (cycles_last_.empty() || cycles_w_ != view_.width || cycles_h_ != view_.height) return {};
  *tile = t;
  *tiles_x = (view_.width + t - 1) / t;
  *tiles_y = (view_.height + t - 1) / t;
  return cycles_last_;
}

namespace {

// The image's 8-bit bytes (to_byte per channel): a thread a pixel, 16 bytes read and 4 written,
// bandwidth-bound and a few microseconds at 1080p, so the copy to the host moves a quarter of the
// float image's bytes.
__global__ void to_rgba8_kernel(const float4* __restrict__ in, uchar4* __restrict__ out, std::size_t n) {
  const std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const float4 p = in[k];
  out[k] = make_uchar4(to_byte(p.x), to_byte(p.y), to_byte(p.z), to_byte(p.w));
}

}  // namespace

void CudaRenderer::read_rgba8(std::uint8_t* dst) {
  const std::size_t n = static_cast<std::size_t>(view_.width) * view_.height;
  if (n == 0) return;
  rgba8_.reserve(n);
  to_rgba8_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream()>>>(image_.get(), rgba8_.get(), n);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaMemcpyAsync(dst, rgba8_.get(), n * sizeof(uchar4), cudaMemcpyDeviceToHost, stream()));
  CUDA_CHECK(cudaStreamSynchronize(stream()));
}

void CudaRenderer::read_image(Image* out) {
  *out = Image(view_.width, view_.height);
  static_assert(sizeof(Float4) == sizeof(float4), "Image pixels must match float4");
  CUDA_CHECK(cudaMemcpyAsync(out->pixels.data(), image_.get(), out->pixels.size() * sizeof(float4),
                             cudaMemcpyDeviceToHost, stream()));
  CUDA_CHECK(cudaStreamSynchronize(stream()));
}

Float4 CudaRenderer::read_pixel(int i, int j) {
  if (i < 0 || j < 0 || i >= view_.width || j >= view_.height)
    throw std::out_of_range("read_pixel: pixel outside the frame");
  Float4 p;
  CUDA_CHECK(cudaMemcpyAsync(&p, image_.get() + static_cast<std::size_t>(j) * view_.width + i, sizeof p,
                             cudaMemcpyDeviceToHost, stream()));
  CUDA_CHECK(cudaStreamSynchronize(stream()));
  return p;
}

std::vector<StageTiming> CudaRenderer::timings(bool wait) const { return timer_.read(wait); }

}  // namespace circles
