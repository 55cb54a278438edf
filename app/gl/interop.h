// CUDA-GL interop: presents a CUDA renderer's float4 device image without a copy to the host.
// Two paths (`circles view --present surface|pbo`), to be measured side by side:
// - surface: the frame texture (GL_RGBA8) is registered with CUDA once per size
//   (cudaGraphicsGLRegisterImage, surface load/store); each frame it is mapped on the renderer's
//   stream, written by a kernel through a surface object, and unmapped, so GL then samples it.
// - pbo: a pixel buffer (GL_PIXEL_UNPACK_BUFFER, width * height * 4 bytes) is registered once per
//   size (cudaGraphicsGLRegisterBuffer, write-discard); each frame it is mapped on the renderer's
//   stream, the same kernel writes RGBA8 bytes through its device pointer, it is unmapped, and
//   the caller copies it into the texture with glTexSubImage2D (Presenter::upload_from_pixel_buffer).
// Plain C++ interface (no CUDA or GL headers): the implementation is app/gl/interop_cuda.cpp and
// app/gl/interop_present.cu, compiled only when the build has CUDA.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "render/renderer.h"

namespace circles {

enum class InteropPath { Surface, Pbo };

// "surface" or "pbo" (the --present value).
inline const char* interop_path_name(InteropPath p) { return p == InteropPath::Pbo ? "pbo" : "surface"; }

class CudaGlInterop {
 public:
  virtual ~CudaGlInterop() = default;
  virtual InteropPath path() const = 0;
  // Registers the GL object `name` with CUDA, replacing any earlier registration: the frame
  // texture (GL_RGBA8, width x height) on the surface path, the pixel buffer (width * height * 4
  // bytes) on the pbo path. Throws (CudaError) when CUDA refuses, e.g. a GL context on another
  // device.
  virtual void attach(unsigned int name, int width, int height) = 0;
  // Unregisters (before the GL object is deleted).
  virtual void detach() = 0;
  virtual bool attached() const = 0;
  // Writes `device_pixels` (float4 RGBA, width * height, row 0 = bottom) into the registered
  // object as RGBA8 on `stream` (a cudaStream_t): map, convert kernel, unmap. Unmapping orders
  // GL work issued afterwards (the draw; on the pbo path first the texture upload) after it.
  // Throws on any CUDA error.
  virtual void present(const void* device_pixels, void* stream) = 0;
  // The newest finished frame's "map", "convert", "unmap" times (CUDA events); never blocks.
  virtual std::vector<StageTiming> timings() const = 0;
};

// The interop presenter for `path`; nullptr with *why_not when this build has no CUDA.
std::unique_ptr<CudaGlInterop> make_cuda_gl_interop(InteropPath path, std::string* why_not);

}  // namespace circles
