// The viewer's frame loop as a class, for the files that implement it: app/viewer/viewer.cpp (the
// loop, state changes, the UI, the live tools' calls), viewer_present.cpp (the frame into the
// texture and the waits around it), viewer_timings.cpp (stage samples, the timeline, the summary)
// and viewer_output.cpp (export, check, screenshot). The live tools it calls each frame (frame statistics, the transpose view, the
// heat map, the Kernels panel's lab runs, the hardware counters) are objects in app/viewer/tools/.
// Not an interface: run_viewer() (app/viewer/viewer.h) is.
#pragma once

#include <glad/gl.h>
#include <imgui.h>

#include <chrono>
#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/gl/gl_present.h"
#include "app/gl/gl_surface.h"
#include "app/gl/gl_util.h"
#include "app/viewer/inspector.h"
#include "app/gl/interop.h"
#include "app/common/lab_registry.h"
#include "app/viewer/tools/counters_tool.h"
#include "app/viewer/tools/frame_stats_tool.h"
#include "app/viewer/tools/heat_tool.h"
#include "app/viewer/tools/kernels_tool.h"
#include "app/viewer/tools/tool.h"
#include "app/viewer/panels/panels.h"
#include "app/viewer/viewer.h"
#include "app/viewer/viewer_layout.h"
#include "app/viewer/timeline.h"
#include "app/viewer/viewer_log.h"
#include "app/viewer/viewer_state.h"
#include "render/compare.h"
#include "render/image.h"

namespace circles {

namespace viewer_detail {
class ImGuiSession;  // the ImGui context and its backends (app/viewer/viewer.cpp)
// The present-path text of an interop path: "cuda-gl interop (external)", ...
std::string interop_present_path(InteropPath p);
}  // namespace viewer_detail

struct CheckResult {
  Comparison comparison;
  Mode mode = Mode::Exact;  // the frame's (Renderer::mode): it passes when it keeps this promise
  std::string broken;       // promise_broken's account, "" when kept
  Image diff;
  std::int64_t frame = 0;
  int width = 0, height = 0;
  std::string renderer;
  std::string error;
  std::string gpu_stats;  // the difference statistics by the lab on the GPU, against the CPU's
  bool gpu_stats_ok = false;
};

class Viewer {
 public:
  explicit Viewer(ViewerConfig cfg);  // both in app/viewer/viewer.cpp, where ImGuiSession is complete
  ~Viewer();
  int run();

 private:
  void setup();
  void notice(const std::string& text, bool warning = true);
  void set_present_path(const std::string& path);

  // State changes (between frames).
  void apply_requests();
  bool load_scene_source(const std::string& source);
  // Starts the inspector on pixel (i, j) of the frame on screen (row 0 = bottom).
  bool request_inspect(int i, int j);  // false (reported) when the pixel is outside the frame
  void switch_renderer(const std::string& name, const RendererSettings& settings);
  void reload_renderer(std::int64_t frame);
  void update_render_size(const PixelRect& area);
  void resize_render(int w, int h);

  void frame_to_texture();
  void finish_present();   // the external path's wait and copy, before the frame is drawn
  void acquire_interop();  // the surface and pbo paths' map, before the render
  bool serialising() const;
  void fence_gl();       // after the frame's GL work (serialising)
  void wait_for_gl();    // before the render: GL's last frame done
  void wait_for_cuda();  // before GL's work: the frame's CUDA work done
  void* gl_fence_ = nullptr;  // GLsync of the last frame's GL work
  bool rendered_ = false;     // a CUDA frame was queued since the last wait_for_cuda
  void interop_failed(InteropPath path, const std::string& what);
  bool export_frame(const std::string& path);  // false (and said) when the write failed
  void start_check();
  void poll_check(bool wait);
  void take_screenshot(const std::string& path, int fb_w, int fb_h);

  void fill_ui();
  void handle_input(const PixelRect& area, int fb_h, float pixel_scale);
  void record(const std::string& name, double ms);
  void collect_timings();
  void print_summary() const;

  ViewerConfig cfg_;
  // Declared in dependency order: destroyed in reverse, so GL objects and CUDA registrations go
  // while the context is current, and the context goes last.
  std::unique_ptr<GlSurface> surface_;
  std::unique_ptr<viewer_detail::ImGuiSession> imgui_;
  std::unique_ptr<Presenter> presenter_;
  std::unique_ptr<GlTimer> ui_timer_;
  std::unique_ptr<CudaGlInterop> interop_;
  std::string interop_off_reason_;
  std::unique_ptr<Renderer> renderer_;
  std::string renderer_name_;

  std::shared_ptr<const Scene> scene_;
  std::string scene_source_;
  int render_w_ = 0, render_h_ = 0;
  int fixed_w_ = 0, fixed_h_ = 0;
  bool loaded_ = false;  // renderer_ holds the scene at render_w_ x render_h_
  bool dirty_ = true;    // the texture does not show the renderer's current frame
  bool count_asked_ = false;  // the Renderer panel's "count work", as last applied
  bool counting_ = false;     // and the renderer counts its work (not every renderer can)
  bool fresh_ = true;    // the current frame has not been displayed yet (do not advance past it)
  int step_pending_ = 0;
  std::optional<std::pair<int, int>> pending_size_;
  viewer_detail::Clock::time_point pending_since_;
  std::string present_path_;

  UiState ui_;
  ViewState view_;
  bool dragging_ = false;
  ImVec2 drag_last_;  // the mouse position the drag has panned to so far
  std::vector<StageTiming> last_renderer_timings_, last_interop_timings_;
  std::vector<std::pair<std::string, std::vector<double>>> samples_;  // for the summary
  std::int64_t displayed_ = 0;
  PixelInspector inspector_;
  // The live tools, called in this order each displayed frame (app/viewer/tools/).
  FrameStatsTool frame_stats_{ui_};
  KernelsTool kernels_{ui_};
  CountersTool counters_{ui_, kernels_};
  TransposeTool transpose_{ui_};
  HeatTool heat_{ui_};
  ToolFrame tool_frame(bool last_frame);  // what they see of the frame on screen
  void run_tools(bool last_frame);
  bool inspect_sent_ = false;  // --inspect given once
  int hover_i_ = -1, hover_j_ = -1;  // the pixel last inspected by hovering
  float panel_overflow_ = 0;  // pixels of the panel column below the window's bottom
  std::int64_t panel_frames_ = 0;  // frames the column was drawn in (its overflow is known from the second)
  bool check_failed_ = false;
  Timeline timeline_;  // --timeline

  std::future<CheckResult> check_;  // last member: a running check is waited for first
};

}  // namespace circles
