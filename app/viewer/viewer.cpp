// The viewer's frame loop, shared by the window and the offscreen context:
//   carry out last frame's requests -> (resize) -> advance -> [wait for GL's last frame] -> render
//   -> frame into the GL texture (CUDA-GL interop: surface, pbo or external; or read_rgba8 into a
//   mapped pixel buffer) -> live tools -> UI -> [wait for the frame's CUDA work] -> present draw +
//   ImGui draw -> swap (or fence) -> collect timings without blocking. The waits in brackets keep
//   CUDA's and GL's work from running inside each other (--overlap drops them).
#include "app/viewer/viewer_impl.h"

#include <glad/gl.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <future>
#include <optional>
#include <thread>
#include <utility>

#include "app/gl/gl_present.h"
#include "app/gl/gl_surface.h"
#include "app/gl/gl_util.h"
#include "app/gl/interop.h"
#include "app/viewer/tools/live_lab.h"
#include "app/viewer/panels/panels.h"
#include "kernels/cuda/counters.h"
#include "app/common/host_memory.h"
#include "app/viewer/viewer_layout.h"
#include "app/viewer/viewer_state.h"
#include "render/compare.h"
#include "app/common/lab_registry.h"
#include "app/common/ladder.h"
#include "app/common/registry.h"

namespace circles {

#if !CIRCLES_HAVE_CUDA
std::unique_ptr<CudaGlInterop> make_cuda_gl_interop(InteropPath /*path*/, std::string* why_not) {
  *why_not = "this build has no CUDA";
  return nullptr;
}
std::shared_ptr<void> record_origin_event(void* /*stream*/, std::string* why_not) {
  *why_not = "this build has no CUDA";
  return nullptr;
}
void wait_for_stream(void* /*stream*/) {}
#endif

namespace viewer_detail {

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

void report(const char* fmt, ...) {
  std::va_list args;
  va_start(args, fmt);
  std::fputs("viewer: ", stderr);
  std::vfprintf(stderr, fmt, args);
  std::fputc('\n', stderr);
  va_end(args);
}

// The present-path text of an interop path: "cuda-gl interop (surface)", "cuda-gl interop (pbo)".
std::string interop_present_path(InteropPath p) {
  return std::string("cuda-gl interop (") + interop_path_name(p) + ")";
}

// The ImGui context with its two backends, torn down in reverse order on every exit path.
class ImGuiSession {
 public:
  // `scale`: the UI's scale (sizes and spacing); `font_px`: the font's size in pixels.
  ImGuiSession(GlSurface& surface, float scale, float font_px) : surface_(surface) {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    try {
      ImGuiIO& io = ImGui::GetIO();
      io.IniFilename = nullptr;  // fixed layout: nothing to remember, no file written
      io.LogFilename = nullptr;
      // ImGui's own font (ProggyClean, drawn for 13 px) at the asked size: whole multiples stay
      // crisp, and nothing is read from the system.
      ImFontConfig font;
      font.SizePixels = font_px;
      io.Fonts->AddFontDefault(&font);
      ImGui::StyleColorsDark();
      ImGuiStyle& style = ImGui::GetStyle();
      style.WindowRounding = 0.f;
      style.WindowBorderSize = 0.f;
      style.Colors[ImGuiCol_WindowBg].w = 1.f;  // an opaque column: the scene area stays clean
      style.ScaleAllSizes(scale);
      surface_.imgui_init();
      platform_ = true;
      if (!ImGui_ImplOpenGL3_Init("#version 330 core")) throw std::runtime_error("ImGui_ImplOpenGL3_Init failed");
      renderer_ = true;
      GL_CHECK("ImGui OpenGL3 backend init");
    } catch (...) {
      shutdown();
      throw;
    }
  }
  ~ImGuiSession() { shutdown(); }
  ImGuiSession(const ImGuiSession&) = delete;
  ImGuiSession& operator=(const ImGuiSession&) = delete;

 private:
  void shutdown() {
    if (renderer_) ImGui_ImplOpenGL3_Shutdown();
    if (platform_) surface_.imgui_shutdown();
    renderer_ = platform_ = false;
    if (ImGui::GetCurrentContext()) ImGui::DestroyContext();
  }
  GlSurface& surface_;
  bool platform_ = false, renderer_ = false;
};

}  // namespace viewer_detail

using viewer_detail::Clock;
using viewer_detail::ImGuiSession;
using viewer_detail::interop_present_path;
using viewer_detail::ms_between;
using viewer_detail::report;

Viewer::Viewer(ViewerConfig cfg) : cfg_(std::move(cfg)) {}
Viewer::~Viewer() = default;

void Viewer::notice(const std::string& text, bool warning) {
  ui_.notices.push_back({text, warning});
  report("notice: %s", text.c_str());
}

void Viewer::set_present_path(const std::string& path) {
  if (path == present_path_) return;
  present_path_ = path;
  ui_.renderer.present_path = path;
  report("present: %s (renderer %s)", path.c_str(), renderer_name_.c_str());
}

void Viewer::setup() {
  const ViewerOptions& o = cfg_.opt;
  ui_.frame_stats.variants = frame_stats_variants();
  for (std::size_t i = 0; i < ui_.frame_stats.variants.size(); ++i)
    if (ui_.frame_stats.variants[i] == (o.frame_stats.empty() ? std::string("reduce-shuffle") : o.frame_stats))
      ui_.frame_stats.selected = static_cast<int>(i);
  ui_.frame_stats.every_frame = ui_.frame_stats.reveal = !o.frame_stats.empty();
  if (cfg_.kernels) ui_.kernels = *cfg_.kernels;
  if (!o.counters.empty()) ui_.counters.reveal = 2;
  for (int m = 1; m < static_cast<int>(std::size(HeatUi::kModes)); ++m)
    if (!o.heat.empty() && o.heat == heat_option_name(m)) {
      ui_.heat.mode = m;
      ui_.heat.reveal = 2;
    }
  for (const lab::Variant& v : lab_registry())
    if (v.task == lab::Task::transpose && !v.host) ui_.frame_stats.transposes.push_back(v.name);
  for (std::size_t i = 0; i < ui_.frame_stats.transposes.size(); ++i)
    if (ui_.frame_stats.transposes[i] == (o.transpose_view.empty() ? std::string("transpose-best") : o.transpose_view))
      ui_.frame_stats.transpose_selected = static_cast<int>(i);
  if (!o.transpose_view.empty()) ui_.frame_stats.transpose_view = ui_.frame_stats.reveal = true;
  if (o.offscreen) {
    surface_ = open_offscreen(cfg_.window_w, cfg_.window_h);
  } else {
    surface_ = open_window(cfg_.window_w, cfg_.window_h, cfg_.vsync, "circles view: " + o.scene);
  }
  if (install_gl_debug_callback()) GL_CHECK("debug callback");
  const std::string gl = gl_description();
  report("%s; %s", surface_->description().c_str(), gl.c_str());
  ui_.view.surface = surface_->description();
  ui_.view.gl = gl;

  // The UI's scale: --ui-scale, else the display's content scale over its pixel scale (a HiDPI
  // framebuffer already doubles every window coordinate).
  const float scale =
      o.ui_scale > 0 ? o.ui_scale : std::clamp(surface_->content_scale() / surface_->pixel_scale(), 0.5f, 4.f);
  const float font_px = o.font_size > 0 ? o.font_size : std::round(13.f * scale);
  // The column's width follows the font (a larger --font-size widens it too), so its lines fit.
  ui_.scale = column_scale(scale, font_px);
  ui_.open_panels = o.open_panels;
  report("ui: scale %.2f, font %.0f px%s, column %d px", static_cast<double>(scale), static_cast<double>(font_px),
         o.ui_scale > 0 ? " (--ui-scale)" : " (the display's content scale)", panel_width(ui_.scale));
  imgui_ = std::make_unique<ImGuiSession>(*surface_, scale, font_px);
  presenter_ = std::make_unique<Presenter>();
  ui_timer_ = std::make_unique<GlTimer>();

  if (!cfg_.no_cuda_reason.empty()) {
    notice("No CUDA device: " + cfg_.no_cuda_reason + "; CPU only.");
    ui_.renderer.noticed = cfg_.no_cuda_reason;
  }
  if (cfg_.force_no_interop) {
    interop_off_reason_ = "interop disabled by " + cfg_.no_interop_source;
    notice("CUDA-GL interop disabled (" + cfg_.no_interop_source +
           "): CUDA frames go through a host copy (read_rgba8 + pixel buffer upload).");
  } else {
    std::string why;
    interop_ = make_cuda_gl_interop(cfg_.interop_path, &why);
    if (!interop_) interop_off_reason_ = why;
    // external: present() queues the convert; finish_present() (before the draw) waits for it and
    // copies, so the UI is built while the GPU renders.
    if (interop_) interop_->set_deferred_upload(true);
  }

  scene_ = cfg_.scene;
  scene_source_ = o.scene;
  fixed_w_ = cfg_.fixed_w;
  fixed_h_ = cfg_.fixed_h;
  renderer_ = make_renderer(cfg_.renderer, cfg_.settings);
  renderer_->time_stages(true);  // the Timings panel's stages
  renderer_name_ = cfg_.renderer;
  ui_.renderer.settings = cfg_.settings;
  ui_.renderer.count_work = count_asked_ = o.count_work;
  counting_ = o.count_work && renderer_->count_work(true);

  ui_.scene.seed = o.seed;
  ui_.scene.fixed_size = fixed_w_ > 0;
  if (fixed_w_ > 0) ui_.scene.fixed_w = fixed_w_, ui_.scene.fixed_h = fixed_h_;
  const std::vector<SceneInfo>& scenes = scene_registry();
  for (std::size_t i = 0; i < scenes.size(); ++i)
    if (scenes[i].name == o.scene) ui_.scene.builtin = static_cast<int>(i);
  if (ui_.scene.builtin < 0) ui_.scene.path = o.scene;
  ui_.animation.playing = o.play;
  // Re-rendering a paused frame keeps the stage timings live; on the CPU in a window it would
  // only make the UI sluggish, so it starts off there (offscreen it is always on: benchmarks).
  const RendererInfo* info = find_renderer(cfg_.renderer);
  ui_.animation.rerender_when_paused = o.offscreen || (info && info->needs_gpu);
  ui_.animation.speed = o.speed;
  ui_.check.overlay = false;
  if (!o.timeline.empty()) timeline_.start(renderer_->device_stream());
}

// ---------------------------------------------------------------------------------------------
// State changes

bool Viewer::load_scene_source(const std::string& source) {
  try {
    if (const std::string note = scene_source_note(source); !note.empty()) report("scene: note: %s", note.c_str());
    // Refused, the scene kept, where it would not fit the host's memory.
    auto scene = std::make_shared<const Scene>(load_scene_within_memory(source, ui_.scene.seed, "view"));
    scene_ = std::move(scene);
    scene_source_ = source;
    ui_.scene.error.clear();
    ui_.scene.builtin = -1;
    const std::vector<SceneInfo>& scenes = scene_registry();
    for (std::size_t i = 0; i < scenes.size(); ++i)
      if (scenes[i].name == source) ui_.scene.builtin = static_cast<int>(i);
    report("scene: %s (%zu circles, seed %" PRIu64 ")", source.c_str(), scene_->circles.size(), ui_.scene.seed);
    if (loaded_) reload_renderer(scene_->frame);
    return true;
  } catch (const std::exception& e) {
    ui_.scene.error = "cannot load '" + source + "': " + e.what();
    report("error: %s", ui_.scene.error.c_str());
    return false;
  }
}

bool Viewer::request_inspect(int i, int j) {
  if (i < 0 || j < 0 || i >= render_w_ || j >= render_h_) {
    report("inspect: pixel %d,%d is outside the %dx%d frame", i, j, render_w_, render_h_);
    return false;
  }
  InspectRequest q;
  q.scene = scene_;
  q.frame = renderer_->frame();
  q.width = render_w_;
  q.height = render_h_;
  q.i = i;
  q.j = j;
  q.tile_size = ui_.renderer.settings.tile_size > 0 ? ui_.renderer.settings.tile_size : 16;
  q.renderer = renderer_name_;
  q.renderer_pixel = renderer_->read_pixel(i, j);  // the frame on screen, before it moves on
  inspector_.request(std::move(q));
  return true;
}

void Viewer::reload_renderer(std::int64_t frame) {
  renderer_->load(*scene_, render_w_, render_h_);
  renderer_->seek(frame);
  loaded_ = true;
  dirty_ = true;
  fresh_ = true;
  presenter_->drop_overlay();
  ui_.check.overlay = false;
}

void Viewer::switch_renderer(const std::string& name, const RendererSettings& settings) {
  try {
    const RendererSettings resolved = resolve_settings(*find_renderer(name), settings);
    std::unique_ptr<Renderer> r = make_renderer(name, resolved);
    r->time_stages(true);
    const bool counting = ui_.renderer.count_work && r->count_work(true);
    const std::int64_t frame = loaded_ ? renderer_->frame() : scene_->frame;
    if (loaded_) {
      r->load(*scene_, render_w_, render_h_);
      r->seek(frame);
    }
    // The last one's counts stay beside the new one's, to compare (a rung with the rung below).
    RendererUi& u = ui_.renderer;
    u.counted_before = u.counted;
    u.work_before = u.work;
    const Rung* was = rung_of(renderer_name_, u.settings);
    u.before = was ? "rung " + was->name : renderer_name_;
    u.counted = false;
    renderer_ = std::move(r);
    renderer_name_ = name;
    counting_ = counting;
    ui_.renderer.settings = resolved;
    dirty_ = true;
    fresh_ = true;
    last_renderer_timings_.clear();
    ui_.renderer.error.clear();
    const std::string knobs = describe_settings(*find_renderer(name), resolved);
    report("renderer: %s%s%s", name.c_str(), knobs.empty() ? "" : " ", knobs.c_str());
  } catch (const std::exception& e) {
    ui_.renderer.error = "cannot switch to " + name + ": " + e.what();
    report("error: %s", ui_.renderer.error.c_str());
  }
}

void Viewer::resize_render(int w, int h) {
  const std::int64_t frame = loaded_ ? renderer_->frame() : scene_->frame;
  // The registered texture is about to be deleted: unregister it first.
  if (interop_ && interop_->attached()) interop_->detach();
  render_w_ = w;
  render_h_ = h;
  presenter_->ensure_size(w, h);
  reload_renderer(frame);
  report("render size %dx%d", w, h);
}

void Viewer::update_render_size(const PixelRect& area) {
  int w = 0, h = 0;
  render_size_for(area, fixed_w_, fixed_h_, &w, &h);
  if (loaded_ && w == render_w_ && h == render_h_) {
    pending_size_.reset();
    return;
  }
  // A window being dragged bigger sends many sizes: follow once it has settled for 150 ms.
  // Offscreen (and the first frame) there is nothing to wait for.
  const auto now = Clock::now();
  if (!pending_size_ || *pending_size_ != std::make_pair(w, h)) {
    pending_size_ = std::make_pair(w, h);
    pending_since_ = now;
  }
  if (!loaded_ || surface_->offscreen() || fixed_w_ > 0 || ms_between(pending_since_, now) >= 150) {
    pending_size_.reset();
    resize_render(w, h);
  }
}

void Viewer::apply_requests() {
  // Export and check act on the frame on screen, so they come before anything moves on.
  std::vector<Action> actions = std::exchange(ui_.actions, {});
  for (Action a : actions) {
    if (a == Action::ExportPng) export_frame(ui_.export_png.path);
    if (a == Action::Check) start_check();
  }
  for (Action a : actions) {
    switch (a) {
      case Action::TogglePlay: ui_.animation.playing = !ui_.animation.playing; break;
      case Action::Step: ++step_pending_; break;
      case Action::Reload: load_scene_source(scene_source_); break;
      case Action::ToggleDiff:
        ui_.check.overlay = !ui_.check.overlay && presenter_->has_overlay();
        break;
      case Action::ToggleVsync:
        if (surface_->can_vsync()) surface_->set_vsync(!surface_->vsync());
        break;
      case Action::ToggleHelp: ui_.help_open = !ui_.help_open; break;
      case Action::ResetView: view_ = ViewState{}; break;
      case Action::Quit: surface_->request_close(); break;
      case Action::ExportPng:
      case Action::Check: break;
    }
  }
  if (std::exchange(ui_.scene.load_builtin, false)) {
    const std::vector<SceneInfo>& scenes = scene_registry();
    if (ui_.scene.builtin >= 0 && ui_.scene.builtin < static_cast<int>(scenes.size()))
      load_scene_source(scenes[static_cast<std::size_t>(ui_.scene.builtin)].name);
  }
  if (std::exchange(ui_.scene.load_path, false)) {
    if (ui_.scene.path.empty())
      ui_.scene.error = "type a scene file path first (or drop a file on the window)";
    else
      load_scene_source(ui_.scene.path);
  }
  if (std::exchange(ui_.scene.apply_size, false)) {
    fixed_w_ = ui_.scene.fixed_size ? ui_.scene.fixed_w : 0;
    fixed_h_ = ui_.scene.fixed_size ? ui_.scene.fixed_h : 0;
  }
  if (!ui_.renderer.requested.empty())
    switch_renderer(std::exchange(ui_.renderer.requested, {}), std::exchange(ui_.renderer.requested_settings, {}));
  if (ui_.renderer.count_work != count_asked_) {  // the Renderer panel's "count work", from the next frame
    count_asked_ = ui_.renderer.count_work;
    counting_ = renderer_->count_work(count_asked_) && count_asked_;
    ui_.renderer.counted = false;
    dirty_ = true;
  }
  for (const std::string& path : surface_->take_dropped_files()) {
    ui_.scene.path = path;
    load_scene_source(path);
  }
}

// ---------------------------------------------------------------------------------------------
// UI and input

void Viewer::fill_ui() {
  SceneUi& s = ui_.scene;
  s.current = scene_source_;
  s.circle_count = scene_->circles.size();
  s.first_frame = scene_->frame;
  s.animated = scene_->animation != Animation::None;
  s.render_w = render_w_;
  s.render_h = render_h_;
  ui_.renderer.current = renderer_name_;
  ui_.renderer.plan = loaded_ ? renderer_->plan() : std::string();
  // The shown frame's counts (work() waits for the frame; only while counting is on).
  if (counting_ && loaded_) ui_.renderer.counted = renderer_->work(&ui_.renderer.work);
  ui_.animation.frame = loaded_ ? renderer_->frame() : scene_->frame;
  ui_.animation.displayed_frames = displayed_ + 1;  // this one included
  ui_.view.vsync = surface_->vsync();
  ui_.view.can_vsync = surface_->can_vsync();
  ui_.view.zoom = view_.zoom;
  ui_.view.default_view = view_.is_default();
  ui_.timings.frame_index = displayed_;
}

void Viewer::handle_input(const PixelRect& area, int fb_h, float pixel_scale) {
  ImGuiIO& io = ImGui::GetIO();
  // Every key press since the last frame, from the window's events (a quick tap between two slow
  // frames is not lost); none while a text field has the keyboard.
  const std::vector<GlSurface::KeyPress> presses = surface_->take_key_presses();
  if (!io.WantTextInput) {
    for (const GlSurface::KeyPress& k : presses)
      for (const Shortcut& s : shortcuts()) {
        const bool repeat_ok = s.action == Action::Step;  // hold Right to keep stepping
        if ((k.key == s.key || (s.alt_key >= 0 && k.key == s.alt_key)) && (!k.repeat || repeat_ok))
          ui_.actions.push_back(s.action);
      }
  }
  if (!ImGui::IsMousePosValid()) return;
  const double mx = io.MousePos.x * pixel_scale, my = fb_h - io.MousePos.y * pixel_scale;
  const bool over_area = mx >= area.x && mx < area.x + area.w && my >= area.y && my < area.y + area.h;
  if (over_area && !io.WantCaptureMouse) {
    if (io.MouseWheel != 0.f)
      zoom_about(&view_, area, presenter_->width(), presenter_->height(), mx, my, std::pow(1.15, io.MouseWheel));
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
      // The drag starts where the button went down: the mouse's move before the click (however
      // large, in a slow frame) is not part of it.
      dragging_ = true;
      drag_last_ = io.MouseClickedPos[ImGuiMouseButton_Left];
    }
  }
  // A click that did not drag inspects the pixel under it; Shift held inspects while hovering.
  const Placement place = place_frame(area, render_w_, render_h_, view_);
  const int ti = static_cast<int>(std::floor((mx - place.origin_x) / place.scale));
  const int tj = static_cast<int>(std::floor((my - place.origin_y) / place.scale));
  const bool on_frame = over_area && ti >= 0 && tj >= 0 && ti < render_w_ && tj < render_h_;
  if (dragging_ && ImGui::IsMouseReleased(ImGuiMouseButton_Left) &&
      io.MouseDragMaxDistanceSqr[ImGuiMouseButton_Left] < 9.f && on_frame)
    request_inspect(ti, tj);
  if (io.KeyShift && on_frame && !io.WantCaptureMouse && (ti != hover_i_ || tj != hover_j_)) {
    hover_i_ = ti, hover_j_ = tj;
    request_inspect(ti, tj);
  }
  if (!ImGui::IsMouseDown(ImGuiMouseButton_Left)) dragging_ = false;
  if (dragging_) {
    view_.pan_x += (io.MousePos.x - drag_last_.x) * pixel_scale;
    view_.pan_y -= (io.MousePos.y - drag_last_.y) * pixel_scale;
    drag_last_ = io.MousePos;
  }
}

ToolFrame Viewer::tool_frame(bool last_frame) {
  return ToolFrame{*renderer_,
                   renderer_name_,
                   *scene_,
                   scene_source_,
                   render_w_,
                   render_h_,
                   last_frame,
                   displayed_,
                   cfg_.opt,
                   cfg_.no_cuda_reason,
                   last_renderer_timings_,
                   *presenter_,
                   [this](const std::string& name, double ms) { record(name, ms); },
                   [this] { check_failed_ = true; }};
}

void Viewer::run_tools(bool last_frame) {
  const ToolFrame f = tool_frame(last_frame);
  const ViewerOptions& o = cfg_.opt;
  frame_stats_.update(f);
  kernels_.update(f);
  counters_.update(f);
  transpose_.update(f);
  heat_.update(f, transpose_.shown());
  if (ui_.frame_stats.transpose_check_requested || (last_frame && !o.transpose_view.empty())) {
    transpose_.check(f);
    if (!ui_.frame_stats.transpose_check_ok && !o.transpose_view.empty()) check_failed_ = true;
  }
  if (ui_.frame_stats.check_requested || (last_frame && !o.frame_stats.empty())) {
    frame_stats_.check(f);
    if (!ui_.frame_stats.check_ok && !o.frame_stats.empty()) check_failed_ = true;
  }
}

// ---------------------------------------------------------------------------------------------

int Viewer::run() {
  setup();
  const ViewerOptions& o = cfg_.opt;
  auto last = Clock::now();
  while (!surface_->should_close()) {
    const auto t0 = Clock::now();
    const double dt = std::chrono::duration<double>(t0 - last).count();
    last = t0;
    surface_->poll_events();
    int fb_w = 0, fb_h = 0;
    surface_->framebuffer_size(&fb_w, &fb_h);
    if (fb_w <= 0 || fb_h <= 0) {  // minimised: nothing to draw
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
      continue;
    }
    const float pixel_scale = surface_->pixel_scale();
    const PixelRect area = scene_area(fb_w, fb_h, pixel_scale, ui_.scale);
    const bool last_frame = o.quit_after > 0 && displayed_ + 1 >= o.quit_after;

    // 1. What the previous frame's UI, keys and drops asked for; the render size.
    apply_requests();
    update_render_size(area);
    timeline_.host("host: events", t0, Clock::now());  // the window's events, the last frame's requests

    // 2. Advance and render.
    int advance = step_pending_;
    step_pending_ = 0;
    if (ui_.animation.playing && !fresh_) advance += ui_.animation.speed;
    if (advance > 0) {
      const auto a0 = Clock::now();
      for (int i = 0; i < advance; ++i) renderer_->advance();
      timeline_.host("host: advance", a0, Clock::now());
    }
    if (advance > 0 || dirty_ || ui_.animation.playing || ui_.animation.rerender_when_paused) {
      wait_for_gl();  // GL's last frame done: the render's stages run alone on the GPU
      const auto m0 = Clock::now();
      acquire_interop();  // the wait for GL to release the texture, before the render's kernels
      const auto r0 = Clock::now();
      if (interop_ && renderer_->device_pixels()) timeline_.host("host: interop acquire", m0, r0);
      renderer_->render();
      // The host's part of the render: all of a CPU renderer's; a GPU renderer's launches.
      const auto r1 = Clock::now();
      timeline_.host(renderer_->device_pixels() ? "host: render (launches)" : "host: render", r0, r1);
      frame_to_texture();
      timeline_.host("host: to texture", r1, Clock::now());  // the present path's host side
      rendered_ = true;
      dirty_ = false;
    }
    fresh_ = false;

    // 3. After the last frame (--quit-after): check, export (before drawing, so an overlay shows).
    const auto tools0 = Clock::now();
    if (last_frame && o.check) {
      start_check();
      poll_check(true);
      ui_.check.overlay = o.diff_overlay && presenter_->has_overlay();
    }
    // Asked for on the command line: a write that failed fails the run (exit 1), as in `render`.
    if (last_frame && !o.export_png.empty() && !export_frame(o.export_png)) check_failed_ = true;
    poll_check(false);

    // The inspector: --inspect once the first frame is drawn; its answer when ready (waited for
    // on the last frame, so a screenshot shows it).
    if (!o.inspect.empty() && !inspect_sent_) {
      inspect_sent_ = true;
      if (!request_inspect(cfg_.inspect_i, cfg_.inspect_j)) check_failed_ = true;  // --inspect's pixel: exit 1
    }
    if (auto r = inspector_.poll(last_frame)) {
      report("inspect: %s", describe_inspection(*r).c_str());
      ui_.inspector.result = std::move(*r);
      ui_.inspector.reveal = 2;
    }
    ui_.inspector.busy = inspector_.busy();
    run_tools(last_frame);

    // 4. The UI (it shows the frame just rendered); its requests apply next frame.
    const auto ui0 = Clock::now();
    timeline_.host("host: tools", tools0, ui0);  // check, export, inspector, the live tools
    fill_ui();
    surface_->imgui_new_frame(dt);
    ImGui_ImplOpenGL3_NewFrame();
    ImGui::NewFrame();
    handle_input(area, fb_h, pixel_scale);
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    panel_overflow_ = draw_panel_column(ui_, display.x, display.y);
    ++panel_frames_;
    help_window(&ui_.help_open, display.x, display.y, ui_.scale);
    ImGui::Render();
    const auto ui1 = Clock::now();
    record("host: ui", ms_between(ui0, ui1));  // building the panels (while the GPU renders)
    timeline_.host("host: ui", ui0, ui1);

    // 5. Draw: once the frame's CUDA work is done (GL's work, the clear included, never runs inside
    // it), clear, the frame in the scene area, the UI over it all.
    wait_for_cuda();
    finish_present();
    surface_->bind_framebuffer();
    glViewport(0, 0, fb_w, fb_h);
    glClearColor(Presenter::kLetterbox[0], Presenter::kLetterbox[1], Presenter::kLetterbox[2], 1.f);
    glClear(GL_COLOR_BUFFER_BIT);
    GL_CHECK("clear");
    const OverlayMode overlay = transpose_.shown() ? OverlayMode::Replace
                                : heat_.shown()       ? (ui_.heat.blend ? OverlayMode::Blend : OverlayMode::Replace)
                                : !ui_.check.overlay ? OverlayMode::None
                                : ui_.check.blend  ? OverlayMode::Blend
                                                   : OverlayMode::Replace;
    presenter_->draw(area, place_frame(area, render_w_, render_h_, view_), overlay,
                     heat_.shown() ? ui_.heat.alpha : ui_.check.blend_alpha);
    ui_timer_->begin();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    ui_timer_->end();
    GL_CHECK("ImGui draw");
    fence_gl();
    if (last_frame && !o.screenshot.empty()) take_screenshot(o.screenshot, fb_w, fb_h);
    const auto swap0 = Clock::now();
    timeline_.host("host: draw", ui1, swap0);  // GL's calls (the wait for CUDA and the present's inside)
    surface_->present();
    // The swap: vsync in a window; offscreen, the wait for the frame two before this one.
    const auto swap1 = Clock::now();
    record("wait: swap (host)", ms_between(swap0, swap1));
    timeline_.host("wait: swap (host)", swap0, swap1);

    // 6. Timings (never blocking) and the frame time.
    collect_timings();
    const auto t1 = Clock::now();
    timeline_.host("host: timings", swap1, t1);
    timeline_.host("frame", t0, t1);
    const double frame_ms = ms_between(t0, t1);
    ui_.timings.frame_ms.push(static_cast<float>(frame_ms));
    record("frame", frame_ms);
    ++displayed_;
    if (o.quit_after > 0 && displayed_ >= o.quit_after) surface_->request_close();
  }
  print_summary();
  if (!o.timeline.empty()) {
    collect_timings();  // the spans that finished since the last frame
    try {
      timeline_.write(o.timeline, surface_->description() + ", " + ui_.view.gl + ", scene " + scene_source_ +
                                      ", renderer " + renderer_name_ + " at " + std::to_string(render_w_) + "x" +
                                      std::to_string(render_h_) + ", present " + present_path_);
      report("timeline: %s", o.timeline.c_str());
    } catch (const std::exception& e) {
      report("error: %s", e.what());
      check_failed_ = true;
    }
  }
  return check_failed_ ? 1 : 0;
}

int run_viewer(const ViewerOptions& opt) {
  ViewerConfig cfg = resolve_viewer_options(opt);
  try {
    Viewer viewer(std::move(cfg));
    return viewer.run();
  } catch (const NoDisplayError& e) {
    std::fprintf(stderr,
                 "circles view: cannot open a window: %s\n"
                 "  No display? Render images with `circles render SCENE -o out.png`, or run the viewer\n"
                 "  without a window: `circles view --offscreen SCENE --quit-after N --screenshot out.png`.\n",
                 e.what());
    return 1;
  }
}

}  // namespace circles
