// `circles ladder`: the renderer ladder on one scene. Each rung is loaded, warmed up and timed as
// `circles bench` times a pair (CUDA events around each whole frame, a frame timed stage by stage
// after each for the stage medians), drawing the scene's own frame again and again (no animation
// step), so every rung draws one picture: cpu-ref's, which it is checked against with the promise
// of the mode it drew in. The reference is drawn by cpu-mt, cpu-ref's arithmetic over threads and
// bit-identical to it (tests/cpu), since cpu-ref alone takes minutes on stress10M at 4K. One more
// frame counts the rung's work where the renderer can.
#include "app/cli/ladder.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "app/cli/bench.h"
#include "app/cli/cli.h"
#include "app/common/ladder.h"
#include "app/common/registry.h"
#include "render/compare.h"
#include "render/image.h"
#include "render/modes.h"
#include "render/output_file.h"
#include "render/progress.h"
#include "render/renderer.h"
#include "render/stats.h"
#if CIRCLES_HAVE_CUDA
#include "kernels/cuda/device.h"
#endif

namespace circles {

namespace {

struct RungResult {
  const Rung* rung = nullptr;
  std::vector<double> times;
  bool first_only = false;  // one frame slower than the budget: the warm-up frame is the time
  std::map<std::string, double> stages;  // medians
  bool counted = false;
  Workload work;
  Mode mode = Mode::Exact;
  std::string broken;  // "" when it kept its mode's promise
  Comparison cmp;
  std::string plan;
  std::uint64_t peak = 0;
  double median_ms() const { return median(times); }
};

RungResult run_rung(const Rung& rung, const Scene& scene, const Image& ref, const LadderOptions& opt,
                    Progress& progress, double done) {
  RungResult out;
  out.rung = &rung;
  std::unique_ptr<Renderer> r = make_renderer(rung.renderer, rung.settings);
  const auto p0 = std::chrono::steady_clock::now();
  r->load(scene, opt.width, opt.height);
  // As `circles bench` times a pair, without the animation step; a first frame slower than half
  // the budget (cuda-naive on millions of circles) is the rung's one timed frame.
  FrameTiming timing;
  timing.warmup = opt.warmup;
  timing.repeat = opt.repeat;
  timing.max_seconds = opt.max_seconds;
  timing.advance = false;
  timing.slow_warmup_is_timed = true;
  FrameTimes ft = time_frames(*r, timing, p0, [&](double spent) { progress.update(done + spent, rung.name); });
  out.times = std::move(ft.times);
  out.first_only = ft.warmup_only;
  const std::map<std::string, std::vector<double>>& stages = ft.stages;
  for (const auto& [stage, v] : stages) out.stages[stage] = median(v);
  Image img;
  r->read_image(&img);
  out.mode = r->mode();
  out.broken = promise_broken(out.mode, ref, img);
  out.cmp = compare_images(ref, img, 0.f);
  out.plan = r->plan();
  out.peak = r->device_memory_peak();
  // The work, counted in a frame of its own (counting slows the shade a little).
  out.counted = !out.first_only && r->count_work(true);
  if (out.counted) {
    r->render();
    out.counted = r->work(&out.work);
    r->count_work(false);
  }
  return out;
}

std::string count_text(std::uint64_t v) {
  char buf[32];
  if (v >= 10'000'000'000ull) std::snprintf(buf, sizeof buf, "%.1fG", v / 1e9);
  else if (v >= 10'000'000ull) std::snprintf(buf, sizeof buf, "%.1fM", v / 1e6);
  else if (v >= 10'000ull) std::snprintf(buf, sizeof buf, "%.1fk", v / 1e3);
  else std::snprintf(buf, sizeof buf, "%" PRIu64, v);
  return buf;
}

std::string ms_text(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, ms >= 100 ? "%.1f" : "%.3f", ms);
  return buf;
}

// The stage whose median moved most against the base rung's (a stage missing counts 0 ms).
std::string moved_most(const RungResult& r, const RungResult* base) {
  if (!base) return "";
  std::string best;
  double delta = 0;
  auto look = [&](const std::string& stage) {
    const auto a = r.stages.find(stage), b = base->stages.find(stage);
    const double d = (a == r.stages.end() ? 0.0 : a->second) - (b == base->stages.end() ? 0.0 : b->second);
    if (std::fabs(d) > std::fabs(delta)) {
      delta = d;
      best = stage;
    }
  };
  for (const auto& s : r.stages) look(s.first);
  for (const auto& s : base->stages) look(s.first);
  if (best.empty()) return "";
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s %+.3f ms", best.c_str(), delta);
  return buf;
}

// A horizontal bar a rung, ms on a log scale, as SVG.
std::string ladder_svg(const std::vector<RungResult>& results, const std::string& title) {
  const int bar = 22, gap = 6, left = 150, width = 560, top = 40;
  double lo = 1e300, hi = 0;
  for (const RungResult& r : results) {
    lo = std::min(lo, r.median_ms());
    hi = std::max(hi, r.median_ms());
  }
  const double l0 = std::floor(std::log10(std::max(lo, 1e-4))), l1 = std::ceil(std::log10(std::max(hi, 1e-4)) + 1e-9);
  const double span = std::max(1.0, l1 - l0);
  const int height = top + static_cast<int>(results.size()) * (bar + gap) + 30;
  std::string s;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
                "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
                "<text x=\"10\" y=\"20\" font-size=\"14\">%s</text>\n",
                left + width + 120, height, title.c_str());
  s += buf;
  for (int d = 0; d <= static_cast<int>(span); ++d) {
    const double x = left + width * d / span;
    std::snprintf(buf, sizeof buf,
                  "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ccc\"/>\n"
                  "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g ms</text>\n",
                  x, top - 6, x, height - 24, x, height - 10, std::pow(10.0, l0 + d));
    s += buf;
  }
  int y = top;
  for (const RungResult& r : results) {
    const double w = width * (std::log10(std::max(r.median_ms(), 1e-4)) - l0) / span;
    std::snprintf(buf, sizeof buf,
                  "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n"
                  "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n"
                  "<text x=\"%.1f\" y=\"%d\">%s ms</text>\n",
                  left - 8, y + bar - 7, r.rung->name.c_str(), left, y, std::max(1.0, w), bar,
                  r.broken.empty() ? "#4878a8" : "#c03030", left + std::max(1.0, w) + 6, y + bar - 7,
                  ms_text(r.median_ms()).c_str());
    s += buf;
    y += bar + gap;
  }
  s += "</svg>\n";
  return s;
}

}  // namespace

int run_ladder(const LadderOptions& opt) {
  const std::vector<const Rung*> rungs = select_rungs(opt.rungs);
  if (opt.warmup < 0 || opt.repeat < 1) throw std::invalid_argument("ladder: --repeat must be at least 1");
  // Every rung's renderer must run here, with its settings, before any work. The rungs are CUDA
  // renderers: without a GPU the ladder cannot run, as the kernel lab cannot (exit 1).
  for (const Rung* rung : rungs) {
    const RendererInfo* info = find_renderer(rung->renderer);
    if (!info) throw std::logic_error("ladder: rung " + rung->name + " names no renderer");
    if (const std::string why = unavailable_reason(*info); !why.empty())
      throw std::runtime_error("the renderer ladder needs a CUDA GPU (rung " + rung->name + " is " + rung->renderer +
                               "): " + why);
    resolve_settings(*info, rung->settings);
  }
  if (!opt.json_path.empty()) check_output_path(opt.json_path, "--json");
  if (!opt.plot_path.empty()) check_output_path(opt.plot_path, "--plot");
  const Scene scene = load_scene_within_memory(opt.scene, opt.seed, "ladder");
  const double pixels = static_cast<double>(opt.width) * opt.height;
  // cpu-ref's image, each rung's and their comparison's: the render model's images, twice.
  check_host_memory(render_memory_bytes(2 * pixels, static_cast<double>(scene.circles.size())),
                    opt.scene + " at " + std::to_string(opt.width) + "x" + std::to_string(opt.height), "ladder");
  Progress progress("ladder " + opt.scene, static_cast<double>(rungs.size() + 1));
  progress.ignore_within();
  progress.update(0, "cpu-ref's picture (by cpu-mt), which every rung is checked against");
  Image ref;
  {
    std::unique_ptr<Renderer> cpu_ref = make_renderer("cpu-mt");
    cpu_ref->load(scene, opt.width, opt.height);
    cpu_ref->render();
    cpu_ref->read_image(&ref);
  }
  std::vector<RungResult> results;
  for (std::size_t k = 0; k < rungs.size(); ++k) {
    progress.update(static_cast<double>(k + 1), rungs[k]->name);
    results.push_back(run_rung(*rungs[k], scene, ref, opt, progress, static_cast<double>(k + 1)));
  }
  progress.clear();
  auto base_of = [&](const RungResult& r) -> const RungResult* {
    for (const RungResult& b : results)
      if (b.rung->name == r.rung->base) return &b;
    return nullptr;
  };

  std::string device;
#if CIRCLES_HAVE_CUDA
  device = cuda_device_info().name;
#endif
  std::printf("ladder: %s at %dx%d%s%s; each rung's frames drawn again and again (no animation step), checked "
              "against cpu-ref's picture (drawn by cpu-mt)\n",
              opt.scene.c_str(), opt.width, opt.height, device.empty() ? "" : " on ", device.c_str());
  std::printf("%-12s %7s %10s %8s %11s %11s %10s  %-28s %s\n", "rung", "frames", "median ms", "speed-up", "pixel tests",
              "blends", "pairs", "stage moved most", "check");
  bool all_ok = true;
  nlohmann::json rows = nlohmann::json::array();
  for (const RungResult& r : results) {
    const RungResult* base = base_of(r);
    const double speedup = base ? base->median_ms() / r.median_ms() : 0.0;
    char sp[32] = "";
    if (base) std::snprintf(sp, sizeof sp, "%.2fx", speedup);
    const std::string check = r.broken.empty() ? std::string("ok (") + mode_key(r.mode) + ")" : "FAIL: " + r.broken;
    all_ok = all_ok && r.broken.empty();
    std::printf("%-12s %7s %10s %8s %11s %11s %10s  %-28s %s\n", r.rung->name.c_str(),
                r.first_only ? "1 (cold)" : std::to_string(r.times.size()).c_str(), ms_text(r.median_ms()).c_str(), sp,
                r.counted ? count_text(r.work.pixel_tests).c_str() : "-",
                r.counted ? count_text(r.work.blends).c_str() : "-",
                r.counted && r.work.chunks ? count_text(r.work.pairs).c_str() : "-", moved_most(r, base).c_str(),
                check.c_str());
    nlohmann::json stages = nlohmann::json::object();
    for (const auto& [stage, ms] : r.stages) stages[stage] = ms;
    rows.push_back({{"rung", r.rung->name},
                    {"renderer", r.rung->renderer},
                    {"options", rung_options(*r.rung)},
                    {"adds", r.rung->adds},
                    {"source", r.rung->source},
                    {"base", r.rung->base},
                    {"frames", r.times.size()},
                    {"first_frame_only", r.first_only},
                    {"median_ms", r.median_ms()},
                    {"min_ms", *std::min_element(r.times.begin(), r.times.end())},
                    {"max_ms", *std::max_element(r.times.begin(), r.times.end())},
                    {"speedup_over_base", base ? nlohmann::json(speedup) : nlohmann::json()},
                    {"stage_median_ms", stages},
                    {"work", r.counted ? nlohmann::json{{"pixel_tests", r.work.pixel_tests},
                                                        {"blends", r.work.blends},
                                                        {"pairs", r.work.pairs},
                                                        {"chunks", r.work.chunks},
                                                        {"circles_binned", r.work.circles_binned}}
                                       : nlohmann::json()},
                    {"mode", mode_key(r.mode)},
                    {"ok", r.broken.empty()},
                    {"broken", r.broken},
                    {"bytes_differ", r.cmp.bytes_differ},
                    {"max_steps", r.cmp.max_steps},
                    {"plan", r.plan},
                    {"peak_device_bytes", r.peak}});
  }
  std::printf("\nwhat each rung drew (its plan) and how to run it alone:\n");
  for (const RungResult& r : results)
    std::printf("  %-12s circles render %s %s\n  %-12s %s\n", r.rung->name.c_str(), opt.scene.c_str(),
                rung_options(*r.rung).c_str(), "", r.plan.empty() ? "(one way only)" : r.plan.c_str());
  std::fflush(stdout);
  if (!opt.json_path.empty()) {
    const nlohmann::json doc = {{"scene", opt.scene}, {"width", opt.width}, {"height", opt.height},
                                {"device", device},  {"seed", opt.seed},   {"rungs", rows}};
    write_file_atomically(opt.json_path, doc.dump(2) + "\n", "JSON file");
  }
  if (!opt.plot_path.empty())
    write_file_atomically(opt.plot_path,
                          ladder_svg(results, "circles ladder: " + opt.scene + " at " + std::to_string(opt.width) +
                                                  "x" + std::to_string(opt.height) +
                                                  (device.empty() ? "" : ", " + device) + " (ms, log scale)"),
                          "plot");
  return all_ok ? 0 : 1;
}

}  // namespace circles
