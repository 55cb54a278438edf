// The Frame stats panel's tools over the frame on screen: the lab's reductions (mean colour and
// coverage; enqueued behind the render, read when done) and the transpose view (a lab transpose
// of the frame every frame, shown through the overlay). Each has a check against the CPU.
#pragma once
#include <string>

#include "app/viewer/tools/tool.h"
#include "app/viewer/viewer_state.h"
#include "kernels/lab/frame_stats.h"

namespace circles {

class FrameStatsTool {
 public:
  explicit FrameStatsTool(UiState& ui) : ui_(ui) {}
  void update(const ToolFrame& f);
  // One reduction of the frame on screen, waited for and compared with the CPU's sums.
  void check(const ToolFrame& f);

 private:
  UiState& ui_;
  lab::FrameReducer reducer_;
  std::string variant_;  // the variant of the request in flight
};

class TransposeTool {
 public:
  explicit TransposeTool(UiState& ui) : ui_(ui) {}
  void update(const ToolFrame& f);
  // The chosen variant over the frame on screen, waited for and compared with the CPU's mirror.
  void check(const ToolFrame& f);
  bool shown() const { return shown_; }  // the overlay holds the transposed frame

 private:
  bool enqueue(const ToolFrame& f);  // false while one runs
  UiState& ui_;
  lab::FrameTransposer transposer_;
  std::string variant_;  // the variant of the request in flight
  bool shown_ = false;
};

}  // namespace circles
