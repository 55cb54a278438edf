// Circles that are already on the GPU (a PyTorch or CuPy array, the library's device arrays):
// gathered from their strided fields into the renderers' arrays and checked there, one thread a
// circle, with the facts the modes' refusals and cuda-tile-binned's plan read; the host sees a
// few bytes, never the circles. And the frame out to device memory, top row first, for a caller
// who keeps it on the GPU.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "kernels/cuda/raii.h"
#include "render/circle_arrays.h"
#include "render/modes.h"

namespace circles {

// What gathering found: ModeFacts, and the first bad circle (kNone: none), and a sample of radii
// (every `step`-th circle's, as binned's scene_facts samples host circles).
struct DeviceInputFacts {
  ModeFacts modes;
  std::size_t first_bad = ModeFacts::kNone;
  std::vector<float> radius_sample;
};

// Device memory a renderer keeps for gathering, so that a load allocates (and frees, which
// waits for the whole device) nothing once warm.
// The facts and the sample come back to page-locked memory, behind the gather on its stream.
struct DeviceInputScratch {
  DeviceBuffer<unsigned long long> facts;
  DeviceBuffer<float> sample;
  PinnedBuffer<unsigned long long> facts_host;
  PinnedBuffer<float> sample_host;
  std::size_t sample_count = 0;
};

// Enqueues on `stream` the gather of arrays.{xy, radius, color, alpha, z, velocity} (device
// pointers, but for fields marked host_constant: a scalar or a colour row in host memory, passed
// by value; shapes already checked by circle_count) into pos (x y z radius), color (r g b a) and
// velocity, n circles (at most 2^31 - 1), with a radius every `sample_step` circles (0: none), and
// the copy of its facts to the host. A bad circle is stored as zeros.
void begin_gather_device_circles(const CircleArrays& arrays, std::size_t n, Shading shading, float4* pos,
                                 float4* color, float2* velocity, std::size_t sample_step, DeviceInputScratch* scratch,
                                 cudaStream_t stream);

// Waits for `stream` (which may hold more work enqueued behind the gather: one wait for all of it)
// and returns the facts. A bad element throws ArrayError with the message gather_circles gives for
// it (that circle's values are copied back to say which and why).
DeviceInputFacts end_gather_device_circles(const CircleArrays& arrays, DeviceInputScratch* scratch,
                                           cudaStream_t stream);

// The frame (float4, row 0 at the bottom) into `dst`, top row first: 8-bit RGBA (to_byte) or
// float RGBA, `row_stride` bytes apart, on `stream`.
void write_frame_top_down(const float4* image, int width, int height, void* dst, std::size_t row_stride, bool float32,
                          cudaStream_t stream);

}  // namespace circles
