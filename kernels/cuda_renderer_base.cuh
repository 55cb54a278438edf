// What every CUDA renderer shares: the circles on the device (structure of arrays), the output
// image, the stream, the animation kernel and CUDA-event stage timings. A subclass supplies
// draw(), which clears and shades the whole frame on stream().
#pragma once
#include <string>
#include <vector>

#include "kernels/counters.h"
#include "kernels/cuda_raii.h"
#include "kernels/nvtx.h"
#include "kernels/stage_timer.h"
#include "render/raster.h"
#include "render/renderer.h"

namespace circles {

// The circles as the kernels read them: 16-byte loads, one array per use.
struct DeviceCircles {
  int count = 0;
  const float4* pos_rad = nullptr;  // x, y, z, radius
  const float4* color = nullptr;    // r, g, b, a
};

// What a frame's draw kernel needs besides the circles.
struct FrameParams {
  View view;
  Background background;
  float4* image = nullptr;  // width * height, row 0 = bottom
  // When set (the viewer's shade-time heat map), each block of the shade kernel writes the
  // clock64() cycles it took at [blockIdx.y * gridDim.x + blockIdx.x]. nullptr: off.
  unsigned long long* tile_cycles = nullptr;
};

// A block's cycles into f.tile_cycles (when on): `start` taken by thread 0 at the kernel's start,
// the end after a barrier, so the block's slowest thread counts. The condition is uniform across
// the block, so the barrier is safe; off, it costs one branch.
__device__ __forceinline__ void record_tile_cycles(const FrameParams& f, long long start) {
  if (!f.tile_cycles) return;
  __syncthreads();
  if (threadIdx.x == 0)
    f.tile_cycles[blockIdx.y * gridDim.x + blockIdx.x] = static_cast<unsigned long long>(clock64() - start);
}

class CudaRenderer : public Renderer {
 public:
  CudaRenderer();
  // Checks the GPU memory the load needs (check_device_memory), then loads.
  void load(const Scene& scene, int width, int height) override;
  void advance() override;
  void seek(std::int64_t frame) override {
    if (animation_ == Animation::None && frame > frame_) frame_ = frame;
    while (frame_ < frame) advance();
  }
  void render() override;
  void read_image(Image* out) override;
  Float4 read_pixel(int i, int j) override;
  std::vector<StageTiming> timings(bool wait) const override;
  std::int64_t frame() const override { return frame_; }
  bool heat_counts(int tile, HeatCounts* out) override;
  bool profile_stage(const std::string& stage) override {
    profiled_ = stage;
    return true;
  }
  bool time_tiles(bool on) override;
  std::vector<double> tile_cycles(int* tile, int* tiles_x, int* tiles_y) override;
  const void* device_pixels() const override { return image_.get(); }
  void* device_stream() const override { return stream_.get(); }

 protected:
  // Launches the frame's kernels on stream(), calling stage("name") after each stage.
  virtual void draw() = 0;
  // A stage's kernels sit between stage_begin(name) and stage(name): the NVTX range
  // "renderer: name" covers their launches, and stage() records the end event the timings use.
  void stage_begin(const char* name) {
    nvtx_push("renderer: ", name);
    if (!profiled_.empty() && profiled_ == name) counters_range_push(name);
  }
  void stage(const char* name) {
    if (!profiled_.empty() && profiled_ == name) counters_range_pop();
    timer_.mark(name, stream());
    nvtx_pop();
  }
  cudaStream_t stream() const { return stream_.get(); }
  DeviceCircles circles() const { return {count_, pos_rad_.get(), color_.get()}; }
  // Refuses, before allocating, a load that cannot fit in the GPU's free memory (plus what this
  // renderer already holds): `extra` bytes beyond the circles and the image, which `what` and
  // `detail` describe in the message. Says what a large load will use. CIRCLES_GPU_MEMORY_LIMIT_MB
  // caps the free memory seen (tests).
  // load() without the memory check, for renderers that check a larger need themselves.
  void load_unchecked(const Scene& scene, int width, int height);
  void check_device_memory(const Scene& scene, int width, int height, double extra, const std::string& what,
                           const std::string& detail, double held_extra) const;
  FrameParams frame_params() const {
    return {view_, background_, image_.get(), timing_tiles_ ? tile_cycles_.get() : nullptr};
  }
  // The tile size of the renderer's shade kernel (the grid tile_cycles() maps), 0 if it has none.
  virtual int shade_tile() const { return 0; }
  Shading shading() const { return shading_; }

 private:
  CudaStream stream_;
  StageTimer timer_;
  DeviceBuffer<float4> pos_rad_, color_, image_;
  DeviceBuffer<float2> velocity_;
  int count_ = 0;
  View view_;
  Background background_;
  Shading shading_ = Shading::Flat;
  Animation animation_ = Animation::None;
  std::uint64_t seed_ = 1;
  std::int64_t frame_ = 0;
  bool timing_tiles_ = false;
  std::string profiled_;  // the stage whose kernels the counter range covers ("" none)
  DeviceBuffer<unsigned long long> tile_cycles_;  // one per tile of the smallest tile (16)
  DeviceBuffer<int> heat_tiles_, heat_pixels_;
};

}  // namespace circles
