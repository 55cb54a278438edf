// CUDA-GL interop: presents a CUDA renderer's float4 device image without a copy to the host.
// Three paths (`circles view --present surface|pbo|external`), to be measured side by side:
// - surface: the frame texture (GL_RGBA8) is registered with CUDA once per size
//   (cudaGraphicsGLRegisterImage, surface load/store); each frame it is mapped on the renderer's
//   stream, written by a kernel through a surface object, and unmapped, so GL then samples it.
// - pbo: a pixel buffer (GL_PIXEL_UNPACK_BUFFER, width * height * 4 bytes) is registered once per
//   size (cudaGraphicsGLRegisterBuffer, write-discard); each frame it is mapped on the renderer's
//   stream, the same kernel writes RGBA8 bytes through its device pointer, it is unmapped, and
//   the caller copies it into the texture with glTexSubImage2D (Presenter::upload_from_pixel_buffer).
// - external: no registration and no per-frame map. CUDA allocates two frame buffers once per
//   size (cuMemCreate, exportable as a POSIX fd); GL imports each once (GL_EXT_memory_object_fd)
//   as a buffer object. Each frame the kernel writes RGBA8 into one of them on the renderer's
//   stream, the host waits for that work (a CUDA event), and GL copies the buffer into the frame
//   texture (glTexSubImage2D from it as GL_PIXEL_UNPACK_BUFFER) and fences the copy; CUDA writes
//   that buffer again only after the fence (two frames later). See app/gl/interop_external.cpp.
// Plain C++ interface (no CUDA or GL headers): the implementation is app/gl/interop_cuda.cpp,
// app/gl/interop_external.cpp and app/gl/interop_present.cu, compiled only when the build has CUDA.
#pragma once
#include <chrono>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "render/renderer.h"

namespace circles {

enum class InteropPath { Surface, Pbo, External };

// "surface", "pbo" or "external" (the --present value).
inline const char* interop_path_name(InteropPath p) {
  switch (p) {
    case InteropPath::Pbo: return "pbo";
    case InteropPath::External: return "external";
    case InteropPath::Surface: break;
  }
  return "surface";
}
// The --present values, for option checks and help texts.
inline constexpr const char* kInteropPathNames = "surface|pbo|external";
// The path whose interop_path_name is `name`; false (and *out untouched) when there is none.
inline bool interop_path_from_name(const std::string& name, InteropPath* out) {
  for (InteropPath p : {InteropPath::Surface, InteropPath::Pbo, InteropPath::External})
    if (name == interop_path_name(p)) {
      *out = p;
      return true;
    }
  return false;
}

// A host wait inside the interop (the external path's "fence" and "wait"), on the host's clock.
struct HostSpan {
  std::string stage;
  std::chrono::steady_clock::time_point t0, t1;
};

class CudaGlInterop {
 public:
  virtual ~CudaGlInterop() = default;
  virtual InteropPath path() const = 0;
  // Registers the GL object `name` with CUDA, replacing any earlier registration: the frame
  // texture (GL_RGBA8, width x height) on the surface path, the pixel buffer (width * height * 4
  // bytes) on the pbo path. Throws (CudaError) when CUDA refuses, e.g. a GL context on another
  // device. The external path takes the frame texture too (it registers nothing: it makes its
  // CUDA buffers and their GL imports here, for this size) and throws when CUDA or GL refuses.
  virtual void attach(unsigned int name, int width, int height) = 0;
  // Unregisters (before the GL object is deleted); the external path frees its buffers.
  virtual void detach() = 0;
  virtual bool attached() const = 0;
  // Writes `device_pixels` (float4 RGBA, width * height, row 0 = bottom) into the registered
  // object as RGBA8 on `stream` (a cudaStream_t): map, convert kernel, unmap. Unmapping orders
  // GL work issued afterwards (the draw; on the pbo path first the texture upload) after it.
  // External path: convert into the next shared buffer (after the GL fence of its last copy),
  // then, unless the upload is deferred (set_deferred_upload), wait on the host for the CUDA work
  // and copy the buffer into the texture: GL work issued afterwards sees the frame.
  // Throws on any CUDA (or GL) error.
  virtual void present(const void* device_pixels, void* stream) = 0;
  // External path only (the others ignore it): with `on`, present() returns as soon as the CUDA
  // work is queued, and finish_present() does the host wait and the copy into the texture. This
  // lets the caller do host work (the UI) while the GPU renders; it must then call
  // finish_present() before the frame texture is sampled. Off by default.
  virtual void set_deferred_upload(bool on) { (void)on; }
  // Surface and pbo paths: maps the registered object on `stream` now, before the frame is
  // rendered, so the stream's wait for GL to release it (the previous frame's draw) comes before
  // the render's kernels, never inside them; present() then converts and unmaps. Without it,
  // present() maps. The external path maps nothing: a no-op.
  virtual void acquire(void* stream) { (void)stream; }
  // The deferred second half of present() (GL thread, GL context current); a no-op when nothing
  // is pending, and on the surface and pbo paths. Throws on any CUDA or GL error.
  virtual void finish_present() {}
  // The newest finished frame's "map", "convert", "unmap" times (CUDA events); never blocks.
  // External path: "fence" (host wait for the GL copy that last read the buffer), "convert"
  // (CUDA events), "wait" (host wait for the CUDA work), "upload" (GPU time of the GL copy).
  virtual std::vector<StageTiming> timings() const = 0;
  // The CUDA stages of every frame finished since the last call, in ms since `origin_event` (a
  // cudaEvent_t), for the viewer's timeline; never blocks.
  virtual std::vector<TimedSpan> take_spans(const void* origin_event) { (void)origin_event; return {}; }
  // The external path's GL copies since the last call, as GL timestamps (ms), for the timeline.
  virtual std::vector<std::pair<double, double>> take_gl_spans() { return {}; }
  // The external path's host waits since the last call (the newest 64 at most), for the timeline.
  virtual std::vector<HostSpan> take_host_spans() { return {}; }
};

// The interop presenter for `path`; nullptr with *why_not when this build has no CUDA. External
// needs GL_EXT_memory_object and GL_EXT_memory_object_fd on the current context: without them it
// gives the surface path instead and says so on stderr.
std::unique_ptr<CudaGlInterop> make_cuda_gl_interop(InteropPath path, std::string* why_not);

// Waits on the host until the work queued on `stream` (a cudaStream_t) is done; nothing without CUDA.
void wait_for_stream(void* stream);

// A CUDA event recorded on `stream` (a cudaStream_t) and waited for: the origin the viewer's
// timeline measures CUDA events from (take_spans). nullptr (and *why_not) without CUDA.
std::shared_ptr<void> record_origin_event(void* stream, std::string* why_not);

}  // namespace circles
