// What the viewer's live tools (the lab's reductions and transposes over the frame, the heat map,
// the Kernels panel's lab, the hardware counters) see of the frame on screen, once per displayed
// frame, after its render is enqueued. Each tool is an object the loop calls with this; a tool
// never waits for the GPU on the way, except for a check the user (or the command line) asks for.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "app/gl/gl_present.h"
#include "app/viewer/viewer.h"
#include "render/renderer.h"
#include "render/scene.h"

namespace circles {

struct ToolFrame {
  Renderer& renderer;
  const std::string& renderer_name;
  const Scene& scene;
  const std::string& scene_source;  // what `circles render` would be given for the same picture
  int width = 0, height = 0;        // the render size
  bool last_frame = false;          // --quit-after's last: finish what was asked on the command line
  std::int64_t displayed = 0;       // frames displayed before this one
  const ViewerOptions& options;
  const std::string& no_cuda_reason;                 // why there is no CUDA device ("" when there is)
  const std::vector<StageTiming>& renderer_timings;  // the newest finished frame's stages
  Presenter& presenter;                              // its overlay shows a tool's picture
  // A stage time for the Timings panel and the summary ("lab: reduce-shuffle", ms).
  std::function<void(const std::string&, double)> record;
  // A request from the command line was not met: the viewer exits 1.
  std::function<void()> fail;
};

}  // namespace circles
