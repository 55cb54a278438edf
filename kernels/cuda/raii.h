// Small move-only owners of CUDA resources. Copies are deleted on purpose: a silent copy of a
// device buffer is a performance accident.
#pragma once
#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "kernels/cuda/check.h"

namespace circles {

// Bytes held in DeviceBuffers by this process now, and the most at once since the last
// reset_device_memory_peak() (the benchmark's peak device memory).
inline std::atomic<std::uint64_t> g_device_bytes{0}, g_device_peak{0};
inline void reset_device_memory_peak() { g_device_peak.store(g_device_bytes.load()); }
inline std::uint64_t device_memory_peak() { return g_device_peak.load(); }

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) { resize(n); }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }

  // Reallocates only when the size changes; contents are not kept.
  void resize(std::size_t n) {
    if (n == n_) return;
    release();
    if (n) CUDA_CHECK(cudaMalloc(&ptr_, n * sizeof(T)));
    n_ = n;
    const std::uint64_t now = g_device_bytes += n * sizeof(T);
    std::uint64_t peak = g_device_peak.load();
    while (now > peak && !g_device_peak.compare_exchange_weak(peak, now)) {
    }
  }
  // Grows to at least n elements (never shrinks, so steady-state frames allocate nothing).
  void reserve(std::size_t n) {
    if (n > n_) resize(n);
  }
  void upload(const T* host, std::size_t n, cudaStream_t stream) {
    resize(n);
    if (n) CUDA_CHECK(cudaMemcpyAsync(ptr_, host, n * sizeof(T), cudaMemcpyHostToDevice, stream));
  }
  T* get() const { return ptr_; }
  std::size_t size() const { return n_; }

 private:
  void release() {
    if (ptr_) CUDA_CHECK_PRINT(cudaFree(ptr_));
    g_device_bytes -= n_ * sizeof(T);
    ptr_ = nullptr;
    n_ = 0;
  }
  T* ptr_ = nullptr;
  std::size_t n_ = 0;
};

// Page-locked host memory (cudaMallocHost) for asynchronous copies from the device: n elements,
// reallocated only when it must grow; contents are not kept then.
template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  ~PinnedBuffer() {
    if (ptr_) CUDA_CHECK_PRINT(cudaFreeHost(ptr_));
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  void reserve(std::size_t n) {
    if (n <= n_) return;
    if (ptr_) CUDA_CHECK(cudaFreeHost(ptr_));
    ptr_ = nullptr;
    n_ = 0;
    CUDA_CHECK(cudaMallocHost(&ptr_, n * sizeof(T)));
    n_ = n;
  }
  T* get() const { return ptr_; }
  std::size_t size() const { return n_; }

 private:
  T* ptr_ = nullptr;
  std::size_t n_ = 0;
};

class CudaStream {
 public:
  CudaStream() { CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~CudaStream() {
    if (s_) CUDA_CHECK_PRINT(cudaStreamDestroy(s_));
  }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

class CudaEvent {
 public:
  CudaEvent() { CUDA_CHECK(cudaEventCreate(&e_)); }
  ~CudaEvent() {
    if (e_) CUDA_CHECK_PRINT(cudaEventDestroy(e_));
  }
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  void record(cudaStream_t s) { CUDA_CHECK(cudaEventRecord(e_, s)); }
  cudaEvent_t get() const { return e_; }
  void synchronize() const { CUDA_CHECK(cudaEventSynchronize(e_)); }
  // Whether the work before the event has completed: a query that never blocks, or with
  // wait = true a synchronize (then always true). Errors throw like every CUDA call.
  bool done(bool wait = false) const {
    if (wait) {
      synchronize();
      return true;
    }
    const cudaError_t q = cudaEventQuery(e_);
    if (q == cudaErrorNotReady) return false;
    CUDA_CHECK(q);
    return true;
  }
  // Milliseconds from `start` to this event; waits for this event.
  float since(const CudaEvent& start) const {
    CUDA_CHECK(cudaEventSynchronize(e_));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start.e_, e_));
    return ms;
  }

 private:
  cudaEvent_t e_ = nullptr;
};

}  // namespace circles
