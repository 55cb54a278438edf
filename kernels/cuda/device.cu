#include "kernels/cuda/device.h"

#include "kernels/cuda/dependent_launch.cuh"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <atomic>
#include <string>

#include "kernels/cuda/check.h"

namespace circles {

namespace {

std::string cuda_version(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

// Why the runtime's `err` (from the first CUDA call) leaves no usable device, in the user's terms:
// no driver, a driver too old for this build, no device, or a busy or prohibited device. The
// runtime says "CUDA driver version is insufficient for CUDA runtime version" both when the
// driver is too old and when there is no driver at all; libcuda's presence tells them apart.
std::string unusable_reason(cudaError_t err) {
  if (err == cudaErrorInsufficientDriver || err == cudaErrorNoDevice) {
    void* libcuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!libcuda) return "no NVIDIA driver found (libcuda.so.1 is not installed)";
    dlclose(libcuda);
    if (err == cudaErrorInsufficientDriver) {
      int driver = 0, runtime = 0;
      if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;  // reported as "0.0"
      if (cudaRuntimeGetVersion(&runtime) != cudaSuccess) runtime = 0;
      cudaGetLastError();
      return "the NVIDIA driver is too old: it supports CUDA " + cuda_version(driver) + ", this build needs CUDA " +
             cuda_version(runtime) + " (update the driver)";
    }
    return "no CUDA device found (the NVIDIA driver is installed but sees no GPU)";
  }
  if (err == cudaErrorDevicesUnavailable)
    return "the CUDA device is busy or prohibited (its compute mode does not admit this process)";
  return std::string("no usable CUDA device: ") + cudaGetErrorString(err);
}

}  // namespace

const CudaDeviceInfo& cuda_device_info() {
  static const CudaDeviceInfo info = [] {
    CudaDeviceInfo d;
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
      d.reason = unusable_reason(err);
      cudaGetLastError();  // clear the error so later calls start clean
      return d;
    }
    if (count == 0) {
      d.reason = unusable_reason(cudaErrorNoDevice);
      return d;
    }
    cudaDeviceProp prop{};
    const cudaError_t perr = cudaGetDeviceProperties(&prop, 0);
    if (perr != cudaSuccess) {
      d.reason = std::string("cannot query CUDA device 0: ") + cudaGetErrorString(perr);
      cudaGetLastError();
      return d;
    }
    d.available = true;
    d.name = prop.name;
    d.sm_count = prop.multiProcessorCount;
    d.compute_major = prop.major;
    d.compute_minor = prop.minor;
    return d;
  }();
  return info;
}

bool dependent_launch_supported() {
  const CudaDeviceInfo& d = cuda_device_info();
  return d.available && d.compute_major >= 9;
}

void* device_alloc(std::size_t bytes) {
  void* p = nullptr;
  if (bytes) CUDA_CHECK(cudaMalloc(&p, bytes));
  return p;
}

void device_free(void* p) noexcept {
  if (p) CUDA_CHECK_PRINT(cudaFree(p));
}

int current_device() {
  int d = 0;
  CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

int use_device_of_local_rank(int local_index) {
  int count = 0;
  if (local_index < 0 || cudaGetDeviceCount(&count) != cudaSuccess || count <= 0) {
    cudaGetLastError();
    return -1;
  }
  const int d = local_index % count;
  CUDA_CHECK(cudaSetDevice(d));
  return d;
}

void stream_wait(const void* waiter, const void* producer) {
  cudaStream_t w = static_cast<cudaStream_t>(const_cast<void*>(waiter));
  cudaStream_t p = static_cast<cudaStream_t>(const_cast<void*>(producer));
  if (w == p) return;
  cudaEvent_t e;
  CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  CUDA_CHECK(cudaEventRecord(e, p));
  CUDA_CHECK(cudaStreamWaitEvent(w, e, 0));
  CUDA_CHECK(cudaEventDestroy(e));  // released once the wait has been enqueued
}

namespace {
std::atomic<std::uint64_t> g_circle_bytes_uploaded{0};
}
std::uint64_t circle_bytes_uploaded_by_renderers() { return g_circle_bytes_uploaded.load(); }
void count_circle_bytes_uploaded(std::uint64_t bytes) { g_circle_bytes_uploaded += bytes; }

}  // namespace circles
