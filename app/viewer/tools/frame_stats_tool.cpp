// The Frame stats panel's tools (frame_stats_tool.h).
#include "app/viewer/tools/frame_stats_tool.h"

#include <cstdio>
#include <string>

#include "app/common/lab_registry.h"
#include "app/viewer/viewer_log.h"

namespace circles {

using viewer_detail::report;

void FrameStatsTool::update(const ToolFrame& f) {
  FrameStatsUi& s = ui_.frame_stats;
  const std::string why = lab_unavailable_reason();
  s.unavailable = !why.empty()                           ? why
                  : f.renderer.device_pixels() == nullptr ? "the frame is in host memory: pick a CUDA renderer"
                  : s.variants.empty()                    ? "no float reduction in the lab registry"
                                                          : "";
  if (!s.unavailable.empty()) return;
  if (auto r = reducer_.poll()) {
    s.last = r;
    f.record("lab: " + variant_, r->ms);
  }
  if (!s.every_frame) return;
  const lab::Variant& v = *find_lab_variant(s.variants[static_cast<std::size_t>(s.selected)]);
  if (reducer_.enqueue(v.launch, v.default_param(), f.renderer.device_pixels(), f.width, f.height,
                       f.scene.background, f.renderer.device_stream()))
    variant_ = v.name;
}

void FrameStatsTool::check(const ToolFrame& f) {
  FrameStatsUi& s = ui_.frame_stats;
  s.check_requested = false;
  if (!s.unavailable.empty()) {
    s.check = "cannot check: " + s.unavailable;
    s.check_ok = false;
    report("frame stats: %s", s.check.c_str());
    return;
  }
  reducer_.poll(true);  // the request in flight (an older frame) is done with
  const lab::Variant& v = *find_lab_variant(s.variants[static_cast<std::size_t>(s.selected)]);
  reducer_.enqueue(v.launch, v.default_param(), f.renderer.device_pixels(), f.width, f.height, f.scene.background,
                   f.renderer.device_stream());
  const std::optional<lab::FrameStats> gpu = reducer_.poll(true);
  Image img;
  f.renderer.read_image(&img);
  const lab::FrameStats cpu = lab::frame_stats_cpu(img, f.scene.background);
  s.last = gpu;
  s.check_ok = gpu && lab::frame_stats_agree(*gpu, cpu);
  char buf[400];
  if (gpu)
    std::snprintf(buf, sizeof buf,
                  "%s (%s): mean %.5f %.5f %.5f %.4f, coverage %.0f of %.0f px, %.3f ms; CPU: mean %.5f %.5f %.5f "
                  "%.4f, coverage %.0f: %s",
                  v.name.c_str(), s.check_ok ? "match" : "DIFFER", gpu->mean[0], gpu->mean[1], gpu->mean[2],
                  gpu->mean[3], gpu->touched, gpu->pixels, gpu->ms, cpu.mean[0], cpu.mean[1], cpu.mean[2], cpu.mean[3],
                  cpu.touched, s.check_ok ? "match" : "DIFFER");
  else
    std::snprintf(buf, sizeof buf, "%s: no result", v.name.c_str());
  s.check = buf;
  report("frame stats: %s", buf);
}

void TransposeTool::update(const ToolFrame& f) {
  FrameStatsUi& s = ui_.frame_stats;
  s.transpose_unavailable =
      !s.unavailable.empty() ? s.unavailable
      : s.transposes.empty() ? "no device transpose in the lab registry"
      : f.width != f.height
          ? "the frame is " + std::to_string(f.width) + "x" + std::to_string(f.height) +
                ": its mirror image would not fit the frame's texture (a square render size shows it)"
          : "";
  const bool on = s.transpose_view && s.transpose_unavailable.empty();
  if (!on) {
    if (shown_) f.presenter.drop_overlay();
    shown_ = false;
    return;
  }
  ui_.check.overlay = false;  // the overlay now holds the mirror image, not a difference
  if (auto t = transposer_.poll(f.last_frame)) {
    if (t->width == f.width && t->height == f.height) {
      f.presenter.upload_overlay(t->rgba8.data(), t->width, t->height);
      shown_ = true;
    }
    s.transpose_ms = static_cast<float>(t->ms);
    f.record("lab: " + variant_, t->ms);
  }
  if (!f.last_frame) enqueue(f);
  if (f.last_frame && !shown_) {  // --quit-after: the last frame shows its mirror image
    enqueue(f);
    update(f);
  }
}

bool TransposeTool::enqueue(const ToolFrame& f) {
  const FrameStatsUi& s = ui_.frame_stats;
  const lab::Variant& v = *find_lab_variant(s.transposes[static_cast<std::size_t>(s.transpose_selected)]);
  if (!transposer_.enqueue(v.launch, v.default_param(), f.renderer.device_pixels(), f.width, f.height,
                           f.renderer.device_stream()))
    return false;
  variant_ = v.name;
  return true;
}

void TransposeTool::check(const ToolFrame& f) {
  FrameStatsUi& s = ui_.frame_stats;
  s.transpose_check_requested = false;
  s.transpose_check_ok = false;
  if (!s.transpose_unavailable.empty()) {
    s.transpose_check = "cannot check: " + s.transpose_unavailable;
    report("transpose view: %s", s.transpose_check.c_str());
    return;
  }
  transposer_.poll(true);  // the request in flight (an older frame) is done with
  enqueue(f);
  const lab::Variant& v = *find_lab_variant(variant_);
  Image gpu, frame;
  transposer_.read_image(&gpu);
  f.renderer.read_image(&frame);
  const Image cpu = lab::transpose_cpu(frame);
  std::size_t differ = 0;
  for (std::size_t k = 0; k < cpu.pixels.size() && k < gpu.pixels.size(); ++k) {
    const Float4& a = cpu.pixels[k];
    const Float4& b = gpu.pixels[k];
    differ += (a.x != b.x || a.y != b.y || a.z != b.z || a.w != b.w) ? 1 : 0;
  }
  s.transpose_check_ok = gpu.width == cpu.width && gpu.height == cpu.height && differ == 0;
  char buf[300];
  std::snprintf(buf, sizeof buf, "%s: %dx%d mirror image %s the CPU's (%zu of %zu pixels differ)", v.name.c_str(),
                gpu.width, gpu.height, s.transpose_check_ok ? "equals" : "DIFFERS from", differ, cpu.pixels.size());
  s.transpose_check = buf;
  report("transpose view: %s", buf);
}

}  // namespace circles
