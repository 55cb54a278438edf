// What every CUDA renderer shares: the circles on the device (structure of arrays), the output
// image, the stream, the animation kernel and CUDA-event stage timings. A subclass supplies
// draw(), which clears and shades the whole frame on stream().
#pragma once
#include <string>
#include <vector>

#include "kernels/cuda/counters.h"
#include "kernels/cuda/raii.h"
#include "kernels/cuda/nvtx.h"
#include "kernels/cuda/stage_timer.h"
#include "kernels/renderers/device_input.cuh"
#include "render/animate.h"
#include "render/interrupt.h"
#include "render/raster.h"
#include "render/renderer.h"

namespace circles {

// The circles as the kernels read them: 16-byte loads, one array per use.
struct DeviceCircles {
  int count = 0;
  const float4* pos_rad = nullptr;  // x, y, z, radius
  const float4* color = nullptr;    // r, g, b, a
};

// An animation step that a frame's kernel does on its way (cuda-tile-binned's direct shade or its
// first count) instead of a kernel of its own: the kernel reads the circles as they were, moves
// every circle it loads (moved_circle), and writes each circle's new state once, to pos_out and
// vel_out. kind None: no step.
struct FusedStep {
  Animation kind = Animation::None;
  std::uint64_t seed = 0;
  std::int64_t frame = 0;          // the frame the step starts from
  const float2* velocity = nullptr;  // the circles' velocities as they were
  float4* pos_out = nullptr;       // where the new state goes (in place or the spare buffers)
  float2* vel_out = nullptr;
  bool in_place = false;  // pos_out/vel_out are the circles' own buffers
};

// Circle k one frame on: step_circle (render/animate.h) from its position q and velocity vel,
// as the animation kernel and cpu-ref move it; fireworks' bursts, which never move, are read
// from pos (the frame's state, which nothing writes while the step runs).
__device__ __forceinline__ Motion moved_circle(Animation kind, std::uint64_t seed, std::int64_t frame, int k,
                                               const float4& q, const float2& vel, const float4* pos) {
  Motion m{q.x, q.y, q.z, q.w, vel.x, vel.y};
  if (kind == Animation::Fireworks && k < kFireworkBursts) return m;  // bursts stay put
  auto burst = [pos](std::uint32_t b) {
    const float4 p = pos[b];
    return Motion{p.x, p.y, p.z, p.w, 0.f, 0.f};
  };
  step_circle(kind, seed, frame, static_cast<std::uint32_t>(k), &m, burst);
  return m;
}

// Circle k's new state into the step's outputs. In place, a fireworks burst (unmoved, and read by
// the threads that move its sparks) is left unwritten.
__device__ __forceinline__ void store_moved(const FusedStep& s, int k, const Motion& m) {
  if (s.in_place && s.kind == Animation::Fireworks && k < kFireworkBursts) return;
  s.pos_out[k] = make_float4(m.x, m.y, m.z, m.radius);
  s.vel_out[k] = make_float2(m.vx, m.vy);
}

// What a frame's draw kernel needs besides the circles.
struct FrameParams {
  View view;
  Background background;
  float4* image = nullptr;  // width * height, row 0 = bottom
  // When set (the viewer's shade-time heat map), each block of the shade kernel adds the
  // clock64() cycles it took at [blockIdx.y * gridDim.x + blockIdx.x] (render() zeroes them, so
  // a frame shaded in chunks shows each tile's sum). nullptr: off.
  unsigned long long* tile_cycles = nullptr;
};

// A block's cycles added to f.tile_cycles (when on): `start` taken by thread 0 at the kernel's
// start, the end after a barrier, so the block's slowest thread counts. One block a tile per
// launch and launches in stream order, so a plain add is race-free. The condition is uniform
// across the block, so the barrier is safe; off, it costs one branch.
__device__ __forceinline__ void record_tile_cycles(const FrameParams& f, long long start) {
  if (!f.tile_cycles) return;
  __syncthreads();
  if (threadIdx.x == 0)
    f.tile_cycles[blockIdx.y * gridDim.x + blockIdx.x] += static_cast<unsigned long long>(clock64() - start);
}

class CudaRenderer : public Renderer {
 public:
  CudaRenderer();
  // Checks the GPU memory the load needs (check_device_memory), then loads.
  void load(const Scene& scene, int width, int height) override;
  bool load_device(const Scene& settings, const CircleArrays& arrays, const void* stream, int width,
                   int height) override;
  bool write_device(void* dst, std::size_t row_stride, bool float32, const void* stream) override;
  void advance() override;
  void seek(std::int64_t frame) override {
    if (animation_ == Animation::None && frame > frame_) frame_ = frame;
    while (frame_ < frame) {
      if ((frame_ & 63) == 0) stop_if_interrupted();  // between frames (each step whole)
      advance();
    }
  }
  void render() override;
  void read_image(Image* out) override;
  void read_rgba8(std::uint8_t* dst) override;
  Float4 read_pixel(int i, int j) override;
  std::vector<StageTiming> timings(bool wait) const override;
  std::vector<TimedSpan> take_spans(const void* origin_event) override {
    return timer_.spans_after(&spans_seq_, static_cast<cudaEvent_t>(const_cast<void*>(origin_event)));
  }
  std::int64_t frame() const override { return frame_; }
  bool heat_counts(int tile, HeatCounts* out) override;
  bool profile_stage(const std::string& stage) override {
    profiled_ = stage;
    return true;
  }
  // Frames are timed whole unless the caller asks for stages (the viewer does; the benchmark
  // alternates): whole, the frame's kernels follow each other with no event between them.
  bool time_stages(bool on) override {
    timer_.set_stages(on);
    return true;
  }
  bool time_tiles(bool on) override;
  std::vector<double> tile_cycles(int* tile, int* tiles_x, int* tiles_y, bool wait) override;
  const void* device_pixels() const override { return image_.get(); }
  void* device_stream() const override { return stream_.get(); }

 protected:
  // Launches the frame's kernels on stream(), calling stage("name") after each stage.
  virtual void draw() = 0;
  // A stage's kernels sit between stage_begin(name) and stage(name): the NVTX range
  // "renderer: name" covers their launches, and stage() records the end event the timings use.
  // then = true: the next stage's kernels follow at once (no host wait, not the frame's end), so
  // a frame timed whole records no event here (StageTimer::mark).
  void stage_begin(const char* name) {
    nvtx_push("renderer: ", name);
    if (!profiled_.empty() && profiled_ == name) counters_range_push(name);
  }
  void stage(const char* name, bool then = false) {
    if (!profiled_.empty() && profiled_ == name) counters_range_pop();
    timer_.mark(name, stream(), then);
    nvtx_pop();
  }
  cudaStream_t stream() const { return stream_.get(); }
  DeviceCircles circles() const { return {count_, pos_rad_.get(), color_.get()}; }
  // load() without the memory check, for renderers that check a larger need themselves.
  void load_unchecked(const Scene& scene, int width, int height);
  // load_device()'s parts: the gather of the circles from device arrays into the renderer's (n of
  // them, after the caller's `stream` has written them), with a radius every `sample_step`
  // circles (0: none), enqueued; its end, one wait for it and whatever was enqueued behind it,
  // with its facts; then the rest of the scene taken as load_unchecked takes it.
  void begin_gather_device(const CircleArrays& arrays, std::size_t n, Shading shading, const void* stream,
                           std::size_t sample_step);
  DeviceInputFacts end_gather_device(const CircleArrays& arrays);
  void load_settings(const Scene& settings, std::size_t n, int width, int height);
  // The GPU memory a load may use: the driver's free memory plus `held` (what this renderer
  // holds already), capped by CIRCLES_GPU_MEMORY_LIMIT_MB where set (*limit_note then says so).
  double available_device_memory(double held, std::string* limit_note = nullptr) const;
  // Refuses, before allocating, a load that cannot fit in the GPU's free memory plus what this
  // renderer already holds (its circles, image and `held_extra` bytes): `extra` bytes beyond the
  // circles and the image, which `what` and `detail` describe in the message. Says what a large
  // load will use. CIRCLES_GPU_MEMORY_LIMIT_MB caps the memory seen (tests).
  void check_device_memory(std::size_t circles, int width, int height, double extra, const std::string& what,
                           const std::string& detail, double held_extra) const;
  FrameParams frame_params() const {
    return {view_, background_, image_.get(), timing_tiles_ ? tile_cycles_.get() : nullptr};
  }
  // Whether advance() may leave its animation step for the next draw() to do inside one of its
  // own kernels (take_step) instead of launching the animation kernel: one launch fewer a frame.
  virtual bool fuses_steps() const { return false; }
  // draw()'s side of a deferred step: the step (kind None when none is pending), now taken. The
  // kernel that takes it must write every circle's new state exactly once. in_place: over the
  // circles' own buffers (a kernel where one thread loads and writes each circle, and nothing
  // else reads them meanwhile); else into spare buffers, which become the circles' once draw()
  // returns (the kernel reads the old state throughout).
  FusedStep take_step(bool in_place);
  // Does a pending step now, with the animation kernel, as the stage "animate" (for a draw()
  // that cannot take it, and before anything else reads the circles).
  void flush_step();
  // The tile size of the renderer's shade kernel (the grid tile_cycles() maps), 0 if it has none.
  virtual int shade_tile() const { return 0; }
  Shading shading() const { return shading_; }
  Animation animation() const { return animation_; }

 private:
  CudaStream stream_;
  StageTimer timer_;
  DeviceBuffer<float4> pos_rad_, color_, image_;
  DeviceBuffer<float2> velocity_;
  mutable double checked_need_ = 0;  // the largest load check_device_memory passed
  // A deferred step (fuses_steps()): pending from advance() until draw() takes or flushes it.
  bool step_pending_ = false;
  std::int64_t step_frame_ = 0;  // the frame it starts from
  bool swap_after_draw_ = false;  // a step went to the spare buffers: they become current
  DeviceBuffer<float4> pos_rad_spare_;
  DeviceBuffer<float2> velocity_spare_;
  void launch_animate(std::int64_t frame);
  int count_ = 0;
  View view_;
  Background background_;
  Shading shading_ = Shading::Flat;
  Animation animation_ = Animation::None;
  std::uint64_t seed_ = 1;
  std::int64_t frame_ = 0;
  bool timing_tiles_ = false;
  long long spans_seq_ = 0;  // the newest frame take_spans() returned
  std::string profiled_;  // the stage whose kernels the counter range covers ("" none)
  DeviceBuffer<unsigned long long> tile_cycles_;  // one per tile of the smallest tile (16)
  // The cycles' copy to the host, enqueued behind a frame when none is in flight.
  std::size_t tile_count() const;  // tiles of shade_tile() over the frame
  PinnedBuffer<unsigned long long> cycles_host_;
  CudaEvent cycles_copied_;
  // Device input and output on a caller's stream (load_device, write_device): the caller's
  // arrays written, the caller's read of the frame done.
  CudaEvent input_ready_, output_read_;
  DeviceInputScratch input_scratch_;
  bool cycles_pending_ = false;
  int cycles_pending_w_ = 0, cycles_pending_h_ = 0;  // the size of the frame in flight
  std::vector<double> cycles_last_;                  // the newest copied frame's, at cycles_w_ x cycles_h_
  int cycles_w_ = 0, cycles_h_ = 0;
  DeviceBuffer<int> heat_tiles_, heat_pixels_;
  DeviceBuffer<uchar4> rgba8_;  // read_rgba8's bytes on the device
};

}  // namespace circles
