// CUDA-GL interop through memory that CUDA exports and GL imports once (`--present external`, see
// app/gl/interop.h): no registered GL object, so no per-frame cudaGraphicsMapResources /
// cudaGraphicsUnmapResources.
//
// Per size (attach), two slots, each:
//   CUDA: cuMemCreate (device memory, requestedHandleTypes = POSIX fd), mapped at an address
//         range of its own (cuMemAddressReserve, cuMemMap, cuMemSetAccess read/write);
//   GL:   cuMemExportToShareableHandle -> fd; glCreateMemoryObjectsEXT + glImportMemoryFdEXT
//         (a successful import owns the fd: it is not closed here), then a buffer object on the
//         memory (glBufferStorageMemEXT). Without GL_DEDICATED_MEMORY_OBJECT_EXT first, then with
//         it if the driver refuses.
// Per frame, slot k % 2:
//   present():        [host] glClientWaitSync on the slot's fence: GL's copy of frame k-2 out of
//                     it is done (normally long ago); [stream] the convert kernel writes RGBA8
//                     into the slot, then the slot's CUDA event is recorded.
//   finish_present(): (inside present() unless deferred) [host] cudaEventSynchronize on that
//                     event: the renderer's frame and the convert are done; [GL] glTexSubImage2D
//                     from the slot (bound as GL_PIXEL_UNPACK_BUFFER) into the frame texture,
//                     then glFenceSync: the slot's new fence.
// All CUDA<->GL ordering goes through the host (an event wait, a fence wait): CUDA can import
// semaphores but not export them, and GL only imports, so GL_EXT_semaphore has nothing to take.
// The CUDA driver API comes through cudaGetDriverEntryPointByVersion: nothing links libcuda.
#include <glad/gl.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "app/gl/gl_util.h"
#include "app/gl/interop.h"
#include "app/gl/interop_external.h"
#include "app/gl/interop_present.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/nvtx.h"
#include "kernels/cuda/stage_timer.h"

namespace circles {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// The driver functions this path needs (virtual memory management), at the CUDA 12.0 ABI.
struct DriverApi {
  decltype(&::cuGetErrorName) get_error_name = nullptr;
  decltype(&::cuGetErrorString) get_error_string = nullptr;
  decltype(&::cuDeviceGet) device_get = nullptr;
  decltype(&::cuDeviceGetAttribute) device_get_attribute = nullptr;
  decltype(&::cuMemGetAllocationGranularity) mem_get_allocation_granularity = nullptr;
  decltype(&::cuMemCreate) mem_create = nullptr;
  decltype(&::cuMemRelease) mem_release = nullptr;
  decltype(&::cuMemExportToShareableHandle) mem_export_to_shareable_handle = nullptr;
  decltype(&::cuMemAddressReserve) mem_address_reserve = nullptr;
  decltype(&::cuMemAddressFree) mem_address_free = nullptr;
  decltype(&::cuMemMap) mem_map = nullptr;
  decltype(&::cuMemUnmap) mem_unmap = nullptr;
  decltype(&::cuMemSetAccess) mem_set_access = nullptr;
  std::string missing;  // the functions the driver did not give, or ""
};

template <class F>
void load_driver_function(const char* name, F* fn, std::string* missing) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  const cudaError_t err = cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &found);
  if (err != cudaSuccess || found != cudaDriverEntryPointSuccess || !p) {
    *missing += std::string(missing->empty() ? "" : ", ") + name;
    p = nullptr;
  }
  *fn = reinterpret_cast<F>(p);
}

// Loaded on first use (the runtime must be initialised: callers make a CUDA call first); throws
// when the driver lacks any of them.
const DriverApi& driver_api() {
  static const DriverApi api = [] {
    DriverApi a;
    load_driver_function("cuGetErrorName", &a.get_error_name, &a.missing);
    load_driver_function("cuGetErrorString", &a.get_error_string, &a.missing);
    load_driver_function("cuDeviceGet", &a.device_get, &a.missing);
    load_driver_function("cuDeviceGetAttribute", &a.device_get_attribute, &a.missing);
    load_driver_function("cuMemGetAllocationGranularity", &a.mem_get_allocation_granularity, &a.missing);
    load_driver_function("cuMemCreate", &a.mem_create, &a.missing);
    load_driver_function("cuMemRelease", &a.mem_release, &a.missing);
    load_driver_function("cuMemExportToShareableHandle", &a.mem_export_to_shareable_handle, &a.missing);
    load_driver_function("cuMemAddressReserve", &a.mem_address_reserve, &a.missing);
    load_driver_function("cuMemAddressFree", &a.mem_address_free, &a.missing);
    load_driver_function("cuMemMap", &a.mem_map, &a.missing);
    load_driver_function("cuMemUnmap", &a.mem_unmap, &a.missing);
    load_driver_function("cuMemSetAccess", &a.mem_set_access, &a.missing);
    return a;
  }();
  if (!api.missing.empty())
    throw std::runtime_error("the CUDA driver does not provide " + api.missing +
                             " (cudaGetDriverEntryPointByVersion): no external-memory interop");
  return api;
}

std::string cu_error_text(CUresult r) {
  const DriverApi& api = driver_api();
  const char* name = nullptr;
  const char* text = nullptr;
  if (api.get_error_name(r, &name) != CUDA_SUCCESS) name = nullptr;
  if (api.get_error_string(r, &text) != CUDA_SUCCESS) text = nullptr;
  return std::string(name ? name : "CUresult " + std::to_string(static_cast<int>(r))) + ": " +
         (text ? text : "unknown error");
}

void cu_check(CUresult r, const char* expr, const char* file, int line) {
  if (r != CUDA_SUCCESS)
    throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + expr +
                             " failed: " + cu_error_text(r));
}
void cu_check_print(CUresult r, const char* expr, const char* file, int line) {
  if (r != CUDA_SUCCESS) std::fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, expr, cu_error_text(r).c_str());
}

}  // namespace
}  // namespace circles

#define CU_CHECK(expr) ::circles::cu_check((expr), #expr, __FILE__, __LINE__)
#define CU_CHECK_PRINT(expr) ::circles::cu_check_print((expr), #expr, __FILE__, __LINE__)

namespace circles {

namespace {

// One cuMemCreate allocation of device memory that can be exported as a POSIX fd, mapped
// read/write for its device at an address range of its own.
class ExportableBuffer {
 public:
  ExportableBuffer(std::size_t bytes, CUdevice device) {
    const DriverApi& api = driver_api();
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    std::size_t granularity = 0;
    CU_CHECK(api.mem_get_allocation_granularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    if (granularity == 0) granularity = 2u << 20;
    size_ = (bytes + granularity - 1) / granularity * granularity;
    try {
      CU_CHECK(api.mem_create(&handle_, size_, &prop, 0));
      have_handle_ = true;
      CU_CHECK(api.mem_address_reserve(&address_, size_, 0, 0, 0));
      CU_CHECK(api.mem_map(address_, size_, 0, handle_, 0));
      mapped_ = true;
      CUmemAccessDesc access{};
      access.location = prop.location;
      access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
      CU_CHECK(api.mem_set_access(address_, size_, &access, 1));
    } catch (...) {
      release();
      throw;
    }
  }
  ~ExportableBuffer() { release(); }
  ExportableBuffer(const ExportableBuffer&) = delete;
  ExportableBuffer& operator=(const ExportableBuffer&) = delete;

  void* get() const { return reinterpret_cast<void*>(address_); }
  // The allocation's size (the request rounded up to the allocation granularity).
  std::size_t size() const { return size_; }
  // A new file descriptor for the allocation; the caller owns it (or hands it to an import).
  int export_fd() const {
    int fd = -1;
    CU_CHECK(driver_api().mem_export_to_shareable_handle(&fd, handle_, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    return fd;
  }

 private:
  void release() {
    const DriverApi& api = driver_api();
    if (mapped_) CU_CHECK_PRINT(api.mem_unmap(address_, size_));
    if (address_) CU_CHECK_PRINT(api.mem_address_free(address_, size_));
    if (have_handle_) CU_CHECK_PRINT(api.mem_release(handle_));
    mapped_ = have_handle_ = false;
    address_ = 0;
  }
  std::size_t size_ = 0;
  CUmemGenericAllocationHandle handle_ = 0;
  CUdeviceptr address_ = 0;
  bool have_handle_ = false, mapped_ = false;
};

struct GlMemoryObjectDeleter { void operator()(GLuint n) const { glDeleteMemoryObjectsEXT(1, &n); } };
struct GlImportedBufferDeleter { void operator()(GLuint n) const { glDeleteBuffers(1, &n); } };
using GlMemoryObject = GlName<GlMemoryObjectDeleter>;
using GlImportedBuffer = GlName<GlImportedBufferDeleter>;

void drain_gl_errors() {
  for (int i = 0; i < 8 && glGetError() != GL_NO_ERROR; ++i) {
  }
}

// Waits (host) for `fence` and deletes it; throws when the wait fails.
void wait_and_delete(GLsync* fence) {
  if (!*fence) return;
  const GLenum r = glClientWaitSync(*fence, GL_SYNC_FLUSH_COMMANDS_BIT, 10'000'000'000ull);
  glDeleteSync(*fence);
  *fence = nullptr;
  GL_CHECK("glClientWaitSync (external interop buffer)");
  if (r == GL_WAIT_FAILED || r == GL_TIMEOUT_EXPIRED)
    throw GlError(r == GL_WAIT_FAILED ? "glClientWaitSync failed (external interop buffer)"
                                      : "glClientWaitSync: the GL copy out of an interop buffer took over 10 s");
}

// One shared frame buffer: CUDA's allocation, GL's import of it and a buffer object on that, the
// fence of GL's last copy out of it, and the event of CUDA's last write into it.
struct Slot {
  std::unique_ptr<ExportableBuffer> cuda;
  GlMemoryObject memory;
  GlImportedBuffer buffer;
  GLsync fence = nullptr;
  cudaEvent_t written = nullptr;

  Slot() { CUDA_CHECK(cudaEventCreateWithFlags(&written, cudaEventDisableTiming)); }
  ~Slot() {
    if (fence) glDeleteSync(fence);
    if (written) CUDA_CHECK_PRINT(cudaEventDestroy(written));
    // then buffer, memory (GL) and cuda go, in that order (reverse declaration)
  }
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;
};

// Imports the slot's allocation into GL (a new fd each try) and makes a buffer object of
// `frame_bytes` on it; false with *why (and nothing kept) when GL refuses.
bool import_into_gl(Slot& s, std::size_t frame_bytes, bool dedicated, std::string* why) {
  GL_CHECK("before the external-memory import");  // errors from earlier calls are not this one's
  const int fd = s.cuda->export_fd();
  GLuint name = 0;
  glCreateMemoryObjectsEXT(1, &name);
  GlMemoryObject memory(name);
  try {
    GL_CHECK("glCreateMemoryObjectsEXT");
    if (dedicated) {
      const GLint yes = GL_TRUE;
      GL_CALL(glMemoryObjectParameterivEXT(memory.get(), GL_DEDICATED_MEMORY_OBJECT_EXT, &yes));
    }
  } catch (...) {
    close(fd);
    throw;
  }
  const char* how = dedicated ? " (dedicated memory object)" : "";
  glImportMemoryFdEXT(memory.get(), static_cast<GLuint64>(s.cuda->size()), GL_HANDLE_TYPE_OPAQUE_FD_EXT, fd);
  const GLenum import_error = glGetError();
  if (import_error != GL_NO_ERROR) {
    close(fd);  // a failed import leaves the fd with its owner; a successful one takes it
    drain_gl_errors();
    *why = std::string("glImportMemoryFdEXT") + how + ": " + gl_error_name(import_error);
    return false;
  }
  const GLboolean is_memory = glIsMemoryObjectEXT(memory.get());
  GL_CHECK("glIsMemoryObjectEXT");
  if (!is_memory) {
    *why = std::string("glImportMemoryFdEXT") + how + " made no memory object";
    return false;
  }
  GLuint buffer_name = 0;
  GL_CALL(glGenBuffers(1, &buffer_name));
  GlImportedBuffer buffer(buffer_name);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffer.get());
  glBufferStorageMemEXT(GL_PIXEL_UNPACK_BUFFER, static_cast<GLsizeiptr>(frame_bytes), memory.get(), 0);
  const GLenum storage_error = glGetError();
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  if (storage_error != GL_NO_ERROR) {
    drain_gl_errors();
    *why = std::string("glBufferStorageMemEXT") + how + ": " + gl_error_name(storage_error);
    return false;
  }
  GL_CHECK("glBindBuffer");
  s.memory = std::move(memory);
  s.buffer = std::move(buffer);
  return true;
}

class ExternalInterop final : public CudaGlInterop {
 public:
  ~ExternalInterop() override { release(); }

  InteropPath path() const override { return InteropPath::External; }

  void attach(unsigned int texture, int width, int height) override {
    release();
    if (width <= 0 || height <= 0) throw std::invalid_argument("external interop: empty frame");
    int ordinal = 0;
    CUDA_CHECK(cudaGetDevice(&ordinal));
    CUDA_CHECK(cudaFree(nullptr));  // the runtime's primary context, current on this thread
    const DriverApi& api = driver_api();
    CUdevice device = 0;
    CU_CHECK(api.device_get(&device, ordinal));
    int vmm = 0, posix_fd = 0;
    CU_CHECK(api.device_get_attribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, device));
    CU_CHECK(api.device_get_attribute(&posix_fd, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED,
                                      device));
    if (!vmm || !posix_fd)
      throw std::runtime_error("CUDA device " + std::to_string(ordinal) +
                               " cannot export memory as a POSIX fd (virtual memory management " +
                               (vmm ? "yes" : "no") + ", POSIX fd handles " + (posix_fd ? "yes" : "no") + ")");

    const std::size_t frame_bytes = static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * sizeof(uchar4);
    std::array<std::unique_ptr<Slot>, kSlots> slots;
    for (std::unique_ptr<Slot>& s : slots) {
      s = std::make_unique<Slot>();
      s->cuda = std::make_unique<ExportableBuffer>(frame_bytes, device);
      std::string why, why_dedicated;
      if (!import_into_gl(*s, frame_bytes, false, &why) && !import_into_gl(*s, frame_bytes, true, &why_dedicated))
        throw GlError("GL cannot import CUDA's memory (" + std::to_string(s->cuda->size()) +
                      " bytes, POSIX fd): " + why + "; " + why_dedicated);
    }
    slots_ = std::move(slots);  // the old ones went in release()
    texture_ = texture;
    width_ = width;
    height_ = height;
    next_ = 0;
    timer_.reset();
    fence_ms_ = wait_ms_ = upload_ms_ = -1;
    last_cuda_.clear();
    last_out_.clear();
  }

  void detach() override { release(); }
  bool attached() const override { return slots_[0] != nullptr; }

  void present(const void* device_pixels, void* stream_ptr) override {
    if (!attached()) throw std::logic_error("CudaGlInterop::present before attach");
    if (pending_) finish_present();  // a deferred frame nobody finished: its copy goes first
    cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
    Slot& s = *slots_[static_cast<std::size_t>(next_)];
    next_ = (next_ + 1) % kSlots;
    {
      // GL -> CUDA: GL's copy out of this buffer (two frames ago) must be done before CUDA writes it.
      NvtxScope range("interop: fence");
      const auto t0 = Clock::now();
      wait_and_delete(&s.fence);
      fence_ms_ = ms_since(t0);
      host_span("fence", t0);
    }
    {
      NvtxScope range("interop: convert");
      timer_.open(stream);
      launch_float4_to_rgba8(static_cast<uchar4*>(s.cuda->get()), static_cast<const float4*>(device_pixels), width_,
                             height_, stream);
      timer_.mark("convert", stream);
      timer_.close(stream);
      CUDA_CHECK(cudaEventRecord(s.written, stream));
    }
    pending_ = &s;
    if (!deferred_) finish_present();
  }

  void set_deferred_upload(bool on) override {
    if (!on) finish_present();
    deferred_ = on;
  }

  void finish_present() override {
    if (!pending_) return;
    Slot& s = *pending_;
    pending_ = nullptr;
    {
      // CUDA -> GL: the renderer's frame and the convert are done before GL reads the buffer.
      NvtxScope range("interop: wait");
      const auto t0 = Clock::now();
      CUDA_CHECK(cudaEventSynchronize(s.written));
      wait_ms_ = ms_since(t0);
      host_span("wait", t0);
    }
    NvtxScope range("interop: upload");
    upload_timer_.begin();
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, s.buffer.get());
    glBindTexture(GL_TEXTURE_2D, texture_);
    // With a buffer bound to GL_PIXEL_UNPACK_BUFFER the pointer argument is an offset into it.
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width_, height_, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    glBindTexture(GL_TEXTURE_2D, 0);
    // Unbound before anything can throw: a buffer left bound would turn the host-copy path's
    // pointers into offsets.
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    s.fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    try {
      GL_CHECK("external interop upload");
    } catch (...) {
      upload_timer_.end();  // never leave a GL_TIME_ELAPSED query open
      throw;
    }
    upload_timer_.end();
    for (double ms : upload_timer_.take()) upload_ms_ = ms;
  }

  std::vector<std::pair<double, double>> take_gl_spans() override { return upload_timer_.take_spans(); }

  std::vector<HostSpan> take_host_spans() override { return std::exchange(host_spans_, {}); }

  std::vector<TimedSpan> take_spans(const void* origin_event) override {
    return timer_.spans_after(&spans_seq_, static_cast<cudaEvent_t>(const_cast<void*>(origin_event)));
  }

  std::vector<StageTiming> timings() const override {
    std::vector<StageTiming> cuda = timer_.read(false);
    if (cuda.empty()) return {};
    // The host times go with the CUDA times they were read with: a frame whose CUDA times were
    // already returned gives the same entries again (the viewer counts each frame once).
    if (cuda.size() == last_cuda_.size() &&
        std::equal(cuda.begin(), cuda.end(), last_cuda_.begin(),
                   [](const StageTiming& a, const StageTiming& b) { return a.stage == b.stage && a.ms == b.ms; }))
      return last_out_;
    std::vector<StageTiming> out;
    if (fence_ms_ >= 0) out.push_back({"fence", fence_ms_});
    out.insert(out.end(), cuda.begin(), cuda.end());
    if (wait_ms_ >= 0) out.push_back({"wait", wait_ms_});
    if (upload_ms_ >= 0) out.push_back({"upload", upload_ms_});
    last_cuda_ = std::move(cuda);
    last_out_ = out;
    return out;
  }

 private:
  static constexpr int kSlots = 2;

  // Waits for GL's copies and CUDA's writes still using the buffers, then frees them. Never throws.
  void release() {
    pending_ = nullptr;
    if (!attached()) return;
    for (std::unique_ptr<Slot>& s : slots_) {
      if (!s || !s->fence) continue;
      glClientWaitSync(s->fence, GL_SYNC_FLUSH_COMMANDS_BIT, 10'000'000'000ull);
      glDeleteSync(s->fence);
      s->fence = nullptr;
    }
    drain_gl_errors();
    CUDA_CHECK_PRINT(cudaDeviceSynchronize());
    for (std::unique_ptr<Slot>& s : slots_) s.reset();
  }

  std::array<std::unique_ptr<Slot>, kSlots> slots_;
  Slot* pending_ = nullptr;  // written by CUDA, not yet copied by GL
  bool deferred_ = false;
  unsigned int texture_ = 0;
  int width_ = 0, height_ = 0;
  int next_ = 0;
  StageTimer timer_;
  long long spans_seq_ = 0;  // the newest frame take_spans() returned
  GlTimer upload_timer_;
  double fence_ms_ = -1, wait_ms_ = -1, upload_ms_ = -1;
  mutable std::vector<StageTiming> last_cuda_, last_out_;
  std::vector<HostSpan> host_spans_;  // the newest 64 host waits, until take_host_spans()

  void host_span(const char* stage, Clock::time_point t0) {
    if (host_spans_.size() >= 64) host_spans_.erase(host_spans_.begin());
    host_spans_.push_back({stage, t0, Clock::now()});
  }
};

}  // namespace

bool external_interop_available(std::string* why_not) {
  if (GLAD_GL_EXT_memory_object && GLAD_GL_EXT_memory_object_fd && glCreateMemoryObjectsEXT && glImportMemoryFdEXT &&
      glBufferStorageMemEXT)
    return true;
  *why_not = "the GL context has no GL_EXT_memory_object / GL_EXT_memory_object_fd";
  return false;
}

std::unique_ptr<CudaGlInterop> make_external_interop() { return std::make_unique<ExternalInterop>(); }

}  // namespace circles
