// What the viewer's measurement panels run over the frame on screen, between frames: the lab's
// reductions (frame statistics) and transposes (the transpose view) enqueued behind the render,
// the heat map, the Kernels panel's live lab runs and the hardware counters. Each never waits for
// the GPU on the way, except the checks the user (or --frame-stats, --transpose-view) asks for.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "app/viewer/viewer_impl.h"
#include "kernels/cuda/counters.h"

namespace circles {

using viewer_detail::Clock;
using viewer_detail::ms_between;
using viewer_detail::report;

void Viewer::run_frame_stats() {
  FrameStatsUi& f = ui_.frame_stats;
  const std::string why = lab_unavailable_reason();
  f.unavailable = !why.empty()                      ? why
                  : renderer_->device_pixels() == nullptr ? "the frame is in host memory: pick a CUDA renderer"
                  : f.variants.empty()              ? "no float reduction in the lab registry"
                                                    : "";
  if (!f.unavailable.empty()) return;
  if (auto s = frame_reducer_.poll()) {
    f.last = s;
    record("lab: " + frame_stats_variant_, s->ms);
  }
  if (!f.every_frame) return;
  const lab::Variant& v = *find_lab_variant(f.variants[static_cast<std::size_t>(f.selected)]);
  if (frame_reducer_.enqueue(v.launch, v.default_param(), renderer_->device_pixels(), render_w_,
                             render_h_, scene_->background, renderer_->device_stream()))
    frame_stats_variant_ = v.name;
}

void Viewer::run_transpose_view(bool last_frame) {
  FrameStatsUi& f = ui_.frame_stats;
  f.transpose_unavailable =
      !f.unavailable.empty() ? f.unavailable
      : f.transposes.empty() ? "no device transpose in the lab registry"
      : render_w_ != render_h_
          ? "the frame is " + std::to_string(render_w_) + "x" + std::to_string(render_h_) +
                ": its mirror image would not fit the frame's texture (a square render size shows it)"
          : "";
  const bool on = f.transpose_view && f.transpose_unavailable.empty();
  if (!on) {
    if (transpose_shown_) presenter_->drop_overlay();
    transpose_shown_ = false;
    return;
  }
  ui_.check.overlay = false;  // the overlay now holds the mirror image, not a difference
  if (auto t = transposer_.poll(last_frame)) {
    if (t->width == render_w_ && t->height == render_h_) {
      presenter_->upload_overlay(t->rgba8.data(), t->width, t->height);
      transpose_shown_ = true;
    }
    f.transpose_ms = static_cast<float>(t->ms);
    record("lab: " + transpose_variant_, t->ms);
  }
  if (!last_frame) enqueue_transpose();
  if (last_frame && !transpose_shown_) {  // --quit-after: the last frame shows its mirror image
    enqueue_transpose();
    run_transpose_view(true);
  }
}

bool Viewer::enqueue_transpose() {
  const FrameStatsUi& f = ui_.frame_stats;
  const lab::Variant& v = *find_lab_variant(f.transposes[static_cast<std::size_t>(f.transpose_selected)]);
  if (!transposer_.enqueue(v.launch, v.default_param(), renderer_->device_pixels(), render_w_, render_h_,
                           renderer_->device_stream()))
    return false;
  transpose_variant_ = v.name;
  return true;
}

void Viewer::check_transpose_view() {
  FrameStatsUi& f = ui_.frame_stats;
  f.transpose_check_requested = false;
  f.transpose_check_ok = false;
  if (!f.transpose_unavailable.empty()) {
    f.transpose_check = "cannot check: " + f.transpose_unavailable;
    report("transpose view: %s", f.transpose_check.c_str());
    return;
  }
  transposer_.poll(true);  // the request in flight (an older frame) is done with
  enqueue_transpose();
  const lab::Variant& v = *find_lab_variant(transpose_variant_);
  Image gpu, frame;
  transposer_.read_image(&gpu);
  renderer_->read_image(&frame);
  const Image cpu = lab::transpose_cpu(frame);
  std::size_t differ = 0;
  for (std::size_t k = 0; k < cpu.pixels.size() && k < gpu.pixels.size(); ++k) {
    const Float4& a = cpu.pixels[k];
    const Float4& b = gpu.pixels[k];
    differ += (a.x != b.x || a.y != b.y || a.z != b.z || a.w != b.w) ? 1 : 0;
  }
  f.transpose_check_ok = gpu.width == cpu.width && gpu.height == cpu.height && differ == 0;
  char buf[300];
  std::snprintf(buf, sizeof buf, "%s: %dx%d mirror image %s the CPU's (%zu of %zu pixels differ)", v.name.c_str(),
                gpu.width, gpu.height, f.transpose_check_ok ? "equals" : "DIFFERS from", differ, cpu.pixels.size());
  f.transpose_check = buf;
  report("transpose view: %s", buf);
}

void Viewer::run_heat(bool last_frame) {
  HeatUi& h = ui_.heat;
  const bool cuda = renderer_->device_pixels() != nullptr;
  h.unavailable = !cuda ? (cfg_.no_cuda_reason.empty() ? "the frame is drawn on the CPU: pick a CUDA renderer"
                                                       : "the frame is drawn on the CPU: no CUDA device here (" +
                                                             cfg_.no_cuda_reason + ")")
                  : transpose_shown_ ? "the transpose view holds the overlay: turn it off first"
                                     : "";
  const bool want_time = cuda && h.mode == 3;
  if (want_time != timing_tiles_) timing_tiles_ = renderer_->time_tiles(want_time) && want_time;
  const bool log = last_frame && !cfg_.opt.heat.empty();
  if (log && !h.unavailable.empty()) {
    report("heat: unavailable: %s", h.unavailable.c_str());
    check_failed_ = true;  // asked for on the command line and not shown
  }
  if (h.mode == 0 || !h.unavailable.empty()) {
    if (heat_shown_) presenter_->drop_overlay();
    heat_shown_ = false;
    heat_key_.clear();
    h.what.clear();
    return;
  }
  ui_.check.overlay = false;
  // Counts change only with the frame; the cycles are measured again on every rendered frame.
  const std::string key = std::to_string(h.mode) + "/" + std::to_string(renderer_->frame()) + "/" +
                          std::to_string(render_w_) + "x" + std::to_string(render_h_) + "/" + renderer_name_;
  if (h.mode != 3 && key == heat_key_ && heat_shown_ && !log) return;
  std::vector<float> values(static_cast<std::size_t>(render_w_) * render_h_);
  double sum = 0, lo = 0, hi = 0;
  std::size_t count = 0;
  auto spread = [&](const std::vector<double>& per_tile, int tile, int tx) {
    for (int j = 0; j < render_h_; ++j)
      for (int i = 0; i < render_w_; ++i)
        values[static_cast<std::size_t>(j) * render_w_ + i] =
            static_cast<float>(per_tile[static_cast<std::size_t>(j / tile) * tx + i / tile]);
  };
  auto stats = [&](const auto& v) {
    lo = v.empty() ? 0 : static_cast<double>(*std::min_element(v.begin(), v.end()));
    hi = v.empty() ? 0 : static_cast<double>(*std::max_element(v.begin(), v.end()));
    for (auto x : v) sum += static_cast<double>(x);
    count = v.size();
  };
  if (h.mode == 3) {
    int tile = 0, tx = 0, ty = 0;
    const std::vector<double> cycles = renderer_->tile_cycles(&tile, &tx, &ty);
    if (cycles.empty()) return;  // the next rendered frame records them
    stats(cycles);
    spread(cycles, tile, tx);
    char what[96];
    std::snprintf(what, sizeof what, "shade cycles per %dx%d tile (clock64, one block each)", tile, tile);
    h.what = what;
    h.unit = "cycles";
  } else {
    Renderer::HeatCounts counts;
    renderer_->heat_counts(16, &counts);
    if (h.mode == 1) {
      const std::vector<double> per_tile(counts.circles_per_tile.begin(), counts.circles_per_tile.end());
      stats(per_tile);
      spread(per_tile, counts.tile, counts.tiles_x);
      h.what = "circles per 16x16 tile (conservative box test)";
      h.unit = "circles";
    } else {
      stats(counts.blends_per_pixel);
      for (std::size_t k = 0; k < values.size(); ++k) values[k] = static_cast<float>(counts.blends_per_pixel[k]);
      h.what = "blends per pixel (circles covering it)";
      h.unit = "blends";
    }
  }
  h.lo = static_cast<float>(lo);
  h.hi = static_cast<float>(hi);
  h.mean = count ? static_cast<float>(sum / count) : 0.f;
  h.imbalance = h.mean > 0 ? h.hi / h.mean : 0.f;
  const std::vector<std::uint8_t> texels = heat_texels(values, render_w_, render_h_, h.lo, h.hi);
  presenter_->upload_overlay(texels.data(), render_w_, render_h_);
  heat_shown_ = true;
  heat_key_ = key;
  if (log)
    report("heat: %s: min %.6g, max %.6g, mean %.6g %s, max/mean %.2f", h.what.c_str(), lo, hi,
           static_cast<double>(h.mean), h.unit.c_str(), static_cast<double>(h.imbalance));
}

void Viewer::run_kernels(bool last_frame) {
  KernelsUi& k = ui_.kernels;
  // Timed runs go behind the frame on the renderer's stream (CPU renderers: the lab's own).
  auto stage = [](void* self, const std::string& name, double ms) { static_cast<Viewer*>(self)->record(name, ms); };
  const bool active = k.every_frame || k.run_once || !k.status.empty();
  const auto t0 = Clock::now();
  live_lab_.update(k, renderer_->device_stream(), stage, this);
  // The render thread's own cost of the lab (enqueue and event polls; it never waits for the GPU):
  // a stage of its own, so the summary shows that the lab adds no host wait to the frame.
  if (active) record("host: kernels panel", ms_between(t0, Clock::now()));
  if (!last_frame || !cfg_.kernels) return;
  live_lab_.finish(k, stage, this);
  if (!k.unavailable.empty()) {
    report("kernels: unavailable: %s", k.unavailable.c_str());
    check_failed_ = true;  // asked for on the command line and not done
    return;
  }
  report("kernels: %s, input %s, copy %.0f GB/s%s%s", k.tasks.empty() ? "" : k.tasks[static_cast<std::size_t>(k.task)].c_str(),
         k.shape.c_str(), static_cast<double>(k.copy_gbps), k.error.empty() ? "" : "; error: ", k.error.c_str());
  for (const KernelRow& r : k.rows) {
    if (!r.ticked) continue;
    const std::string knob = r.params.empty() ? "" : " " + r.param_name + " " + std::to_string(r.param());
    report("kernels: %s%s %s, %d runs, median %.4f ms, %.1f GB/s", r.name.c_str(), knob.c_str(),
           r.check.empty() ? "not run" : r.check.c_str(), r.ms.count(), static_cast<double>(r.median_ms),
           static_cast<double>(r.gbps));
    if (r.check != "ok") check_failed_ = true;
  }
  if (!k.error.empty()) check_failed_ = true;
}

namespace {
std::string counter_text(const CounterValue& v) {
  char buf[64];
  if (v.unit == "bytes")
    std::snprintf(buf, sizeof buf, "%.1f MB", v.value / 1e6);
  else if (v.unit == "%")
    std::snprintf(buf, sizeof buf, "%.1f %%", v.value);
  else if (v.unit == "ratio")
    std::snprintf(buf, sizeof buf, "%.2f", v.value);
  else
    std::snprintf(buf, sizeof buf, "%.0f", v.value);
  return buf;
}
}  // namespace

void Viewer::run_counters(bool last_frame) {
  CountersUi& c = ui_.counters;
  const KernelsUi& k = ui_.kernels;
  // The targets: the frame (a CUDA renderer's), then every Kernels row that runs live and is ticked.
  const std::string keep = c.targets.empty() ? "" : c.targets[static_cast<std::size_t>(
                                                       std::clamp(c.selected, 0, int(c.targets.size()) - 1))];
  // rows: -1 the frame, -2 - k stage k of the renderer's last timings, else a Kernels row.
  std::vector<int> rows;
  std::vector<std::string> stages;
  c.targets.clear();
  if (renderer_->device_pixels()) {
    c.targets.push_back("frame: " + renderer_name_);
    rows.push_back(-1);
    for (const StageTiming& t : last_renderer_timings_)
      if (t.stage != "animate") {  // advance()'s, not render()'s
        c.targets.push_back("stage: " + renderer_name_ + " " + t.stage);
        rows.push_back(-2 - static_cast<int>(stages.size()));
        stages.push_back(t.stage);
      }
  }
  for (std::size_t i = 0; i < k.rows.size(); ++i)
    if (k.rows[i].ticked && k.rows[i].unavailable.empty() && k.unavailable.empty()) {
      c.targets.push_back("lab: " + k.rows[i].name);
      rows.push_back(static_cast<int>(i));
    }
  c.selected = 0;
  for (std::size_t i = 0; i < c.targets.size(); ++i)
    if (c.targets[i] == keep) c.selected = static_cast<int>(i);
  const std::string& want = cfg_.opt.counters;
  // --counters TARGET: two frames before the last (so the column can scroll to the figures before
  // a screenshot), or on the last when there are fewer frames.
  const std::int64_t quit = cfg_.opt.quit_after;
  const bool due = !want.empty() && !counters_done_ && (last_frame || (quit >= 3 && displayed_ + 3 >= quit));
  if (due) {
    counters_done_ = true;
    c.reveal = 2;
    c.measure = true;
    const std::string name = want == "frame"                ? "frame: " + renderer_name_
                             : want.rfind("stage:", 0) == 0 ? "stage: " + renderer_name_ + " " + want.substr(6)
                                                             : "lab: " + want;
    const auto it = std::find(c.targets.begin(), c.targets.end(), name);
    if (it == c.targets.end()) {
      c.error = "--counters " + want + ": not a target here (" +
                (want == "frame" || want.rfind("stage:", 0) == 0
                     ? std::string(renderer_->device_pixels() ? "no such stage" : "the frame is drawn on the CPU")
                 : !k.unavailable.empty() ? "the lab cannot run: " + k.unavailable
                                          : std::string("tick it with --kernels")) +
                ")";
      report("counters: %s", c.error.c_str());
      check_failed_ = true;
      return;
    }
    c.selected = static_cast<int>(it - c.targets.begin());
  }
  if (c.unavailable.empty()) c.unavailable = gpu_unavailable_reason();
  if (!c.measure) return;
  c.measure = false;
  c.values.clear();
  c.error.clear();
#if CIRCLES_HAVE_CUDA
  if (c.unavailable.empty()) c.unavailable = counters_unavailable_reason();
#endif
  if (!c.unavailable.empty() || c.targets.empty()) {
    c.error = c.unavailable.empty() ? "nothing to measure: pick a CUDA renderer or tick a Kernels variant"
                                    : "cannot measure: " + c.unavailable;
    report("counters: %s", c.error.c_str());
    if (!want.empty()) check_failed_ = true;
    return;
  }
  const int row = rows[static_cast<std::size_t>(c.selected)];
  c.target = c.targets[static_cast<std::size_t>(c.selected)];
  CounterReport r;
#if CIRCLES_HAVE_CUDA
  if (row < 0) {
    std::string metrics, nvtx;
    for (const CounterSpec& m : counter_metrics()) metrics += (metrics.empty() ? "" : ",") + m.metric;
    if (row == -1) {
      r = measure_counters([&] { renderer_->render(); });
    } else {  // one stage: render() opens the range around that stage's kernels only
      const std::string& stage = stages[static_cast<std::size_t>(-2 - row)];
      renderer_->profile_stage(stage);
      r = measure_counters_in_range([&] { renderer_->render(); });
      renderer_->profile_stage("");
      nvtx = " --nvtx --nvtx-include \"renderer: " + stage + "/\"";
    }
    c.ncu = "ncu" + nvtx + " --metrics " + metrics + " circles render " + scene_source_ + " -r " + renderer_name_ +
            " -s " + std::to_string(render_w_) + "x" + std::to_string(render_h_) + " --frames " +
            std::to_string(renderer_->frame()) + " (sum its kernels)";
  } else {
    r = live_lab_.counters(ui_.kernels, row);
    c.ncu = LiveLab::ncu_command(ui_.kernels, row);
  }
#else
  r.error = "this build has no CUDA support";
#endif
  c.error = r.error;
  c.passes = r.passes;
  c.collect_ms = r.collect_ms;
  std::string line;
  for (const CounterValue& v : r.values) {
    c.values.push_back({v.label, v.metric, counter_text(v)});
    line += (line.empty() ? "" : ", ") + v.label + " " + counter_text(v);
  }
  if (!r.ok()) {
    report("counters: %s: %s", c.target.c_str(), r.error.c_str());
    if (!want.empty()) check_failed_ = true;
  } else {
    report("counters: %s (%d pass%s, %.1f ms): %s", c.target.c_str(), r.passes, r.passes == 1 ? "" : "es",
           r.collect_ms, line.c_str());
  }
}

void Viewer::check_frame_stats() {
  FrameStatsUi& f = ui_.frame_stats;
  f.check_requested = false;
  if (!f.unavailable.empty()) {
    f.check = "cannot check: " + f.unavailable;
    f.check_ok = false;
    report("frame stats: %s", f.check.c_str());
    return;
  }
  frame_reducer_.poll(true);  // the request in flight (an older frame) is done with
  const lab::Variant& v = *find_lab_variant(f.variants[static_cast<std::size_t>(f.selected)]);
  frame_reducer_.enqueue(v.launch, v.default_param(), renderer_->device_pixels(), render_w_,
                         render_h_, scene_->background, renderer_->device_stream());
  const std::optional<lab::FrameStats> gpu = frame_reducer_.poll(true);
  Image img;
  renderer_->read_image(&img);
  const lab::FrameStats cpu = lab::frame_stats_cpu(img, scene_->background);
  f.last = gpu;
  f.check_ok = gpu && lab::frame_stats_agree(*gpu, cpu);
  char buf[400];
  if (gpu)
    std::snprintf(buf, sizeof buf,
                  "%s (%s): mean %.5f %.5f %.5f %.4f, coverage %.0f of %.0f px, %.3f ms; CPU: mean %.5f %.5f %.5f "
                  "%.4f, coverage %.0f: %s",
                  v.name.c_str(), f.check_ok ? "match" : "DIFFER", gpu->mean[0], gpu->mean[1], gpu->mean[2],
                  gpu->mean[3], gpu->touched, gpu->pixels, gpu->ms, cpu.mean[0], cpu.mean[1], cpu.mean[2], cpu.mean[3],
                  cpu.touched, f.check_ok ? "match" : "DIFFER");
  else
    std::snprintf(buf, sizeof buf, "%s: no result", v.name.c_str());
  f.check = buf;
  report("frame stats: %s", buf);
}

}  // namespace circles
