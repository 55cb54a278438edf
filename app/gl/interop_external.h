// The external-memory interop path (app/gl/interop_external.cpp), for make_cuda_gl_interop
// (app/gl/interop_cuda.cpp). Built only when the build has CUDA.
#pragma once
#include <memory>
#include <string>

#include "app/gl/interop.h"

namespace circles {

// Whether the current GL context can import CUDA's memory (GL_EXT_memory_object and
// GL_EXT_memory_object_fd); false with *why_not otherwise. GL only: the CUDA side (cuMemCreate
// with a POSIX fd handle) is checked when attach() makes the buffers.
bool external_interop_available(std::string* why_not);

std::unique_ptr<CudaGlInterop> make_external_interop();

}  // namespace circles
