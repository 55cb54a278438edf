// Timeline semaphores that CUDA and GL both import, so that either API's work waits for the
// other's on the GPU, with no host wait between them (the external present path's GPU waits).
// CUDA and GL can only import a semaphore, so a third API creates them: Vulkan (libvulkan.so.1,
// loaded at run time, so a machine without it keeps the host waits), on the physical device whose
// UUID is the CUDA device's, exported as an opaque POSIX fd once for CUDA and once for GL.
// Plain C++ interface (no CUDA, GL or Vulkan headers); app/gl/shared_semaphore.cpp is compiled
// only when the build has CUDA.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

namespace circles {

class SharedSemaphores {
 public:
  // `count` timeline semaphores (initial value 0) on the current CUDA device, imported into CUDA
  // and into the current GL context; nullptr with *why_not when any step is missing or refused
  // (no Vulkan loader or driver, no timeline semaphore to export, GL without GL_EXT_semaphore_fd or
  // GL_NV_timeline_semaphore, an import refused).
  static std::unique_ptr<SharedSemaphores> create(int count, std::string* why_not);
  virtual ~SharedSemaphores() = default;

  // On `stream` (a cudaStream_t): set semaphore `i` to `value` once the stream's earlier work is
  // done, or hold the stream's later work until `i` reaches `value`. Throw on a CUDA error.
  virtual void cuda_signal(int i, std::uint64_t value, void* stream) = 0;
  virtual void cuda_wait(int i, std::uint64_t value, void* stream) = 0;
  // In GL's command stream: set `i` to `value` after GL's earlier commands (then flushed, so that
  // CUDA's wait can see it), or hold GL's later commands until `i` reaches `value`; `buffer`, when
  // not 0, is a buffer object on memory CUDA wrote, which the commands after the wait read.
  // Throw on a GL error.
  virtual void gl_signal(int i, std::uint64_t value) = 0;
  virtual void gl_wait(int i, std::uint64_t value, unsigned int buffer) = 0;
};

}  // namespace circles
