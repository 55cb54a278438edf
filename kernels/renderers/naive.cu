// cuda-naive: one thread per pixel, looping over every circle in order.
#include "kernels/renderers/config.h"
#include "kernels/renderers/base.cuh"
#include "kernels/renderers/cuda_renderers.h"

namespace circles {

namespace {

// Shades a pixel a thread, testing every circle in order: slow, pixels x N tests.
// Memory is cheap: a warp's threads read the same circle at once (a broadcast), and a colour
// only for a circle that covers the pixel.
template <Shading S>
__global__ void render_naive_kernel(DeviceCircles circles, FrameParams f) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= f.view.width || j >= f.view.height) return;
  const float px = f.view.pixel_x(i), py = f.view.pixel_y(j);
  Float4 c = background_at(f.background, j, f.view.height);
  for (int k = 0; k < circles.count; ++k) {
    const float4 p = circles.pos_rad[k];
    const float dx = px - p.x, dy = py - p.y;
    if (!covers_point(dx, dy, p.w * p.w)) continue;  // blend_circle's test, before loading the colour
    const float4 col = circles.color[k];
    blend_circle(S, px, py, p.x, p.y, p.z, p.w, col.x, col.y, col.z, col.w, &c);
  }
  f.image[static_cast<std::size_t>(j) * f.view.width + i] = make_float4(c.x, c.y, c.z, c.w);
}

class CudaNaiveRenderer final : public CudaRenderer {
  void draw() override {
    stage_begin("clear+shade");
    const FrameParams f = frame_params();
    const dim3 block(kNaiveBlockX, kNaiveBlockY);
    const dim3 grid((f.view.width + block.x - 1) / block.x, (f.view.height + block.y - 1) / block.y);
    if (shading() == Shading::Snow)
      render_naive_kernel<Shading::Snow><<<grid, block, 0, stream()>>>(circles(), f);
    else
      render_naive_kernel<Shading::Flat><<<grid, block, 0, stream()>>>(circles(), f);
    CUDA_CHECK_LAUNCH();
    stage("clear+shade");
  }
};

}  // namespace

std::unique_ptr<Renderer> make_cuda_naive_renderer(const RendererSettings&) {
  return std::make_unique<CudaNaiveRenderer>();
}

}  // namespace circles
