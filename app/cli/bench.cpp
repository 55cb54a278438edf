// `circles bench`: every selected renderer on every selected scene, side by side in one run.
// A frame's time is advance + render as the renderer measures it: on the GPU, CUDA events at the
// frame's start and end, with none between its stages (each would delay the next kernel); on the
// CPU, a steady clock, stage by stage. Warm-up frames first; the median of the timed frames is
// reported. A GPU renderer's stage times come from frames of their own, timed stage by stage,
// one after each timed frame.
#include "app/cli/bench.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "render/builtin_scenes.h"
#include "app/cli/cli.h"
#include "app/common/registry.h"
#include "render/output_file.h"
#include "render/progress.h"
#include "render/renderer.h"

namespace circles {

double frame_ms(const Renderer& r, std::map<std::string, std::vector<double>>* stages) {
  double sum = 0;
  for (const StageTiming& t : r.timings()) {
    sum += t.ms;
    if (stages) (*stages)[t.stage].push_back(t.ms);
  }
  return sum;
}

FrameTimes time_frames(Renderer& r, const FrameTiming& t, std::chrono::steady_clock::time_point loaded_at,
                       const std::function<void(double)>& on_frame) {
  using Clock = std::chrono::steady_clock;
  auto seconds_since = [](Clock::time_point p) { return std::chrono::duration<double>(Clock::now() - p).count(); };
  FrameTimes out;
  double slowest = 0, warmup_ms = 0;
  for (int i = 0; i < std::max(1, t.warmup); ++i) {
    const auto f0 = Clock::now();
    if (t.advance) r.advance();
    r.render();
    warmup_ms = frame_ms(r, nullptr);  // waits for the frame
    slowest = std::max(slowest, seconds_since(f0));
    if (seconds_since(loaded_at) > t.max_seconds / 4) break;
  }
  if (t.slow_warmup_is_timed && slowest > t.max_seconds / 2) {
    out.warmup_only = true;
    out.times.push_back(warmup_ms);
    for (const StageTiming& s : r.timings()) out.stages[s.stage].push_back(s.ms);
    return out;
  }
  const bool whole = out.whole = r.time_stages(false);
  for (int i = 0; i < t.repeat; ++i) {
    if (on_frame) on_frame(std::min(1.0, seconds_since(loaded_at) / std::max(1e-9, t.max_seconds)));
    const bool enough = static_cast<int>(out.times.size()) >= t.min_repeat;
    if (enough && seconds_since(loaded_at) + (whole ? 2 : 1) * slowest > t.max_seconds) break;
    // One frame, its time into `into` (and its stages into `stages`, where given).
    auto timed_frame = [&](std::vector<double>& into, std::map<std::string, std::vector<double>>* by_stage) {
      const auto f0 = Clock::now();
      if (t.advance) r.advance();
      r.render();
      into.push_back(frame_ms(r, by_stage));
      slowest = std::max(slowest, seconds_since(f0));
    };
    timed_frame(out.times, whole ? nullptr : &out.stages);
    if (!whole) continue;
    r.time_stages(true);
    timed_frame(out.staged_times, &out.stages);
    r.time_stages(false);
  }
  return out;
}

namespace {

std::string minutes_text(double seconds) {
  char buf[64];
  if (seconds < 10) std::snprintf(buf, sizeof buf, "%.2g s", seconds);
  else if (seconds < 90) std::snprintf(buf, sizeof buf, "%.0f s", seconds);
  else std::snprintf(buf, sizeof buf, "%.1f min", seconds / 60);
  return buf;
}

// The list without repeats, in first-seen order (a pair named twice would be timed twice, under
// the same label).
std::vector<std::string> unique(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& n : names)
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  return out;
}

}  // namespace

int run_bench(const BenchOptions& opt) {
  if (opt.min_repeat > opt.repeat)
    throw std::invalid_argument("bench: --min-repeat " + std::to_string(opt.min_repeat) + " is more than --repeat " +
                                std::to_string(opt.repeat) + " (the timed frames a pair takes at most)");
  if (opt.settings.early_exit && !opt.modes.empty())
    throw std::invalid_argument("bench: --early-exit and --modes both say which modes to time: give one "
                                "(--modes early-exit, or --modes exact,early-exit)");
  std::vector<std::string> scenes = unique(opt.scenes), renderers = unique(opt.renderers);
  if (scenes.empty())
    for (const SceneInfo& s : scene_registry()) scenes.push_back(s.name);
  if (renderers.empty()) {
    for (const RendererInfo& r : renderer_registry()) {
      const std::string why = unavailable_reason(r);
      if (why.empty()) renderers.push_back(r.name);
      else std::fprintf(stderr, "bench: skipping %s: %s\n", r.name.c_str(), why.c_str());
    }
  }
  // Variants: each renderer with the given settings, or once per supported tile size.
  struct Variant {
    std::string renderer, label;
    RendererSettings settings;
  };
  std::vector<Variant> variants;
  const bool given = opt.settings.tile_size != 0 || opt.settings.batch_size != 0 || !opt.settings.scan.empty();
  // Modes (render/modes.h): exact; half colour and early exit for the renderers that have them
  // (--modes, or --half-colour or --early-exit alone).
  struct Mode {
    bool early = false, half = false;
  };
  std::vector<Mode> modes;
  for (const std::string& m : unique(opt.modes)) {
    if (m == "exact") modes.push_back({false, false});
    else if (m == "half-colour") modes.push_back({false, true});
    else if (m == "early-exit") modes.push_back({true, false});
    else throw std::invalid_argument("bench: --modes takes exact, half-colour and early-exit, not '" + m + "'");
  }
  if (opt.settings.early_exit || opt.settings.half_colour) modes = {{opt.settings.early_exit, opt.settings.half_colour}};
  if (modes.empty()) modes = {{false, false}};
  for (const std::string& name : renderers) {
    const RendererInfo* info = find_renderer(name);
    // Unknown, or (asked for by name) unavailable here: throws, before any pair is timed.
    if (!info || !unavailable_reason(*info).empty()) make_renderer(name);
    std::vector<RendererSettings> list;
    if (given) {
      list.push_back(opt.settings);
    } else if (info->tile_sizes.empty()) {
      list.push_back({});
    } else {
      for (int t : info->tile_sizes) list.push_back({t, 0});
    }
    for (const Mode& mode : modes) {
      const bool early = mode.early;
      // Several modes asked for: a renderer without early exit or half colour runs exact only,
      // silently; one mode alone: resolve_settings below says why it cannot.
      if (((early && !info->early_exit) || (mode.half && !info->half_colour)) && modes.size() > 1) continue;
      for (RendererSettings s : list) {
        s.early_exit = early;
        s.half_colour = mode.half;
        s.binned = opt.settings.binned;  // cuda-tile-binned's forced choices (others refuse them)
        RendererSettings r;
        try {
          r = resolve_settings(*info, s);
        } catch (const std::invalid_argument& e) {
          if (opt.renderers.size() == 1) throw;  // the one renderer asked for cannot take them
          std::fprintf(stderr, "bench: skipping %s: %s\n", name.c_str(), e.what());
          continue;
        }
        // Settings asked for twice are timed once.
        if (std::any_of(variants.begin(), variants.end(), [&](const Variant& v) {
              const RendererSettings& o = v.settings;
              return v.renderer == name && o.tile_size == r.tile_size && o.batch_size == r.batch_size &&
                     o.scan == r.scan && o.early_exit == r.early_exit && o.half_colour == r.half_colour;
            }))
          continue;
        std::string label = name;
        if (info->tile_sizes.size() > 1 || given) label += "/" + std::to_string(r.tile_size);
        if (given && r.batch_size) label += "/b" + std::to_string(r.batch_size);
        if (!opt.settings.scan.empty()) label += "/" + r.scan;
        if (early) label += "/early";
        if (r.half_colour) label += "/half";
        variants.push_back({name, label, r});
      }
    }
  }

  if (variants.empty()) throw std::invalid_argument("bench: no renderer takes the given settings");
  // Check every scene and the JSON path before timing anything (a run can be long): scene files
  // are read here, kept for their turn, so that a bad one fails now, not after the pairs before it.
  std::map<std::string, Scene> files;
  for (const std::string& s : scenes) {
    std::error_code ec;
    if (find_scene(s)) continue;
    if (!std::filesystem::exists(s, ec)) make_builtin_scene(s);  // throws, listing names
    files.emplace(s, load_scene(s, opt.seed));  // throws SceneError at the first bad line
  }
  if (!opt.json_path.empty()) check_output_path(opt.json_path, "--json");  // before any timing
  // Host memory, before any timing, by render's model (app/cli/cli.h): each scene (250 bytes a
  // circle) and, where a CPU renderer is timed, its images (40 bytes a pixel); a GPU renderer's
  // image stays on the device. Refused as `circles render` refuses (exit 1), naming the scene.
  bool cpu = false;
  for (const Variant& v : variants) cpu = cpu || !find_renderer(v.renderer)->needs_gpu;
  for (const std::string& s : scenes) {
    const SceneInfo* info = find_scene(s);
    const std::size_t circles = info ? info->circle_count : files.at(s).circles.size();
    const std::string size = std::to_string(opt.width) + "x" + std::to_string(opt.height);
    check_host_memory(render_memory_bytes(cpu ? static_cast<double>(opt.width) * opt.height : 0.0,
                                          static_cast<double>(circles)),
                      s + " at " + size + " (" + std::to_string(circles) + " circles" +
                          (cpu ? ", CPU renderers' images" : "") + ")",
                      "bench");
  }
  nlohmann::json results = nlohmann::json::array();
  // The budget covers a whole pair (warm-up and timed frames); only a single frame longer than
  // the budget (or --min-repeat) makes a pair take longer, so this bound holds unless frames
  // are that slow. Loading scenes comes on top.
  const std::size_t pairs = scenes.size() * variants.size();
  const std::string min_note =
      opt.min_repeat > 1 ? " or --min-repeat's " + std::to_string(opt.min_repeat) + " frames take longer than that" : "";
  std::fprintf(stderr, "bench: %zu scenes x %zu renderer variants = %zu pairs, %dx%d; budget %.3g s a pair: "
               "about %s at most (plus loading scenes), longer only where one frame takes more than %.3g s%s\n",
               scenes.size(), variants.size(), pairs, opt.width, opt.height, opt.max_seconds,
               minutes_text(static_cast<double>(pairs) * opt.max_seconds).c_str(), opt.max_seconds / 2,
               min_note.c_str());
  std::printf("%-14s %-20s %7s %10s %10s %10s  %s\n", "scene", "renderer", "frames", "median ms",
              "min ms", "max ms", "stage medians (ms)");
  std::fflush(stdout);
  using Clock = std::chrono::steady_clock;
  Progress progress("bench", static_cast<double>(pairs));
  progress.ignore_within();
  std::size_t pair = 0;
  for (const std::string& scene_name : scenes) {
    if (const std::string note = scene_source_note(scene_name); !note.empty())
      progress.message("bench: note: " + note);
    progress.update(static_cast<double>(pair), "loading " + scene_name);
    const auto file = files.find(scene_name);
    const Scene scene = file != files.end() ? std::move(file->second) : load_scene(scene_name, opt.seed);
    for (const Variant& variant : variants) {
      const std::string& rname = variant.label;
      progress.update(static_cast<double>(pair), scene_name + " on " + rname);
      std::unique_ptr<Renderer> r = make_renderer(variant.renderer, variant.settings);
      const auto p0 = Clock::now();
      r->load(scene, opt.width, opt.height);
      FrameTiming timing;
      timing.warmup = opt.warmup;
      timing.repeat = opt.repeat;
      timing.min_repeat = opt.min_repeat;
      timing.max_seconds = opt.max_seconds;
      FrameTimes ft = time_frames(*r, timing, p0, [&](double spent) {
        progress.update(pair + spent, scene_name + " on " + rname);
      });
      std::vector<double>& times = ft.times;
      std::vector<double>& staged_times = ft.staged_times;
      std::map<std::string, std::vector<double>>& stages = ft.stages;
      const bool whole = ft.whole;
      // One more frame of the same state, untimed, with the renderer counting its work.
      Workload work;
      const bool counted = r->count_work(true);
      if (counted) {
        r->render();
        if (!r->work(&work)) work = Workload{};
        r->count_work(false);
      }
      const std::string plan = r->plan();
      const double peak_mb = static_cast<double>(r->device_memory_peak()) / (1024.0 * 1024.0);
      ++pair;
      progress.clear();
      const double med = median(times);
      std::string stage_text;
      nlohmann::json stage_json = nlohmann::json::object();
      for (const auto& [stage, v] : stages) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "%s%s %.3f", stage_text.empty() ? "" : ", ", stage.c_str(), median(v));
        stage_text += buf;
        stage_json[stage] = median(v);
      }
      if (whole && !staged_times.empty()) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "; staged frames %.3f", median(staged_times));
        stage_text += buf;
      }
      std::printf("%-14s %-20s %7zu %10.3f %10.3f %10.3f  %s\n", scene_name.c_str(), rname.c_str(),
                  times.size(), med, *std::min_element(times.begin(), times.end()),
                  *std::max_element(times.begin(), times.end()), stage_text.c_str());
      if (counted || peak_mb > 0 || !plan.empty()) {
        std::printf("%-14s %-20s", "", "");
        if (peak_mb > 0) std::printf(" peak device memory %.1f MB;", peak_mb);
        if (counted) {
          if (work.chunks == 0) {
            std::printf(" no binning (every block walks the circles);");
          } else {
            const double skipped = work.circles ? 1.0 - static_cast<double>(work.circles_binned) / work.circles : 0.0;
            std::printf(" pairs %" PRIu64 " in %" PRIu64 " chunk%s (budget %" PRIu64 " a chunk), circles never binned %.1f%%;",
                        work.pairs, work.chunks, work.chunks == 1 ? "" : "s", work.pair_budget, 100.0 * skipped);
          }
          std::printf(" pixel tests %" PRIu64 ", blends %" PRIu64 ";", work.pixel_tests, work.blends);
        }
        if (!plan.empty()) std::printf(" %s", plan.c_str());
        std::printf("\n");
      }
      std::fflush(stdout);
      results.push_back({{"scene", scene_name},
                         {"renderer", variant.renderer},
                         {"variant", rname},
                         {"tile_size", variant.settings.tile_size},
                         {"batch_size", variant.settings.batch_size},
                         {"width", opt.width},
                         {"height", opt.height},
                         {"frames", times.size()},
                         {"median_ms", med},
                         {"frame_ms", times},
                         {"stage_median_ms", stage_json},
                         {"staged_frame_median_ms", whole ? nlohmann::json(median(staged_times)) : nlohmann::json()},
                         {"mode", variant.settings.early_exit ? "early-exit" : "exact"},
                         {"half_colour", variant.settings.half_colour},
                         {"plan", plan},
                         {"peak_device_bytes", r->device_memory_peak()},
                         {"work", counted ? nlohmann::json{{"circles", work.circles},
                                                           {"circles_binned", work.circles_binned},
                                                           {"pairs", work.pairs},
                                                           {"chunks", work.chunks},
                                                           {"pair_budget", work.pair_budget},
                                                           {"pixel_tests", work.pixel_tests},
                                                           {"blends", work.blends}}
                                          : nlohmann::json()}});
    }
  }
  if (!opt.json_path.empty()) write_file_atomically(opt.json_path, results.dump(2) + "\n", "JSON file");
  return 0;
}

}  // namespace circles
