#include <cuda_runtime.h>

#include "kernels/cuda_check.h"
#include "kernels/cuda_raii.h"
#include "kernels/lab/frame_stats.h"
#include "kernels/lab/lab_launch.h"
#include "kernels/nvtx.h"
#include "render/raster.h"

namespace circles::lab {

namespace {

// One thread per pixel: the frame's float4 split into four f32 planes plus a 1/0 plane of pixels
// that differ from the background. Memory-bound: 16 bytes read, 20 written per pixel.
__global__ void frame_planes_kernel(const float4* __restrict__ image, int width, int height, Background bg,
                                    float* __restrict__ planes) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y;
  if (i >= width) return;
  const std::size_t n = static_cast<std::size_t>(width) * height, k = static_cast<std::size_t>(j) * width + i;
  const float4 p = image[k];
  const Float4 b = background_at(bg, j, height);
  planes[k] = p.x;
  planes[n + k] = p.y;
  planes[2 * n + k] = p.z;
  planes[3 * n + k] = p.w;
  planes[4 * n + k] = (p.x != b.x || p.y != b.y || p.z != b.z || p.w != b.w) ? 1.f : 0.f;
}

}  // namespace

struct FrameReducer::Impl {
  DeviceBuffer<float> planes, sums;
  Scratch scratch;
  float* host = nullptr;  // pinned: 5 sums
  CudaEvent start, stop;
  bool pending = false;
  double pixels = 0;
  Impl() {
    sums.resize(5);
    CUDA_CHECK(cudaMallocHost(&host, 5 * sizeof(float)));
  }
  ~Impl() { CUDA_CHECK_PRINT(cudaFreeHost(host)); }
};

// CUDA resources are made on the first request: a reducer that never runs (no GPU) touches none.
FrameReducer::FrameReducer() = default;
FrameReducer::~FrameReducer() {
  if (impl_ && impl_->pending) CUDA_CHECK_PRINT(cudaEventSynchronize(impl_->stop.get()));
}

bool FrameReducer::enqueue(LaunchFn launch, int param, const void* image, int width, int height,
                           const Background& bg, void* stream_ptr) {
  if (!impl_) impl_ = std::make_unique<Impl>();
  Impl& m = *impl_;
  if (m.pending || width < 1 || height < 1) return false;
  const cudaStream_t st = static_cast<cudaStream_t>(stream_ptr);
  const std::size_t n = static_cast<std::size_t>(width) * height;
  NvtxScope range("lab: frame reductions");
  m.planes.reserve(5 * n);
  m.start.record(st);
  frame_planes_kernel<<<dim3((width + 255) / 256, height), 256, 0, st>>>(static_cast<const float4*>(image), width,
                                                                          height, bg, m.planes.get());
  CUDA_CHECK_LAUNCH();
  for (int c = 0; c < 5; ++c) {
    LaunchArgs a;
    a.in = m.planes.get() + c * n;
    a.out = m.sums.get() + c;
    a.shape.n = n;
    a.type = Elem::f32;
    a.param = param;
    a.scratch = &m.scratch;
    a.stream = st;
    launch(a);
  }
  CUDA_CHECK(cudaMemcpyAsync(m.host, m.sums.get(), 5 * sizeof(float), cudaMemcpyDeviceToHost, st));
  m.stop.record(st);
  m.pending = true;
  m.pixels = static_cast<double>(n);
  return true;
}

std::optional<FrameStats> FrameReducer::poll(bool wait) {
  if (!impl_) return std::nullopt;
  Impl& m = *impl_;
  if (!m.pending) return std::nullopt;
  if (wait) {
    CUDA_CHECK(cudaEventSynchronize(m.stop.get()));
  } else {
    const cudaError_t q = cudaEventQuery(m.stop.get());
    if (q == cudaErrorNotReady) return std::nullopt;
    CUDA_CHECK(q);
  }
  m.pending = false;
  FrameStats s;
  s.pixels = m.pixels;
  for (int c = 0; c < 4; ++c) s.mean[c] = m.host[c] / m.pixels;
  s.touched = m.host[4];
  s.ms = m.stop.since(m.start);
  return s;
}

}  // namespace circles::lab
