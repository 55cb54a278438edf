// Whether a CUDA device can be used here, probed once. Plain C++: no CUDA headers.
#pragma once
#include <cstddef>
#include <cstdint>
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

// For frames handed to a caller on the GPU (the library's write_device, the Python module's CUDA
// arrays): memory on the current device, freed with device_free (which never throws).
void* device_alloc(std::size_t bytes);
void device_free(void* p) noexcept;
int current_device();
// One process per GPU where a host has several (MPI ranks): makes device `local_index % count`
// this process's current device, before any renderer is made. Returns it, or -1 (and changes
// nothing) where no device is usable.
int use_device_of_local_rank(int local_index);
// `waiter` (a cudaStream_t; nullptr the default stream) waits for what `producer` has enqueued.
void stream_wait(const void* waiter, const void* producer);
// Bytes of circles copied from the host to the GPU by every CUDA renderer in this process: what a
// host scene costs each load, and what device arrays never add to.
std::uint64_t circle_bytes_uploaded_by_renderers();
void count_circle_bytes_uploaded(std::uint64_t bytes);

}  // namespace circles
