#include "kernels/cuda_device.h"

#include <cuda_runtime.h>

namespace circles {

const CudaDeviceInfo& cuda_device_info() {
  static const CudaDeviceInfo info = [] {
    CudaDeviceInfo d;
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
      d.reason = std::string("no usable CUDA device: ") + cudaGetErrorString(err);
      cudaGetLastError();  // clear the error so later calls start clean
      return d;
    }
    if (count == 0) {
      d.reason = "no CUDA device found";
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

}  // namespace circles
