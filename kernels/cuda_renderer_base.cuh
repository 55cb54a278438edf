// What every CUDA renderer shares: the circles on the device (structure of arrays), the output
// image, the stream, the animation kernel and CUDA-event stage timings. A subclass supplies
// draw(), which clears and shades the whole frame on stream().
#pragma once
#include <string>
#include <vector>

#include "kernels/cuda_raii.h"
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
};

class CudaRenderer : public Renderer {
 public:
  CudaRenderer();
  void load(const Scene& scene, int width, int height) override;
  void advance() override;
  void render() override;
  void read_image(Image* out) override;
  std::vector<StageTiming> timings() const override;
  std::int64_t frame() const override { return frame_; }

 protected:
  virtual void draw() = 0;
  cudaStream_t stream() const { return stream_.get(); }
  DeviceCircles circles() const { return {count_, pos_rad_.get(), color_.get()}; }
  FrameParams frame_params() const { return {view_, background_, image_.get()}; }
  Shading shading() const { return shading_; }
  virtual std::string draw_stage_name() const { return "render"; }

 private:
  CudaStream stream_;
  CudaEvent ev_anim_start_, ev_anim_end_, ev_draw_start_, ev_draw_end_;
  bool advanced_ = false, rendered_ = false;
  DeviceBuffer<float4> pos_rad_, color_, image_;
  DeviceBuffer<float2> velocity_;
  int count_ = 0;
  View view_;
  Background background_;
  Shading shading_ = Shading::Flat;
  Animation animation_ = Animation::None;
  std::uint64_t seed_ = 1;
  std::int64_t frame_ = 0;
};

}  // namespace circles
