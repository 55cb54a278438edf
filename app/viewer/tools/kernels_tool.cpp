// The Kernels panel's tool (kernels_tool.h).
#include "app/viewer/tools/kernels_tool.h"

#include <string>

#include "app/viewer/viewer_log.h"

namespace circles {

using viewer_detail::Clock;
using viewer_detail::ms_between;
using viewer_detail::report;

void KernelsTool::update(const ToolFrame& f) {
  KernelsUi& k = ui_.kernels;
  // Timed runs go behind the frame on the renderer's stream (CPU renderers: the lab's own).
  auto stage = [](void* frame, const std::string& name, double ms) { static_cast<const ToolFrame*>(frame)->record(name, ms); };
  const bool active = k.every_frame || k.run_once || !k.status.empty();
  const auto t0 = Clock::now();
  lab_.update(k, f.renderer.device_stream(), stage, const_cast<ToolFrame*>(&f));
  // The render thread's own cost of the lab (enqueue and event polls; it never waits for the GPU):
  // a stage of its own, so the summary shows that the lab adds no host wait to the frame.
  if (active) f.record("host: kernels panel", ms_between(t0, Clock::now()));
  if (!f.last_frame || f.options.kernels.empty()) return;
  lab_.finish(k, stage, const_cast<ToolFrame*>(&f));
  if (!k.unavailable.empty()) {
    report("kernels: unavailable: %s", k.unavailable.c_str());
    f.fail();  // asked for on the command line and not done
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
    if (r.check != "ok") f.fail();
  }
  if (!k.error.empty()) f.fail();
}

}  // namespace circles
