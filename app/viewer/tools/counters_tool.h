// The Counters panel's tool: lists what can be measured (the frame, each stage of the renderer's
// last frame, each ticked Kernels row) and, when asked (or --counters TARGET near the end), runs
// that work once more under CUPTI's range profiler (kernels/cuda/counters.h). A measurement waits
// for the GPU: an explicit action, never every frame.
#pragma once
#include "app/viewer/tools/kernels_tool.h"
#include "app/viewer/tools/tool.h"
#include "app/viewer/viewer_state.h"

namespace circles {

class CountersTool {
 public:
  CountersTool(UiState& ui, KernelsTool& kernels) : ui_(ui), kernels_(kernels) {}
  void update(const ToolFrame& f);

 private:
  UiState& ui_;
  KernelsTool& kernels_;
  bool done_ = false;  // --counters measured once
};

}  // namespace circles
