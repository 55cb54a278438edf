// The Counters panel's tool (counters_tool.h).
#include "app/viewer/tools/counters_tool.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "app/common/registry.h"
#include "app/viewer/viewer_log.h"
#include "kernels/cuda/counters.h"

namespace circles {

using viewer_detail::report;

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

void CountersTool::update(const ToolFrame& f) {
  CountersUi& c = ui_.counters;
  const KernelsUi& k = ui_.kernels;
  // The targets: the frame (a CUDA renderer's), then every Kernels row that runs live and is ticked.
  const std::string keep = c.targets.empty() ? "" : c.targets[static_cast<std::size_t>(
                                                       std::clamp(c.selected, 0, int(c.targets.size()) - 1))];
  // rows: -1 the frame, -2 - k stage k of the renderer's last timings, else a Kernels row.
  std::vector<int> rows;
  std::vector<std::string> stages;
  c.targets.clear();
  if (f.renderer.device_pixels()) {
    c.targets.push_back("frame: " + f.renderer_name);
    rows.push_back(-1);
    for (const StageTiming& t : f.renderer_timings)
      if (t.stage != "animate") {  // advance()'s, not render()'s
        c.targets.push_back("stage: " + f.renderer_name + " " + t.stage);
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
  const std::string& want = f.options.counters;
  // --counters TARGET: two frames before the last (so the column can scroll to the figures before
  // a screenshot), or on the last when there are fewer frames.
  const std::int64_t quit = f.options.quit_after;
  const bool due = !want.empty() && !done_ && (f.last_frame || (quit >= 3 && f.displayed + 3 >= quit));
  if (due) {
    done_ = true;
    c.reveal = 2;
    c.measure = true;
    const std::string name = want == "frame"                ? "frame: " + f.renderer_name
                             : want.rfind("stage:", 0) == 0 ? "stage: " + f.renderer_name + " " + want.substr(6)
                                                             : "lab: " + want;
    const auto it = std::find(c.targets.begin(), c.targets.end(), name);
    if (it == c.targets.end()) {
      c.error = "--counters " + want + ": not a target here (" +
                (want == "frame" || want.rfind("stage:", 0) == 0
                     ? std::string(f.renderer.device_pixels() ? "no such stage" : "the frame is drawn on the CPU")
                 : !k.unavailable.empty() ? "the lab cannot run: " + k.unavailable
                                          : std::string("tick it with --kernels")) +
                ")";
      report("counters: %s", c.error.c_str());
      f.fail();
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
    if (!want.empty()) f.fail();
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
      r = measure_counters([&] { f.renderer.render(); });
    } else {  // one stage: render() opens the range around that stage's kernels only
      const std::string& stage = stages[static_cast<std::size_t>(-2 - row)];
      f.renderer.profile_stage(stage);
      r = measure_counters_in_range([&] { f.renderer.render(); });
      f.renderer.profile_stage("");
      nvtx = " --nvtx --nvtx-include \"renderer: " + stage + "/\"";
    }
    c.ncu = "ncu" + nvtx + " --metrics " + metrics + " circles render " + f.scene_source + " -r " + f.renderer_name +
            " -s " + std::to_string(f.width) + "x" + std::to_string(f.height) + " --frames " +
            std::to_string(f.renderer.frame()) + " (sum its kernels)";
  } else {
    r = kernels_.lab().counters(ui_.kernels, row);
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
    if (!want.empty()) f.fail();
  } else {
    report("counters: %s (%d pass%s, %.1f ms): %s", c.target.c_str(), r.passes, r.passes == 1 ? "" : "es",
           r.collect_ms, line.c_str());
  }
}

}  // namespace circles
