// CUDA-GL interop through a registered texture and a surface object, or a registered pixel
// buffer and a device pointer (see app/gl/interop.h); the external-memory path is in
// app/gl/interop_external.cpp.
#include <glad/gl.h>  // before cuda_gl_interop.h, which needs GL's types (its <GL/gl.h> is then a no-op)
#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "app/gl/interop.h"
#include "app/gl/interop_external.h"
#include "app/gl/interop_present.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/nvtx.h"
#include "kernels/cuda/stage_timer.h"

namespace circles {

namespace {

// Owns one registration of a GL object with CUDA (cudaGraphicsGLRegisterImage or
// cudaGraphicsGLRegisterBuffer).
class GraphicsResource {
 public:
  GraphicsResource() = default;
  // The frame texture, for surface writes.
  static GraphicsResource image(GLuint texture) {
    cudaGraphicsResource_t res = nullptr;
    CUDA_CHECK(cudaGraphicsGLRegisterImage(&res, texture, GL_TEXTURE_2D, cudaGraphicsRegisterFlagsSurfaceLoadStore));
    GraphicsResource r(res);  // owned from here on: unregistered if the next call throws
    // The kernel overwrites every texel: CUDA need not preserve the old contents.
    CUDA_CHECK(cudaGraphicsResourceSetMapFlags(r.res_, cudaGraphicsMapFlagsWriteDiscard));
    return r;
  }
  // The pixel buffer, written through a device pointer; write-discard for the same reason.
  static GraphicsResource buffer(GLuint buffer) {
    cudaGraphicsResource_t res = nullptr;
    CUDA_CHECK(cudaGraphicsGLRegisterBuffer(&res, buffer, cudaGraphicsRegisterFlagsWriteDiscard));
    return GraphicsResource(res);
  }
  ~GraphicsResource() {
    if (res_) CUDA_CHECK_PRINT(cudaGraphicsUnregisterResource(res_));
  }
  GraphicsResource(GraphicsResource&& o) noexcept : res_(std::exchange(o.res_, nullptr)) {}
  GraphicsResource& operator=(GraphicsResource&& o) noexcept {
    if (this != &o) {
      if (res_) CUDA_CHECK_PRINT(cudaGraphicsUnregisterResource(res_));
      res_ = std::exchange(o.res_, nullptr);
    }
    return *this;
  }
  GraphicsResource(const GraphicsResource&) = delete;
  GraphicsResource& operator=(const GraphicsResource&) = delete;
  cudaGraphicsResource_t get() const { return res_; }
  explicit operator bool() const { return res_ != nullptr; }

 private:
  explicit GraphicsResource(cudaGraphicsResource_t res) : res_(res) {}
  cudaGraphicsResource_t res_ = nullptr;
};

// A mapping of one resource on a stream: unmapped when it goes out of scope (also on errors).
class Mapping {
 public:
  Mapping(cudaGraphicsResource_t res, cudaStream_t s) : res_(res), stream_(s) {
    CUDA_CHECK(cudaGraphicsMapResources(1, &res_, stream_));
    mapped_ = true;
  }
  ~Mapping() {
    if (mapped_) CUDA_CHECK_PRINT(cudaGraphicsUnmapResources(1, &res_, stream_));
  }
  // Unmaps now, with errors thrown.
  void unmap() {
    mapped_ = false;
    CUDA_CHECK(cudaGraphicsUnmapResources(1, &res_, stream_));
  }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;

 private:
  cudaGraphicsResource_t res_;
  cudaStream_t stream_;
  bool mapped_ = false;
};

// A surface object over a mapped array, destroyed at scope end.
class SurfaceObject {
 public:
  explicit SurfaceObject(cudaArray_t array) {
    cudaResourceDesc desc{};
    desc.resType = cudaResourceTypeArray;
    desc.res.array.array = array;
    CUDA_CHECK(cudaCreateSurfaceObject(&surf_, &desc));
  }
  ~SurfaceObject() {
    if (surf_) CUDA_CHECK_PRINT(cudaDestroySurfaceObject(surf_));
  }
  SurfaceObject(const SurfaceObject&) = delete;
  SurfaceObject& operator=(const SurfaceObject&) = delete;
  cudaSurfaceObject_t get() const { return surf_; }

 private:
  cudaSurfaceObject_t surf_ = 0;
};

// Both paths: the same registration lifetime, map/convert/unmap sequence and stage timer; only
// the registered object and the kernel's destination differ.
class RegisteredInterop final : public CudaGlInterop {
 public:
  static constexpr const char* kBetween = "(between map and convert)";
  // A timer's entries (StageTiming or TimedSpan) without the interval between map and convert.
  template <class T>
  static std::vector<T> without_between(std::vector<T> t) {
    t.erase(std::remove_if(t.begin(), t.end(), [](const T& s) { return s.stage == kBetween; }), t.end());
    return t;
  }
  explicit RegisteredInterop(InteropPath path) : path_(path) {}
  ~RegisteredInterop() override { release(); }

  InteropPath path() const override { return path_; }

  void attach(unsigned int name, int width, int height) override {
    release();  // unregister the old object first
    resource_ = path_ == InteropPath::Pbo ? GraphicsResource::buffer(name) : GraphicsResource::image(name);
    width_ = width;
    height_ = height;
    timer_.reset();
  }
  void detach() override { release(); }
  bool attached() const override { return static_cast<bool>(resource_); }

  void acquire(void* stream_ptr) override {
    if (!resource_) throw std::logic_error("CudaGlInterop::acquire before attach");
    if (mapping_) return;
    cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
    timer_.open(stream);
    NvtxScope range("interop: map");  // NVTX: the panel's names
    mapping_.emplace(resource_.get(), stream);
    timer_.mark("map", stream);
  }

  void present(const void* device_pixels, void* stream_ptr) override {
    if (!resource_) throw std::logic_error("CudaGlInterop::present before attach");
    cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
    const float4* src = static_cast<const float4*>(device_pixels);
    const bool mapped_before = mapping_.has_value();
    acquire(stream_ptr);  // mapped already where the viewer acquired before the render
    // The renderer's work since the map is not the interop's: an interval of its own, left out.
    if (mapped_before) timer_.mark(kBetween, stream);
    std::optional<NvtxScope> range(std::in_place, "interop: convert");
    if (path_ == InteropPath::Pbo)
      convert_to_buffer(src, stream);
    else
      convert_to_surface(src, stream);
    timer_.mark("convert", stream);
    range.emplace("interop: unmap");
    // Unmapping orders the GL work issued afterwards (the upload, the draw) after this stream's work.
    Mapping& mapping = *mapping_;
    mapping.unmap();
    mapping_.reset();
    timer_.mark("unmap", stream);
    range.reset();
    timer_.close(stream);
  }

  std::vector<StageTiming> timings() const override { return without_between(timer_.read(false)); }
  std::vector<TimedSpan> take_spans(const void* origin_event) override {
    return without_between(
        timer_.spans_after(&spans_seq_, static_cast<cudaEvent_t>(const_cast<void*>(origin_event))));
  }

 private:
  void convert_to_surface(const float4* src, cudaStream_t stream) {
    cudaArray_t array = nullptr;
    CUDA_CHECK(cudaGraphicsSubResourceGetMappedArray(&array, resource_.get(), 0, 0));
    if (array != surface_array_) {
      // The surface object is kept across frames (the mapped array of a registered texture
      // normally stays the same); one in use by queued work is only destroyed after a sync.
      if (surface_) CUDA_CHECK(cudaStreamSynchronize(stream));
      surface_ = std::make_unique<SurfaceObject>(array);
      surface_array_ = array;
    }
    launch_float4_to_rgba8(surface_->get(), src, width_, height_, stream);
  }

  void convert_to_buffer(const float4* src, cudaStream_t stream) {
    void* ptr = nullptr;
    std::size_t bytes = 0;
    CUDA_CHECK(cudaGraphicsResourceGetMappedPointer(&ptr, &bytes, resource_.get()));
    const std::size_t needed = static_cast<std::size_t>(width_) * static_cast<std::size_t>(height_) * sizeof(uchar4);
    if (bytes < needed)
      throw std::runtime_error("the mapped pixel buffer holds " + std::to_string(bytes) + " bytes, the frame needs " +
                               std::to_string(needed));
    launch_float4_to_rgba8(static_cast<uchar4*>(ptr), src, width_, height_, stream);
  }

  // Waits for queued work that may still use the surface or the registered object, then lets
  // them go.
  void release() {
    mapping_.reset();  // unmapped first (an acquire without its present: a resize between them)
    if (!resource_ && !surface_) return;
    CUDA_CHECK_PRINT(cudaDeviceSynchronize());
    surface_.reset();
    surface_array_ = nullptr;
    resource_ = GraphicsResource();
  }

  InteropPath path_;
  GraphicsResource resource_;
  std::optional<Mapping> mapping_;          // between acquire() and present()
  std::unique_ptr<SurfaceObject> surface_;  // surface path only
  cudaArray_t surface_array_ = nullptr;
  int width_ = 0, height_ = 0;
  StageTimer timer_;
  long long spans_seq_ = 0;  // the newest frame take_spans() returned
};

}  // namespace

void wait_for_stream(void* stream) { CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream))); }

std::shared_ptr<void> record_origin_event(void* stream, std::string* /*why_not*/) {
  cudaEvent_t e = nullptr;
  CUDA_CHECK(cudaEventCreate(&e));
  std::shared_ptr<void> owned(e, [](void* p) { CUDA_CHECK_PRINT(cudaEventDestroy(static_cast<cudaEvent_t>(p))); });
  CUDA_CHECK(cudaEventRecord(e, static_cast<cudaStream_t>(stream)));
  CUDA_CHECK(cudaEventSynchronize(e));
  return owned;
}

std::unique_ptr<CudaGlInterop> make_cuda_gl_interop(InteropPath path, std::string* /*why_not*/) {
  if (path == InteropPath::External) {
    std::string why;
    if (external_interop_available(&why)) return make_external_interop();
    std::fprintf(stderr, "viewer: the external present path is unavailable (%s): using the surface path\n", why.c_str());
    path = InteropPath::Surface;
  }
  return std::make_unique<RegisteredInterop>(path);
}

}  // namespace circles
