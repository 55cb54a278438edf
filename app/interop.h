// CUDA-GL interop: presents a CUDA renderer's float4 device image without a copy to the host.
// The frame texture (GL_RGBA8) is registered with CUDA once per size
// (cudaGraphicsGLRegisterImage, surface load/store); each frame it is mapped on the renderer's
// stream, written by a kernel through a surface object, and unmapped, so GL then samples it.
// Plain C++ interface (no CUDA or GL headers): the implementation is app/interop_cuda.cpp and
// app/interop_present.cu, compiled only when the build has CUDA.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "render/renderer.h"

namespace circles {

class CudaGlInterop {
 public:
  virtual ~CudaGlInterop() = default;
  // Registers GL texture `texture` (GL_RGBA8, width x height) with CUDA, replacing any earlier
  // registration. Throws (CudaError) when CUDA refuses, e.g. a GL context on another device.
  virtual void attach(unsigned int texture, int width, int height) = 0;
  // Unregisters (before the texture is deleted).
  virtual void detach() = 0;
  virtual bool attached() const = 0;
  // Writes `device_pixels` (float4 RGBA, width * height, row 0 = bottom) into the texture on
  // `stream` (a cudaStream_t): map, convert kernel, unmap. Throws on any CUDA error.
  virtual void present(const void* device_pixels, void* stream) = 0;
  // The newest finished frame's "map", "convert", "unmap" times (CUDA events); never blocks.
  virtual std::vector<StageTiming> timings() const = 0;
};

// The interop presenter; nullptr with *why_not when this build has no CUDA.
std::unique_ptr<CudaGlInterop> make_cuda_gl_interop(std::string* why_not);

}  // namespace circles
