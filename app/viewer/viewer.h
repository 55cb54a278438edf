// `circles view`: the interactive viewer (GLFW window) and its offscreen twin (EGL), which run the
// same frame loop and UI. Built only when the build has the GUI (CIRCLES_HAVE_GUI); see
// docs/VIEWER.md.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include <optional>

#include "app/gl/interop.h"
#include "app/viewer/viewer_state.h"
#include "render/builtin_scenes.h"
#include "app/common/registry.h"
#include "render/scene.h"

namespace circles {

// What the command line gives (app/cli/cli.cpp fills it in).
struct ViewerOptions {
  std::string scene = kDefaultScene;
  std::string renderer;     // "": default_renderer_name()
  RendererSettings settings;  // --tile-size, --batch-size
  std::string rung;         // --rung: a rung of the renderer ladder (app/common/ladder.h) instead of -r
  bool count_work = false;  // --count-work: the Renderer panel counts each frame's work
  std::string size;         // -s: window: fixed render size; offscreen: the window size
  std::string render_size;  // --render-size: fixed render size (either mode)
  std::uint64_t seed = kDefaultSeed;
  std::string vsync;        // "on", "off" or "" (on in a window)
  bool offscreen = false;
  std::int64_t quit_after = 0;  // displayed frames before exiting; 0: run until closed (window only)
  std::string frames;       // --frames A: the animation frame to start at ("": the scene's own)
  std::string screenshot;   // after the last frame: the whole window as PNG
  std::string export_png;   // after the last frame: the frame as PNG (like `circles render`)
  bool check = false;       // after the last frame: compare with cpu-ref (exit 1 on FAIL)
  bool diff_overlay = false;  // with --check: show the difference image in the screenshot
  bool play = false;        // start playing (else paused)
  int speed = 1;            // frames advanced per displayed frame while playing
  bool no_interop = false;  // force the host-copy path (also CIRCLES_FORCE_NO_INTEROP=1)
  std::string present = "external";  // interop path for CUDA renderers: "external", "surface" or "pbo"
  std::string inspect;      // "I,J": inspect that pixel of the first frame (as a click would)
  std::string frame_stats;  // a lab reduce_sum variant to run over every frame (and check at the end)
  std::string transpose_view;  // a lab transpose variant: show the frame mirrored (and check at the end)
  std::string kernels;      // --kernels FAMILY[:VARIANT,...]: lab variants run live every frame
  std::string kernels_size = "hbm";  // --kernels-size hbm | l2
  std::string heat;         // --heat circles|blends|time: the heat map shown (and logged at the end)
  std::string counters;     // --counters frame | VARIANT: read the hardware counters after the last frame
  float ui_scale = 0;       // --ui-scale: sizes and fonts of the panels; 0: the display's content scale
  float font_size = 0;      // --font-size: pixels; 0: 13 at the UI's scale
  bool open_panels = false;  // --open-panels: every panel open (screenshots of the whole UI)
  std::string timeline;     // --timeline FILE: every frame's host, CUDA and GL intervals, as JSON
  bool overlap = false;     // --overlap: CUDA's and GL's work queued without waiting for each other
};

// The options checked and resolved, before any window or context exists.
struct ViewerConfig {
  ViewerOptions opt;
  std::shared_ptr<const Scene> scene;
  std::string renderer;
  RendererSettings settings;  // resolved against the registry entry
  std::string no_cuda_reason;  // set when no CUDA renderer can run here
  int window_w = 0, window_h = 0;
  int fixed_w = 0, fixed_h = 0;  // fixed render size, or 0: follow the scene area
  int inspect_i = -1, inspect_j = -1;  // --inspect
  bool vsync = true;
  bool force_no_interop = false;
  InteropPath interop_path = InteropPath::External;  // --present
  std::string no_interop_source;  // "--no-interop" or "CIRCLES_FORCE_NO_INTEROP=1"
  std::optional<KernelsUi> kernels;  // --kernels: the Kernels panel's choices
};

// Checks and resolves `opt`. Throws std::invalid_argument for bad usage, unknown scenes and
// unknown or unavailable renderers included (exit 2), and SceneError for a scene file that cannot
// be read (exit 1).
ViewerConfig resolve_viewer_options(const ViewerOptions& opt);
// --heat's name of heat map mode m (HeatUi::kModes): 1 circles, 2 blends, 3 time.
const char* heat_option_name(int mode);
// The lab's reduce_sum variants that take floats: what the frame statistics can run.
std::vector<std::string> frame_stats_variants();

// Runs the viewer; returns the exit status. Prints a clear error and returns 1 when no window
// can be opened (suggesting `circles render` and `circles view --offscreen`). Other errors are
// thrown like the CLI's (std::invalid_argument: usage, exit 2; anything else: exit 1).
int run_viewer(const ViewerOptions& opt);

}  // namespace circles
