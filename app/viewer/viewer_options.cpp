// Checks `circles view`'s options before anything is opened, so that bad input fails fast with a
// clear message and no window.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "app/common/args.h"
#include "app/common/host_memory.h"
#include "app/viewer/viewer.h"
#include "render/output_file.h"
#include "app/viewer/tools/live_lab.h"
#include "app/viewer/viewer_layout.h"
#include "app/common/lab_registry.h"
#include "app/common/ladder.h"
#include "app/common/registry.h"
#include "render/cpu_renderers.h"
#include "render/progress.h"

namespace circles {

namespace {

bool env_set(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::string(v) != "0";
}

}  // namespace

const char* heat_option_name(int mode) {
  static const char* names[] = {"off", "circles", "blends", "time"};
  return mode >= 0 && mode < 4 ? names[mode] : "";
}

std::vector<std::string> frame_stats_variants() {
  std::vector<std::string> out;
  for (const lab::Variant& v : lab_registry())
    if (v.task == lab::Task::reduce_sum && !v.host &&
        std::find(v.types.begin(), v.types.end(), lab::Elem::f32) != v.types.end())
      out.push_back(v.name);
  return out;
}

ViewerConfig resolve_viewer_options(const ViewerOptions& opt) {
  ViewerConfig c;
  c.opt = opt;

  // Usage first (cheap): every one of these is exit 2.
  if (opt.quit_after < 0) throw std::invalid_argument("--quit-after must be at least 1");
  if (opt.offscreen && opt.quit_after == 0)
    throw std::invalid_argument("--offscreen needs --quit-after N (how many frames to show before exiting)");
  if (opt.quit_after == 0) {
    if (!opt.screenshot.empty()) throw std::invalid_argument("--screenshot needs --quit-after N (it is taken after the last frame)");
    if (!opt.export_png.empty()) throw std::invalid_argument("--export needs --quit-after N (it is written after the last frame)");
    if (opt.check) throw std::invalid_argument("--check needs --quit-after N (it runs after the last frame)");
  }
  if (!opt.inspect.empty()) {
    const std::size_t comma = opt.inspect.find(',');
    auto number = [&](const std::string& t) {
      if (t.empty() || t.size() > 5 || t.find_first_not_of("0123456789") != std::string::npos)
        throw std::invalid_argument("--inspect '" + opt.inspect + "': expected I,J (a pixel, row 0 at the bottom)");
      return std::stoi(t);
    };
    if (comma == std::string::npos) number("");
    c.inspect_i = number(opt.inspect.substr(0, comma));
    c.inspect_j = number(opt.inspect.substr(comma + 1));
  }
  if (!opt.frame_stats.empty()) {
    const std::vector<std::string> names = frame_stats_variants();
    if (std::find(names.begin(), names.end(), opt.frame_stats) == names.end()) {
      std::string list;
      for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
      throw std::invalid_argument("--frame-stats '" + opt.frame_stats + "': not a float reduction of the lab (" +
                                  list + ")");
    }
  }
  if (!opt.transpose_view.empty()) {
    const lab::Variant* v = find_lab_variant(opt.transpose_view);
    if (!v || v->task != lab::Task::transpose || v->host) {
      std::string list;
      for (const lab::Variant& t : lab_registry())
        if (t.task == lab::Task::transpose && !t.host) list += (list.empty() ? "" : ", ") + t.name;
      throw std::invalid_argument("--transpose-view '" + opt.transpose_view + "': not a device transpose of the lab (" +
                                  list + ")");
    }
  }
  if (!opt.heat.empty() && opt.heat != "circles" && opt.heat != "blends" && opt.heat != "time")
    throw std::invalid_argument("--heat '" + opt.heat + "': expected circles (per tile), blends (per pixel) or time "
                                "(shade cycles per tile)");
  if (!opt.counters.empty() && opt.counters != "frame" && opt.counters.rfind("stage:", 0) != 0 &&
      !find_lab_variant(opt.counters))
    throw std::invalid_argument("--counters '" + opt.counters + "': expected frame, stage:NAME (a stage of the "
                                "renderer, as the Timings panel names it) or a lab variant ticked with --kernels "
                                "(see circles kernels --list)");
  if (!opt.counters.empty() && opt.quit_after == 0)
    throw std::invalid_argument("--counters needs --quit-after N (they are read after the last frame)");
  if (!opt.kernels.empty()) {
    KernelsUi k;
    kernels_ui_from_spec(opt.kernels, opt.kernels_size, &k);
    c.kernels = std::move(k);
  } else if (opt.kernels_size != "hbm") {
    throw std::invalid_argument("--kernels-size needs --kernels FAMILY (the lab variants to run)");
  }
  std::int64_t start = -1, start_end = 0;
  if (!opt.frames.empty()) {
    if (opt.frames.find(':') != std::string::npos)
      throw std::invalid_argument("--frames '" + opt.frames + "': the viewer starts at one frame (--frames A); "
                                  "--quit-after N says how many frames it shows");
    parse_frames(opt.frames, &start, &start_end);
  }
  if (opt.diff_overlay && !opt.check) throw std::invalid_argument("--diff-overlay needs --check");
  if (opt.speed < 1 || opt.speed > 16) throw std::invalid_argument("--speed must be 1..16");
  if (opt.offscreen && !opt.vsync.empty())
    throw std::invalid_argument("--vsync applies to a window only (offscreen frames are never synchronised)");
  if (!opt.vsync.empty() && opt.vsync != "on" && opt.vsync != "off")
    throw std::invalid_argument("--vsync must be 'on' or 'off', not '" + opt.vsync + "'");
  c.vsync = opt.vsync != "off";
  if (!interop_path_from_name(opt.present, &c.interop_path))
    throw std::invalid_argument("--present must be 'surface', 'pbo' or 'external', not '" + opt.present + "'");

  if (opt.offscreen) {
    c.window_w = kDefaultOffscreenWidth;
    c.window_h = kDefaultOffscreenHeight;
    if (!opt.size.empty()) parse_size(opt.size, &c.window_w, &c.window_h);
    const float scale = column_scale(opt.ui_scale > 0 ? opt.ui_scale : 1.f, opt.font_size);
    const int min_w = std::max(kMinWindowWidth, panel_width(scale) + 32);
    if (c.window_w < min_w || c.window_h < kMinWindowHeight)
      throw std::invalid_argument("offscreen window " + opt.size + " is too small: at least " +
                                  std::to_string(min_w) + "x" + std::to_string(kMinWindowHeight) +
                                  " (the panel column alone is " + std::to_string(min_w - 32) + " wide)");
    if (!opt.render_size.empty()) parse_size(opt.render_size, &c.fixed_w, &c.fixed_h);
  } else {
    c.window_w = kDefaultWindowWidth;
    c.window_h = kDefaultWindowHeight;
    if (!opt.size.empty() && !opt.render_size.empty())
      throw std::invalid_argument("give -s or --render-size, not both (in a window both fix the render size)");
    const std::string& fixed = opt.size.empty() ? opt.render_size : opt.size;
    if (!fixed.empty()) parse_size(fixed, &c.fixed_w, &c.fixed_h);
  }
  // A fixed render size bounds --inspect's pixel now; otherwise the frame's size (the scene area)
  // is known once the window is up, and a pixel outside it fails the run (exit 1).
  if (!opt.inspect.empty() && c.fixed_w > 0 && (c.inspect_i >= c.fixed_w || c.inspect_j >= c.fixed_h))
    throw std::invalid_argument("--inspect " + opt.inspect + " is outside the " + std::to_string(c.fixed_w) + "x" +
                                std::to_string(c.fixed_h) + " render size (pixels 0.." + std::to_string(c.fixed_w - 1) +
                                ", 0.." + std::to_string(c.fixed_h - 1) + ")");
  // Output paths as `circles render` checks -o: a directory, a missing or unwritable folder is a
  // usage error before anything opens.
  if (!opt.screenshot.empty()) check_output_path(opt.screenshot, "--screenshot");
  if (!opt.export_png.empty()) check_output_path(opt.export_png, "--export");
  if (!opt.timeline.empty()) check_output_path(opt.timeline, "--timeline");
  if (!opt.screenshot.empty() && !opt.export_png.empty() &&
      std::filesystem::path(output_target(opt.screenshot)).lexically_normal() ==
          std::filesystem::path(output_target(opt.export_png)).lexically_normal())
    throw std::invalid_argument("--screenshot and --export name the same file '" + opt.export_png +
                                "': the screenshot would overwrite the frame");

  // The renderer (exit 2 when unknown or unavailable, as in `circles render`), or a ladder rung's
  // renderer and settings.
  RendererSettings settings = opt.settings;
  c.renderer = opt.renderer.empty() ? default_renderer_name() : opt.renderer;
  if (!opt.rung.empty()) {
    if (!opt.renderer.empty())
      throw std::invalid_argument("--rung " + opt.rung + " names its renderer: give --rung or -r, not both");
    if (!(opt.settings == RendererSettings{}))
      throw std::invalid_argument("--rung " + opt.rung +
                                  " sets the renderer's settings: give --rung or settings options, not both");
    const Rung* rung = select_rungs({opt.rung}).front();  // throws, listing the rungs
    c.renderer = rung->renderer;
    settings = rung->settings;
  }
  const RendererInfo* info = find_renderer(c.renderer);
  if (!info) make_renderer(c.renderer);  // throws, listing the names
  const std::string why = unavailable_reason(*info);
  if (!why.empty()) throw std::invalid_argument("renderer '" + c.renderer + "' is unavailable: " + why);
  c.settings = resolve_settings(*info, settings);  // std::invalid_argument: usage
  for (const RendererInfo& r : renderer_registry()) {
    if (!r.needs_gpu) continue;
    const std::string gpu_why = unavailable_reason(r);
    if (gpu_why.empty()) {
      c.no_cuda_reason.clear();
      break;
    }
    if (c.no_cuda_reason.empty()) c.no_cuda_reason = gpu_why;
  }

  c.force_no_interop = opt.no_interop || env_set("CIRCLES_FORCE_NO_INTEROP");
  c.no_interop_source = opt.no_interop ? "--no-interop" : "CIRCLES_FORCE_NO_INTEROP=1";

  // The scene last: generating a large built-in takes a moment (refused, before any window opens,
  // where its circles would not fit the host's memory, as `circles render` refuses).
  Scene scene = load_scene_within_memory(opt.scene, opt.seed, "view");
  if (start >= 0) {
    if (start < scene.frame)
      throw std::invalid_argument("--frames " + opt.frames + " is before the scene's frame " +
                                  std::to_string(scene.frame) + " (animations only run forward)");
    Progress progress("view " + opt.scene, 1);
    advance_scene(&scene, start - scene.frame, &progress);
  }
  c.scene = std::make_shared<const Scene>(std::move(scene));
  return c;
}

}  // namespace circles
