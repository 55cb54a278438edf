// The heat map: per tile the circles that touch it, per pixel the blends it takes, or per tile
// the cycles the shade kernel spent there, of the frame on screen, shown through the overlay.
// Counts are computed when the frame changes; cycles are recorded by every rendered frame and
// read behind it without a host wait (the newest complete map is shown).
#pragma once
#include <string>
#include <vector>

#include "app/viewer/tools/tool.h"
#include "app/viewer/viewer_state.h"

namespace circles {

class HeatTool {
 public:
  explicit HeatTool(UiState& ui) : ui_(ui) {}
  // `overlay_taken`: another tool (the transpose view) holds the overlay.
  void update(const ToolFrame& f, bool overlay_taken);
  bool shown() const { return shown_; }

 private:
  UiState& ui_;
  bool shown_ = false;         // the overlay holds the heat map
  bool timing_tiles_ = false;  // the renderer records its shade cycles
  std::string key_;            // what the map on screen shows (mode, frame, size, renderer)
  std::vector<double> cycles_;  // the cycles on screen (a map is rebuilt only when they change)
};

}  // namespace circles
