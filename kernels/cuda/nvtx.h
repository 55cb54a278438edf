// NVTX ranges (header-only NVTX 3 from the CUDA toolkit): Nsight Systems shows a frame's stages
// and the lab's kernels under the names the viewer's panels use ("renderer: count", "lab:
// reduce-shuffle"). Without a profiler attached each call is a no-op.
#pragma once
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <string>

namespace circles {

inline void nvtx_push(const std::string& name) { nvtxRangePushA(name.c_str()); }
// "prefix" + "name" without a heap allocation (per-frame stage ranges).
inline void nvtx_push(const char* prefix, const char* name) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s%s", prefix, name);
  nvtxRangePushA(buf);
}
inline void nvtx_pop() { nvtxRangePop(); }

// A range for the lifetime of the object.
class NvtxScope {
 public:
  explicit NvtxScope(const std::string& name) { nvtx_push(name); }
  ~NvtxScope() { nvtx_pop(); }
  NvtxScope(const NvtxScope&) = delete;
  NvtxScope& operator=(const NvtxScope&) = delete;
};

}  // namespace circles
