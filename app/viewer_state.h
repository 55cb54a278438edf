// The viewer's UI state: plain structs, immediate mode. Each panel (app/panels.h) is one function
// that draws from and writes to these; the viewer (app/viewer.cpp) fills in what panels show and
// carries out what they request. No panel owns or touches a renderer.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/inspector.h"
#include "kernels/lab/frame_stats.h"
#include "app/viewer_layout.h"
#include "render/builtin_scenes.h"
#include "app/registry.h"

namespace circles {

// Everything a key or a button can ask for.
enum class Action {
  TogglePlay,
  Step,
  Reload,
  ExportPng,
  Check,
  ToggleDiff,
  ToggleVsync,
  ToggleHelp,
  ResetView,
  Quit,
};

// A keyboard shortcut (GLFW key codes); the Help panel lists this table and the viewer reads it.
struct Shortcut {
  int key;
  int alt_key;       // a second key for the same action, or -1
  const char* keys;  // as shown in Help
  const char* what;
  Action action;
};
const std::vector<Shortcut>& shortcuts();

// A line shown at the top of the panel column (and printed to stderr when it appears).
struct Notice {
  std::string text;
  bool warning = true;
};

struct SceneUi {
  // Shown.
  std::string current;  // built-in name or file path
  std::size_t circle_count = 0;
  std::int64_t first_frame = 0;
  bool animated = false;
  int render_w = 0, render_h = 0;
  // Edited.
  int builtin = -1;  // index into scene_registry() picked in the list
  std::string path;  // file path field
  std::uint64_t seed = kDefaultSeed;
  bool fixed_size = false;
  int fixed_w = 1024, fixed_h = 1024;
  // Requests (the viewer clears them).
  bool load_builtin = false;
  bool load_path = false;
  bool apply_size = false;
  // Result of the last load.
  std::string error;
};

struct RendererUi {
  std::string current;
  RendererSettings settings;  // of the current renderer, resolved (tile and batch size)
  std::string requested;  // set by the panel; the viewer switches and clears it
  RendererSettings requested_settings;  // with `requested` ({} = the renderer's defaults)
  std::string error;
  std::string present_path;  // "cuda-gl interop (surface)" / "host copy (...)"
};

struct AnimationUi {
  bool playing = false;
  int speed = 1;  // frames advanced per displayed frame
  bool rerender_when_paused = true;
  std::int64_t frame = 0;
  std::int64_t displayed_frames = 0;
};

// Where a timing series is listed: renderer stages, interop, host copy, GL, then the frame.
inline int timing_rank(const std::string& name) {
  const char* order[] = {"renderer:", "interop:", "copy:", "gl:"};
  for (int i = 0; i < 4; ++i)
    if (name.rfind(order[i], 0) == 0) return i;
  return 4;
}

// One timed stage with its rolling history.
struct TimingSeries {
  std::string name;  // "renderer: clear", "interop: map", "gl: present", ...
  History history;
  std::string unit = "ms";
  std::int64_t updated = -1;  // TimingsUi::frame_index of its newest sample
};

struct TimingsUi {
  // Frame time and FPS come from the same window: the median of the last kWindow frames, and
  // 1000 over it. One plot shows the frame times.
  static constexpr int kWindow = 60;
  // A stage without a sample for this many displayed frames (paused: nothing renders) is shown
  // as its last value, marked as old, not as current.
  static constexpr int kStaleFrames = 8;
  std::vector<TimingSeries> series;
  History frame_ms;
  std::int64_t frame_index = 0;  // displayed frames so far (the viewer sets it)
  // Adds a sample to the series `name` (created at the end of the list on first use).
  void add(const std::string& name, float ms);
  float frame_median_ms() const { return frame_ms.recent_median(kWindow); }
  float fps() const {
    const float m = frame_median_ms();
    return m > 0 ? 1000.f / m : 0.f;
  }
  bool stale(const TimingSeries& s) const { return frame_index - s.updated > kStaleFrames; }
};

struct ExportUi {
  std::string path = "circles-view.png";
  std::string status;
  bool ok = true;
  bool reveal = false;  // open the panel once (a result to show)
};

struct CheckUi {
  float tolerance = 2e-3f;
  float gain = 16.f;
  bool running = false;
  bool have_result = false;
  bool passed = false;
  std::string summary;  // compare_images(...).summary() and what was compared
  std::string error;
  bool overlay = false;   // show the difference image in the scene area
  bool blend = false;     // blended over the frame instead of replacing it
  float blend_alpha = 0.5f;
  bool reveal = false;  // open the panel once (a result to show)
};

// The lab's reductions on the live frame (kernels/lab/frame_stats.h): which variant, whether it
// runs every frame, and what it found.
struct FrameStatsUi {
  std::vector<std::string> variants;  // reduce_sum variants that take floats (from the lab registry)
  int selected = 0;
  bool every_frame = false;
  std::string unavailable;            // why it cannot run now ("" when it can)
  std::optional<lab::FrameStats> last;
  std::string check;                  // the last CPU check's verdict
  bool check_ok = false;
  bool check_requested = false;
  bool reveal = false;  // open the panel once (--frame-stats)
};

struct ViewUi {
  std::string surface;  // window / offscreen description
  std::string gl;       // GL_VERSION, GL_RENDERER
  bool vsync = false;
  bool can_vsync = false;
  double zoom = 1.0;
  bool default_view = true;
};

// The pixel inspector (click a pixel of the frame, or hover with Shift held): the newest answer.
struct InspectorUi {
  std::optional<InspectResult> result;
  bool busy = false;    // a walk is under way
  int reveal = 0;  // frames left to open the panel and scroll to it (a new answer arrived)
};

struct UiState {
  std::vector<Notice> notices;
  SceneUi scene;
  RendererUi renderer;
  AnimationUi animation;
  TimingsUi timings;
  ExportUi export_png;
  CheckUi check;
  ViewUi view;
  InspectorUi inspector;
  FrameStatsUi frame_stats;
  bool help_open = false;
  std::vector<Action> actions;  // requested this frame (buttons and keys), carried out in order
};

}  // namespace circles
