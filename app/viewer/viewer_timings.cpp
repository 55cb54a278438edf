// The viewer's timings: each stage's samples (the Timings panel and the summary), collected from
// the renderer, the interop and GL's timers without blocking, the timeline's intervals, and the
// summary printed when the viewer exits.
#include "app/viewer/viewer_impl.h"

#include <glad/gl.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "app/gl/gl_util.h"
#include "app/gl/interop.h"
#include "render/stats.h"

namespace circles {

using viewer_detail::interop_present_path;

void Viewer::record(const std::string& name, double ms) {
  if (name != "frame") ui_.timings.add(name, static_cast<float>(ms));  // the frame has its own plot
  auto it = std::find_if(samples_.begin(), samples_.end(), [&](const auto& s) { return s.first == name; });
  if (it == samples_.end()) {
    const int rank = timing_rank(name);
    it = std::find_if(samples_.begin(), samples_.end(), [&](const auto& s) { return timing_rank(s.first) > rank; });
    it = samples_.insert(it, {name, std::vector<double>{}});
  }
  it->second.push_back(ms);
}

namespace {
// The Timings panel's name of an interop stage: the waits as waits (GPU: the map's wait for GL to
// release the texture; host: the external path's fence and its wait for the render), the rest
// under "interop:".
std::string interop_stage_name(const std::string& stage) {
  if (stage == "map") return "wait: interop map (GPU, for GL)";
  if (stage == "fence") return "wait: interop fence (host, for GL)";
  if (stage == "wait") return "wait: render done (host)";
  if (stage == "upload") return "gl: upload (external)";
  return "interop: " + stage;
}

bool same_timings(const std::vector<StageTiming>& a, const std::vector<StageTiming>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].stage != b[i].stage || a[i].ms != b[i].ms) return false;
  return true;
}
}  // namespace

void Viewer::collect_timings() {
  // Non-blocking reads: each returns the newest finished frame's times, possibly the same as
  // last time (then it is not counted again).
  std::vector<StageTiming> r = renderer_->timings(false);
  if (!r.empty() && !same_timings(r, last_renderer_timings_)) {
    for (const StageTiming& t : r) record("renderer: " + t.stage, t.ms);
    last_renderer_timings_ = std::move(r);
  }
  if (interop_ && present_path_ == interop_present_path(interop_->path())) {
    std::vector<StageTiming> i = interop_->timings();
    if (!i.empty() && !same_timings(i, last_interop_timings_)) {
      for (const StageTiming& t : i) record(interop_stage_name(t.stage), t.ms);
      last_interop_timings_ = std::move(i);
    }
  }
  for (double ms : presenter_->upload_timer().take()) record("gl: pbo upload", ms);
  for (double ms : presenter_->timer().take()) record("gl: present", ms);
  for (double ms : ui_timer_->take()) record("gl: ui", ms);
  if (timeline_.started()) {  // the same work as intervals on one clock (--timeline)
    if (const void* origin = timeline_.origin_event()) {
      timeline_.cuda(renderer_->take_spans(origin), [](const std::string& s) { return "renderer: " + s; });
      if (interop_) timeline_.cuda(interop_->take_spans(origin), interop_stage_name);
    }
    if (interop_) timeline_.gl("gl: upload (external)", interop_->take_gl_spans());
    if (interop_)
      for (const HostSpan& h : interop_->take_host_spans()) timeline_.host(interop_stage_name(h.stage), h.t0, h.t1);
    timeline_.gl("gl: pbo upload", presenter_->upload_timer().take_spans());
    timeline_.gl("gl: present", presenter_->timer().take_spans());
    timeline_.gl("gl: ui", ui_timer_->take_spans());
  }
}

void Viewer::print_summary() const {
  std::printf("timing summary: %" PRId64 " frames, %s, scene %s, renderer %s at %dx%d, present %s\n", displayed_,
              surface_->description().c_str(), scene_source_.c_str(), renderer_name_.c_str(), render_w_, render_h_,
              present_path_.c_str());
  std::printf("  %-28s %10s %8s\n", "stage", "median ms", "samples");
  double frame_median = 0;
  for (const auto& [name, values] : samples_) {
    const double m = median(values);
    if (name == "frame") frame_median = m;
    std::printf("  %-28s %10.3f %8zu\n", name.c_str(), m, values.size());
  }
  std::printf("  %-28s %10.1f\n", "FPS (1000 / median frame)", frame_median > 0 ? 1000.0 / frame_median : 0.0);
  if (panel_frames_ < 2)  // ImGui measures the column's contents in one frame and sizes it in the next
    std::printf("panels: not measured (the column's height is known from its second frame: --quit-after 2 or more)\n");
  else if (panel_overflow_ > 0)
    std::printf("panels: %.0f pixels below the window's bottom (the column scrolls)\n", panel_overflow_);
  else
    std::printf("panels: everything fits without scrolling\n");
  if (panel_frames_ >= 2) {
    if (ui_.text_overflow > 0.5f)
      std::printf("panels: text cut: %.0f pixels past the column's edge (%s)\n", static_cast<double>(ui_.text_overflow),
                  ui_.text_overflow_where.c_str());
    else
      std::printf("panels: no text cut\n");
  }
  std::fflush(stdout);
}

}  // namespace circles
