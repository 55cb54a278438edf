#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "kernels/cuda/check.h"
#include "kernels/cuda/raii.h"
#include "kernels/lab/frame_stats.h"
#include "kernels/lab/lab_launch.h"
#include "kernels/cuda/nvtx.h"
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

// One thread per pixel: the float4 image as four f32 planes (the transposes' input). Memory-bound.
__global__ void colour_planes_kernel(const float4* __restrict__ image, std::size_t n, float* __restrict__ planes) {
  const std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const float4 p = image[k];
  planes[k] = p.x;
  planes[n + k] = p.y;
  planes[2 * n + k] = p.z;
  planes[3 * n + k] = p.w;
}

// One thread per texel: four transposed planes back into float4 pixels and 8-bit texels (rows
// already bottom first, as the texture wants). Memory-bound.
__global__ void interleave_kernel(const float* __restrict__ planes, std::size_t n, float4* __restrict__ image,
                                  uchar4* __restrict__ texels) {
  const std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const float4 p = make_float4(planes[k], planes[n + k], planes[2 * n + k], planes[3 * n + k]);
  image[k] = p;
  texels[k] = make_uchar4(to_byte(p.x), to_byte(p.y), to_byte(p.z), to_byte(p.w));
}

// One thread per pixel: |a - b| of each channel into four f32 planes. Memory-bound (32 B read,
// 16 B written per pixel).
__global__ void diff_planes_kernel(const float4* __restrict__ a, const float4* __restrict__ b, std::size_t n,
                                   float* __restrict__ planes) {
  const std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const float4 p = a[k], q = b[k];
  planes[k] = fabsf(p.x - q.x);
  planes[n + k] = fabsf(p.y - q.y);
  planes[2 * n + k] = fabsf(p.z - q.z);
  planes[3 * n + k] = fabsf(p.w - q.w);
}

// The maximum of four planes of non-negative floats: a grid-stride loop, warp shuffles, one
// atomicMax per warp on the float's bits (non-negative floats order like their bit patterns).
// Bandwidth-bound like reduce-shuffle; the atomics are few (one per warp per plane).
__global__ void max_planes_kernel(const float* __restrict__ planes, std::size_t n, unsigned* __restrict__ out) {
  const int c = blockIdx.y;
  const float* p = planes + c * n;
  float m = 0.f;
  for (std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n;
       k += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    m = fmaxf(m, p[k]);
  for (int off = 16; off > 0; off >>= 1) m = fmaxf(m, __shfl_down_sync(0xffffffffu, m, off));
  if ((threadIdx.x & 31) == 0) atomicMax(out + c, __float_as_uint(m));
}

// A lab launcher's arguments for one f32 plane of the frame.
LaunchArgs plane_args(const float* in, float* out, Shape shape, int param, Scratch* scratch, cudaStream_t st) {
  LaunchArgs a;
  a.in = in;
  a.out = out;
  a.shape = shape;
  a.type = Elem::f32;
  a.param = param;
  a.scratch = scratch;
  a.stream = st;
  return a;
}

unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + 255) / 256); }

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
    launch(plane_args(m.planes.get() + c * n, m.sums.get() + c, Shape{n, 0, 0}, param, &m.scratch, st));
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
  if (!m.stop.done(wait)) return std::nullopt;
  m.pending = false;
  FrameStats s;
  s.pixels = m.pixels;
  for (int c = 0; c < 4; ++c) s.mean[c] = m.host[c] / m.pixels;
  s.touched = m.host[4];
  s.ms = m.stop.since(m.start);
  return s;
}

DiffStats diff_stats_gpu(const Image& a, const Image& b, LaunchFn sum, int param) {
  if (a.width != b.width || a.height != b.height) throw std::invalid_argument("diff_stats_gpu: images differ in size");
  const std::size_t n = a.pixels.size();
  DiffStats d;
  if (n == 0) return d;
  NvtxScope range("lab: difference statistics");
  CudaStream stream;
  const cudaStream_t st = stream.get();
  DeviceBuffer<float4> da, db;
  da.upload(reinterpret_cast<const float4*>(a.pixels.data()), n, st);
  db.upload(reinterpret_cast<const float4*>(b.pixels.data()), n, st);
  DeviceBuffer<float> planes(4 * n), sums(4);
  DeviceBuffer<unsigned> maxima(4);
  Scratch scratch;
  CudaEvent start, stop;
  start.record(st);
  diff_planes_kernel<<<blocks_for(n), 256, 0, st>>>(da.get(), db.get(), n, planes.get());
  CUDA_CHECK_LAUNCH();
  for (int c = 0; c < 4; ++c) {
    sum(plane_args(planes.get() + c * n, sums.get() + c, Shape{n, 0, 0}, param, &scratch, st));
  }
  CUDA_CHECK(cudaMemsetAsync(maxima.get(), 0, 4 * sizeof(unsigned), st));
  max_planes_kernel<<<dim3(std::min<unsigned>(blocks_for(n), 1024), 4), 256, 0, st>>>(planes.get(), n, maxima.get());
  CUDA_CHECK_LAUNCH();
  stop.record(st);
  float host_sums[4];
  unsigned host_max[4];
  CUDA_CHECK(cudaMemcpyAsync(host_sums, sums.get(), sizeof host_sums, cudaMemcpyDeviceToHost, st));
  CUDA_CHECK(cudaMemcpyAsync(host_max, maxima.get(), sizeof host_max, cudaMemcpyDeviceToHost, st));
  CUDA_CHECK(cudaStreamSynchronize(st));
  for (int c = 0; c < 4; ++c) {
    d.sum_abs[c] = host_sums[c];
    float m;
    std::memcpy(&m, &host_max[c], sizeof m);
    d.max_abs[c] = m;
  }
  d.ms = stop.since(start);
  return d;
}

struct FrameTransposer::Impl {
  DeviceBuffer<float> planes, transposed;
  DeviceBuffer<float4> image;
  DeviceBuffer<uchar4> texels;
  Scratch scratch;
  std::uint8_t* host = nullptr;  // pinned texels
  std::size_t host_bytes = 0;
  CudaEvent start, mid, stop;
  bool pending = false, have_image = false;
  int width = 0, height = 0;  // of the transposed picture
  ~Impl() {
    if (host) CUDA_CHECK_PRINT(cudaFreeHost(host));
  }
};

FrameTransposer::FrameTransposer() = default;
FrameTransposer::~FrameTransposer() {
  if (impl_ && impl_->pending) CUDA_CHECK_PRINT(cudaEventSynchronize(impl_->stop.get()));
}

bool FrameTransposer::enqueue(LaunchFn launch, int param, const void* image, int width, int height, void* stream_ptr) {
  if (!impl_) impl_ = std::make_unique<Impl>();
  Impl& m = *impl_;
  if (m.pending || width < 1 || height < 1) return false;
  const cudaStream_t st = static_cast<cudaStream_t>(stream_ptr);
  const std::size_t n = static_cast<std::size_t>(width) * height;
  NvtxScope range("lab: transpose view");
  m.planes.reserve(4 * n);
  m.transposed.reserve(4 * n);
  m.image.reserve(n);
  m.texels.reserve(n);
  if (m.host_bytes < 4 * n) {
    if (m.host) CUDA_CHECK(cudaFreeHost(m.host));
    m.host = nullptr;
    CUDA_CHECK(cudaMallocHost(&m.host, 4 * n));
    m.host_bytes = 4 * n;
  }
  colour_planes_kernel<<<blocks_for(n), 256, 0, st>>>(static_cast<const float4*>(image), n, m.planes.get());
  CUDA_CHECK_LAUNCH();
  m.start.record(st);
  for (int c = 0; c < 4; ++c) {
    launch(plane_args(m.planes.get() + c * n, m.transposed.get() + c * n, Shape{n, width, height}, param,
                      &m.scratch, st));
  }
  m.mid.record(st);
  interleave_kernel<<<blocks_for(n), 256, 0, st>>>(m.transposed.get(), n, m.image.get(), m.texels.get());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaMemcpyAsync(m.host, m.texels.get(), 4 * n, cudaMemcpyDeviceToHost, st));
  m.stop.record(st);
  m.pending = true;
  m.width = height;
  m.height = width;
  return true;
}

std::optional<TransposedFrame> FrameTransposer::poll(bool wait) {
  if (!impl_ || !impl_->pending) return std::nullopt;
  Impl& m = *impl_;
  if (!m.stop.done(wait)) return std::nullopt;
  m.pending = false;
  m.have_image = true;
  TransposedFrame t;
  t.width = m.width;
  t.height = m.height;
  t.rgba8.assign(m.host, m.host + 4 * static_cast<std::size_t>(m.width) * m.height);
  t.ms = m.mid.since(m.start);
  return t;
}

void FrameTransposer::read_image(Image* out) {
  *out = Image();
  if (!impl_) return;
  Impl& m = *impl_;
  if (m.pending) poll(true);
  if (!m.have_image) return;
  *out = Image(m.width, m.height);
  CUDA_CHECK(cudaMemcpy(out->pixels.data(), m.image.get(), out->pixels.size() * sizeof(float4), cudaMemcpyDeviceToHost));
}

}  // namespace circles::lab
