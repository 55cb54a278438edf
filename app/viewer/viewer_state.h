// The viewer's UI state: plain structs, immediate mode. Each panel (app/viewer/panels/panels.h) is one function
// that draws from and writes to these; the viewer (app/viewer/viewer.cpp) fills in what panels show and
// carries out what they request. No panel owns or touches a renderer.
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/viewer/inspector.h"
#include "kernels/lab/frame_stats.h"
#include "app/viewer/viewer_layout.h"
#include "render/builtin_scenes.h"
#include "app/common/registry.h"

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
  std::string plan;          // how the last frame was drawn and why (Renderer::plan), "" none
  std::string noticed;       // an unavailability reason the column's notice already gives in full
  // The work the shown frame cost (Renderer::count_work: pixel tests, blends, pairs), while
  // count_work is on, and the last renderer's or rung's before a switch, to compare.
  bool count_work = false;
  bool counted = false;      // work holds the shown frame's counts
  Workload work;
  bool counted_before = false;
  Workload work_before;
  std::string before;        // what drew work_before: a rung's name or the renderer's
};

struct AnimationUi {
  bool playing = false;
  int speed = 1;  // frames advanced per displayed frame
  bool rerender_when_paused = true;
  std::int64_t frame = 0;
  std::int64_t displayed_frames = 0;
};

// Where a timing series is listed: renderer stages, interop, host copy, GL, then the frame.
// GPU work first (the renderer's stages, interop, copies, GL), then the host's own work, then
// the waits, each a line of its own: a wait is never counted in a stage's time.
inline int timing_rank(const std::string& name) {
  const char* order[] = {"renderer:", "interop:", "copy:", "gl:", "host:", "lab:", "wait:"};
  for (int i = 0; i < 7; ++i)
    if (name.rfind(order[i], 0) == 0) return i;
  return 7;
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
  float tolerance = 2e-3f;  // the summary counts the pixels over it; the verdict is the frame's mode's promise
  float gain = 16.f;
  bool running = false;
  bool have_result = false;
  bool passed = false;
  std::string summary;  // compare_images(...).summary() and what was compared
  std::string gpu_stats;  // CUDA renderers: the same statistics by a lab reduction on the GPU
  bool gpu_stats_ok = false;
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
  // The transpose view: a transpose variant over the frame, shown mirrored along its diagonal.
  std::vector<std::string> transposes;  // the lab's device transpose variants
  int transpose_selected = 0;
  bool transpose_view = false;
  std::string transpose_unavailable;    // why it cannot be shown now ("" when it can)
  float transpose_ms = 0;               // the four transposes' GPU time, last frame
  std::string transpose_check;          // the last CPU check's verdict
  bool transpose_check_ok = false;
  bool transpose_check_requested = false;
};

// The Kernels panel (app/viewer/panels/kernels_panel.cpp): one task of a lab family, its variants ticked to run
// on an input of the chosen size, each checked against the CPU once and then timed live (app/viewer/tools/live_lab.h
// fills in the results; the panel only edits the choices).
struct KernelRow {
  std::string name, description;
  std::string param_name;  // "block", "stride", "radius" or "" (no knob)
  std::vector<int> params;
  int param_index = 0;
  // The chosen knob value (0 for a variant without one).
  int param() const {
    return params.empty() ? 0 : params[static_cast<std::size_t>(std::clamp(param_index, 0, int(params.size()) - 1))];
  }
  bool ticked = false;
  bool reference = false;   // the library line (CUB)
  std::string unavailable;  // why it cannot run live (greyed), or ""
  // Results (LiveLab): "" (not run yet), "checking", "ok" or "WRONG ...".
  std::string check;
  History ms;               // one value per timed run
  float median_ms = 0, gbps = 0;
};

struct KernelsUi {
  std::vector<std::string> families;  // lab family names, in ladder order
  int family = 0;
  std::vector<std::string> tasks;     // the family's tasks (scan has four)
  int task = 0;
  int type = 0;                       // 0: i32, 1: f32
  std::vector<std::string> types;     // the types some variant of the task takes
  int size = 0;                       // 0: HBM-sized (the default), 1: fits in L2
  bool every_frame = false;
  bool run_once = false;              // request: one timed run of each ticked variant
  bool changed = false;               // request: family, task, type or size changed
  std::vector<KernelRow> rows;        // the task's variants
  // Shown.
  std::string shape;                  // "67108864 i32 (256 MiB)"
  std::string status;                 // what the runner is doing ("building the input", ...)
  std::string error;
  std::string unavailable;            // why the lab cannot run here
  float copy_gbps = 0, copy_ms = 0;   // the device copy of the input's bytes (the ceiling)
  int reveal = 0;                      // frames left to open the panel and scroll to it (--kernels)
};

// The Counters panel (app/viewer/panels/counters_panel.cpp): the GPU's hardware counters for one piece of
// work, read in-process with CUPTI (kernels/cuda/counters.h) when Measure is pressed: a lab variant
// ticked in the Kernels panel, or the renderer's whole frame.
struct CountersUi {
  std::vector<std::string> targets;  // "frame: RENDERER", then "lab: VARIANT" of the ticked rows
  int selected = 0;
  bool measure = false;              // request: measure the selected target now
  std::string unavailable;           // why counters cannot be read here ("" when they can)
  // The last measurement.
  std::string target;                // what it measured
  struct Value {
    std::string label, metric, text;  // text: the value with its unit
  };
  std::vector<Value> values;
  std::string error;
  int passes = 0;
  double collect_ms = 0;
  std::string ncu;                   // the Nsight Compute command that measures the same
  int reveal = 0;                    // frames left to open the panel and scroll to it (--counters)
};

// The tile heat map (app/viewer/panels/heat_panel.cpp): over the frame, per tile or per pixel, with a legend.
struct HeatUi {
  static constexpr const char* kModes[] = {"off", "circles per tile", "blends per pixel", "shade time per tile"};
  int mode = 0;            // index into kModes
  bool blend = true;       // over the frame (else instead of it)
  float alpha = 0.75f;     // the heat map's weight when blended
  std::string unavailable; // why it cannot be shown ("" when it can)
  // The legend of the map on screen.
  std::string what;        // "circles per 16x16 tile", ...
  float lo = 0, hi = 0, mean = 0;
  std::string unit;        // "circles", "blends", "cycles"
  float imbalance = 0;     // max / mean: how unevenly the work is spread
  int reveal = 0;          // frames left to open the panel (--heat)
};

// One bar of the Kernels panel's chart: a timed variant's GB/s as a fraction of the chart's
// full width (the fastest bar or the copy line, whichever is larger, fills 95% of it).
struct KernelBar {
  std::string name;
  float gbps = 0, fraction = 0;
  bool ok = true, reference = false;
};
// The ticked rows that have a time, in table order (pure; tested without GL).
std::vector<KernelBar> kernel_bars(const std::vector<KernelRow>& rows, float copy_gbps);
// Where `gbps` falls on the chart of `bars` (the same scale as their fractions).
float kernel_bar_fraction(float gbps, const std::vector<KernelBar>& bars);

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
  KernelsUi kernels;
  CountersUi counters;
  HeatUi heat;
  bool help_open = false;
  std::vector<Action> actions;  // requested this frame (buttons and keys), carried out in order
  float scale = 1;           // the UI scale (--ui-scale, or the display's): the column is panel_width(scale) wide
  bool open_panels = false;  // every panel open (--open-panels)
  // Text that did not fit the column's width in the last frame drawn: how far past its right edge
  // it reached and where (0 and "": everything fits).
  float text_overflow = 0;
  std::string text_overflow_where;
};

}  // namespace circles
