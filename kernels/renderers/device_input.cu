// Circles from device arrays, gathered and checked on the GPU; frames out to device memory
// (kernels/renderers/device_input.cuh). One thread a circle: memory-bound, a few loads and
// stores each, the facts combined with atomics that only the rare circle reaches.
#include "kernels/renderers/device_input.cuh"

#include <cuda_fp16.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "kernels/cuda/check.h"
#include "kernels/cuda/raii.h"
#include "render/raster.h"

namespace circles {

namespace {

// One field as the kernel reads it: element (i, j) at data + i * s0 + j * s1 (0 where broadcast).
struct DevField {
  const char* data = nullptr;
  int dtype = 1;  // 0 f16, 1 f32, 2 f64
  long long s0 = 0, s1 = 0;
  bool constant = false;  // a host scalar or colour row, its values here
  double value[4] = {0, 0, 0, 0};
};

struct DevInput {
  DevField xy, radius, color, alpha, z, velocity;
  int color_cols = 0;  // 0: no colour
  bool color_row = false, has_alpha = false, has_z = false, has_velocity = false;
  unsigned long long n = 0;
  Shading shading = Shading::Flat;
};

// The facts, combined by the threads: first indices by atomicMin, the faint ones counted. The
// first alpha that is not a sixteenth comes with its value: index << 32 | the float's bits.
struct DevFacts {
  unsigned long long first_bad, first_colour_outside, first_alpha_outside, first_alpha_not_sixteenth, first_faint;
  unsigned long long faint;
};
constexpr int kFactWords = sizeof(DevFacts) / sizeof(unsigned long long);

DevField field_of(const ArrayView& a, bool broadcast_row = false) {
  DevField f;
  f.dtype = a.dtype == DType::F16 ? 0 : a.dtype == DType::F32 ? 1 : 2;
  if (a.host_constant) {  // broadcast: the same values for every circle
    if (a.ndim > 1 || (a.ndim == 1 && (!broadcast_row || a.shape[0] > 4)))
      throw ArrayError("circles", "a field in host memory beside GPU arrays must be a scalar or a colour row");
    f.constant = true;
    const int count = a.ndim == 0 ? 1 : static_cast<int>(a.shape[0]);
    for (int k = 0; k < count; ++k) f.value[k] = array_value(a, k * (a.ndim ? a.strides[0] : 0));
    return f;
  }
  f.data = static_cast<const char*>(a.data);
  if (a.ndim == 2) {
    f.s0 = a.strides[0];
    f.s1 = a.strides[1];
  } else if (a.ndim == 1) {
    if (broadcast_row) f.s1 = a.strides[0];  // one row of columns, the same for every circle
    else f.s0 = a.strides[0];
  }
  return f;
}

__device__ double load(const DevField& f, unsigned long long i, int j) {
  if (f.constant) return f.value[j];
  const char* p = f.data + static_cast<long long>(i) * f.s0 + j * f.s1;
  if (f.dtype == 0) {
    __half h;
    memcpy(&h, p, 2);
    return static_cast<double>(__half2float(h));
  }
  if (f.dtype == 1) {
    float v;
    memcpy(&v, p, 4);
    return v;
  }
  double v;
  memcpy(&v, p, 8);
  return v;
}

// The scene format's rules (render/circle_arrays.cpp's *_problem), as tests.
__device__ bool position_ok(double v) { return v >= -1e6 && v <= 1e6; }  // false for NaN and infinities
__device__ bool radius_ok(double v) { return v > 0 && static_cast<float>(v) > 0.f && v <= 1e6; }
__device__ bool intensity_ok(double v) { return v >= 0 && v <= 1e6; }
__device__ bool unit_ok(double v) { return v >= 0 && v <= 1; }

__device__ bool in_unit(float v) { return v >= 0.f && v <= 1.f; }

__global__ void gather_kernel(DevInput in, float4* pos, float4* col, float2* vel, DevFacts* facts) {
  const unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  if (i >= in.n) return;
  const double x = load(in.xy, i, 0), y = load(in.xy, i, 1);
  const double r = load(in.radius, i, 0);
  const double z = in.has_z ? load(in.z, i, 0) : 0.0;
  double rgba[4] = {0, 0, 0, 1};
  bool ok = position_ok(x) && position_ok(y) && radius_ok(r) && position_ok(z);
  for (int k = 0; k < in.color_cols; ++k) {
    rgba[k] = load(in.color, i, k);
    ok &= k < 3 ? intensity_ok(rgba[k]) : unit_ok(rgba[k]);
  }
  if (in.has_alpha) {
    rgba[3] = load(in.alpha, i, 0);
    ok &= unit_ok(rgba[3]);
  }
  double vx = 0, vy = 0;
  if (in.has_velocity) {
    vx = load(in.velocity, i, 0);
    vy = load(in.velocity, i, 1);
    ok &= position_ok(vx) && position_ok(vy);
  }
  if (!ok) {  // stored as zeros, so that what reads the circles before the check is seen reads numbers
    atomicMin(&facts->first_bad, i);
    pos[i] = make_float4(0.f, 0.f, 0.f, 0.f);
    col[i] = make_float4(0.f, 0.f, 0.f, 0.f);
    vel[i] = make_float2(0.f, 0.f);
    return;
  }
  const float4 p = make_float4(static_cast<float>(x), static_cast<float>(y), static_cast<float>(z), static_cast<float>(r));
  const float4 c = make_float4(static_cast<float>(rgba[0]), static_cast<float>(rgba[1]), static_cast<float>(rgba[2]),
                               static_cast<float>(rgba[3]));
  pos[i] = p;
  col[i] = c;
  vel[i] = make_float2(static_cast<float>(vx), static_cast<float>(vy));
  // ModeFacts (render/modes.cpp's mode_facts), on the floats as stored.
  if (!(in_unit(c.x) && in_unit(c.y) && in_unit(c.z))) atomicMin(&facts->first_colour_outside, i);
  if (!in_unit(c.w)) atomicMin(&facts->first_alpha_outside, i);
  if (!alpha_half_to_one_in_sixteenths(c.w))
    atomicMin(&facts->first_alpha_not_sixteenth, i << 32 | __float_as_uint(c.w));
  if (circle_is_faint(in.shading, c.w, p.z)) {
    atomicAdd(&facts->faint, 1ull);
    atomicMin(&facts->first_faint, i);
  }
}

__global__ void sample_radii_kernel(const float4* pos, unsigned long long n, unsigned long long step, float* out,
                                    unsigned long long count) {
  const unsigned long long k = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  if (k < count && k * step < n) out[k] = pos[k * step].w;
}

// Element (i, j) of a field, copied back: its bytes at the offset the kernel reads.
void copy_element(const ArrayView& a, std::int64_t offset, void* dst) {
  if (a.host_constant) {
    std::memcpy(dst, static_cast<const char*>(a.data) + offset, static_cast<std::size_t>(dtype_size(a.dtype)));
    return;
  }
  CUDA_CHECK(cudaMemcpy(dst, static_cast<const char*>(a.data) + offset, static_cast<std::size_t>(dtype_size(a.dtype)),
                        cudaMemcpyDeviceToHost));
}

// Circle i's fields copied to the host as arrays of one circle (broadcast fields whole), for
// check_circle to say what is wrong with it in gather_circles's words.
[[noreturn]] void throw_bad_circle(const CircleArrays& a, std::size_t i) {
  CircleArrays one;
  std::vector<double> store(32);  // room for every element, 8 bytes each
  int slot = 0;
  auto take = [&](const ArrayView& f, ArrayView* out, int cols, bool per_circle) {
    if (!f.present()) return;
    *out = f;
    char* base = reinterpret_cast<char*>(&store[static_cast<std::size_t>(slot)]);
    const int size = dtype_size(f.dtype);
    const int count = f.ndim == 0 ? 1 : cols;
    for (int k = 0; k < count; ++k) {
      std::int64_t off = 0;
      if (f.ndim == 2) off = static_cast<std::int64_t>(i) * f.strides[0] + k * f.strides[1];
      else if (f.ndim == 1) off = per_circle ? static_cast<std::int64_t>(i) * f.strides[0] : k * f.strides[0];
      copy_element(f, off, base + k * size);
    }
    slot += 4;
    out->data = base;
    if (f.ndim == 2) {
      out->shape[0] = 1;
      out->strides[0] = cols * size;
      out->strides[1] = size;
    } else if (f.ndim == 1) {
      if (per_circle) out->shape[0] = 1;
      out->strides[0] = size;
    }
  };
  const int color_cols = a.color.present() ? static_cast<int>(a.color.shape[a.color.ndim - 1]) : 0;
  take(a.xy, &one.xy, 2, true);
  take(a.radius, &one.radius, 1, true);
  take(a.color, &one.color, color_cols, a.color.ndim == 2);
  take(a.alpha, &one.alpha, 1, true);
  take(a.z, &one.z, 1, true);
  take(a.velocity, &one.velocity, 2, true);
  check_circle(one, 0, i);
  throw ArrayError("circles", "circle " + std::to_string(i) + " was refused on the GPU but passes on the host");
}

__global__ void frame_out_kernel(const float4* image, int width, int height, char* dst, std::size_t row_stride,
                                 bool float32) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = blockIdx.y;
  if (i >= width) return;
  const float4 v = image[static_cast<std::size_t>(height - 1 - j) * width + i];
  char* row = dst + static_cast<std::size_t>(j) * row_stride;
  if (float32) {
    reinterpret_cast<float4*>(row)[i] = v;
  } else {
    reinterpret_cast<uchar4*>(row)[i] = make_uchar4(to_byte(v.x), to_byte(v.y), to_byte(v.z), to_byte(v.w));
  }
}

}  // namespace

void begin_gather_device_circles(const CircleArrays& arrays, std::size_t n, Shading shading, float4* pos,
                                 float4* color, float2* velocity, std::size_t sample_step, DeviceInputScratch* scratch,
                                 cudaStream_t stream) {
  if (n > static_cast<std::size_t>(std::numeric_limits<int>::max()))  // the alpha fact packs an index in 32 bits
    throw std::invalid_argument("xy: " + std::to_string(n) + " circles, more than a device gather takes (2^31 - 1)");
  DevInput in;
  in.n = n;
  in.shading = shading;
  in.xy = field_of(arrays.xy);
  in.radius = field_of(arrays.radius);
  if (arrays.color.present()) {
    in.color_row = arrays.color.ndim == 1;
    in.color_cols = static_cast<int>(arrays.color.shape[arrays.color.ndim - 1]);
    in.color = field_of(arrays.color, in.color_row);
  }
  in.has_alpha = arrays.alpha.present();
  if (in.has_alpha) in.alpha = field_of(arrays.alpha);
  in.has_z = arrays.z.present();
  if (in.has_z) in.z = field_of(arrays.z);
  in.has_velocity = arrays.velocity.present();
  if (in.has_velocity) in.velocity = field_of(arrays.velocity);
  if (in.xy.constant || in.velocity.constant)
    throw ArrayError(in.xy.constant ? "xy" : "velocity", "in host memory while other arrays are on the GPU");

  // The initial facts: every first index none, no faint circle.
  scratch->facts.reserve(kFactWords);
  scratch->facts_host.reserve(kFactWords);
  unsigned long long* host = scratch->facts_host.get();
  for (int k = 0; k < kFactWords; ++k) host[k] = k == kFactWords - 1 ? 0 : ~0ull;
  DevFacts* facts = reinterpret_cast<DevFacts*>(scratch->facts.get());
  CUDA_CHECK(cudaMemcpyAsync(facts, host, sizeof(DevFacts), cudaMemcpyHostToDevice, stream));
  const unsigned long long count = sample_step ? (n + sample_step - 1) / sample_step : 0;
  scratch->sample_count = static_cast<std::size_t>(count);
  scratch->sample.reserve(std::max<unsigned long long>(count, 1));
  scratch->sample_host.reserve(std::max<unsigned long long>(count, 1));
  float* sample = scratch->sample.get();
  if (n) {
    const int threads = 256;
    gather_kernel<<<static_cast<unsigned>((n + threads - 1) / threads), threads, 0, stream>>>(in, pos, color, velocity,
                                                                                                facts);
    CUDA_CHECK_LAUNCH();
    if (count) {
      sample_radii_kernel<<<static_cast<unsigned>((count + threads - 1) / threads), threads, 0, stream>>>(
          pos, n, sample_step, sample, count);
      CUDA_CHECK_LAUNCH();
    }
  }
  // Behind the kernels; the host's initial values above were copied before these overwrite them.
  CUDA_CHECK(cudaMemcpyAsync(host, facts, sizeof(DevFacts), cudaMemcpyDeviceToHost, stream));
  if (count)
    CUDA_CHECK(cudaMemcpyAsync(scratch->sample_host.get(), sample, count * sizeof(float), cudaMemcpyDeviceToHost,
                               stream));
}

DeviceInputFacts end_gather_device_circles(const CircleArrays& arrays, DeviceInputScratch* scratch,
                                           cudaStream_t stream) {
  CUDA_CHECK(cudaStreamSynchronize(stream));
  DevFacts got;
  std::memcpy(&got, scratch->facts_host.get(), sizeof got);
  const unsigned long long none = ~0ull;
  if (got.first_bad != none) throw_bad_circle(arrays, static_cast<std::size_t>(got.first_bad));
  DeviceInputFacts out;
  out.radius_sample.assign(scratch->sample_host.get(), scratch->sample_host.get() + scratch->sample_count);
  auto index = [&](unsigned long long v) { return v == none ? ModeFacts::kNone : static_cast<std::size_t>(v); };
  out.modes.first_colour_outside = index(got.first_colour_outside);
  out.modes.first_alpha_outside = index(got.first_alpha_outside);
  out.modes.faint = static_cast<std::size_t>(got.faint);
  out.modes.first_faint = got.faint ? static_cast<std::size_t>(got.first_faint) : 0;
  if (got.first_alpha_not_sixteenth != none) {
    out.modes.first_alpha_not_sixteenth = static_cast<std::size_t>(got.first_alpha_not_sixteenth >> 32);
    const std::uint32_t bits = static_cast<std::uint32_t>(got.first_alpha_not_sixteenth & 0xffffffffu);
    std::memcpy(&out.modes.that_alpha, &bits, sizeof bits);
  }
  return out;
}

void write_frame_top_down(const float4* image, int width, int height, void* dst, std::size_t row_stride, bool float32,
                          cudaStream_t stream) {
  if (width <= 0 || height <= 0) return;
  const int threads = 256;
  frame_out_kernel<<<dim3(static_cast<unsigned>((width + threads - 1) / threads), static_cast<unsigned>(height)),
                     threads, 0, stream>>>(image, width, height, static_cast<char*>(dst), row_stride, float32);
  CUDA_CHECK_LAUNCH();
}

}  // namespace circles
