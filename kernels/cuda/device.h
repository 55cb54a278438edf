// Whether a CUDA device can be used here, probed once. Plain C++: no CUDA headers.
#pragma once
#include <string>

namespace circles {

struct CudaDeviceInfo {
  bool available = false;
  std::string reason;  // why not, when unavailable
  std::string name;    // e.g. "NVIDIA H100 80GB HBM3"
  int sm_count = 0;
  int compute_major = 0, compute_minor = 0;
};

const CudaDeviceInfo& cuda_device_info();

}  // namespace circles
