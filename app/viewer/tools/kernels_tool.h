// The Kernels panel's tool: the live lab (live_lab.h) run once per displayed frame, and with
// --kernels its results reported on the last frame.
#pragma once
#include "app/viewer/tools/live_lab.h"
#include "app/viewer/tools/tool.h"
#include "app/viewer/viewer_state.h"

namespace circles {

class KernelsTool {
 public:
  explicit KernelsTool(UiState& ui) : ui_(ui) {}
  void update(const ToolFrame& f);
  LiveLab& lab() { return lab_; }

 private:
  UiState& ui_;
  LiveLab lab_;
};

}  // namespace circles
