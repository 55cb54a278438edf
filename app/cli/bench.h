// `circles bench`: per-frame medians of renderers on scenes, all read from the registries.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "app/common/registry.h"
#include "render/renderer.h"
#include "render/stats.h"

namespace circles {

struct BenchOptions {
  std::vector<std::string> scenes;     // empty: every built-in scene
  std::vector<std::string> renderers;  // empty: every renderer available here
  int width = 1024, height = 1024;
  int repeat = 20;             // timed frames per pair (fewer if max_seconds runs out)
  int warmup = 3;              // untimed frames first (at least one; fewer if a frame is slow)
  int min_repeat = 1;          // timed frames even past max_seconds
  double max_seconds = 4.0;    // per scene/renderer pair, warm-up included
  std::uint64_t seed = 1;
  std::string json_path;       // also write the results as JSON here
  // Settings for every renderer that takes them (renderers that cannot are skipped, with a
  // note). With no settings given, each renderer runs once per supported tile size.
  RendererSettings settings;
  // exact, half-colour and/or early-exit, side by side (renderers without a mode run the others
  // only); empty: exact. settings.early_exit or settings.half_colour given means that mode only.
  std::vector<std::string> modes;
};

// Runs the benchmark, printing a table to stdout; returns the process exit code.
int run_bench(const BenchOptions& opt);

// How the benchmark times one renderer on the scene it has loaded (`circles ladder` times its
// rungs the same way): warm-up frames, at least one and none past a quarter of the budget; then
// up to `repeat` timed frames, stopping where the next would overrun the budget (the slowest
// frame so far predicts it) but never below `min_repeat`. Where the renderer can time a frame
// whole (GPU), each timed frame is followed by one timed stage by stage, for the stage medians.
struct FrameTiming {
  int warmup = 3, repeat = 20, min_repeat = 1;
  double max_seconds = 4.0;  // warm-up included, counted from `loaded_at`
  bool advance = true;       // a step of the animation before each frame (else the same frame again)
  // A warm-up frame slower than half the budget is the one timed frame (FrameTimes::warmup_only),
  // its stages from the same frame, rather than drawing another.
  bool slow_warmup_is_timed = false;
};
struct FrameTimes {
  std::vector<double> times;         // ms, each timed frame whole
  std::vector<double> staged_times;  // ms, the frames timed stage by stage (their stages' sum)
  std::map<std::string, std::vector<double>> stages;  // ms, each stage's times
  bool warmup_only = false;
  bool whole = false;  // the renderer timed frames whole (then staged_times holds the staged ones)
};
// The sum of the last frame's stages (waiting for the frame), each stage's time into `stages`.
double frame_ms(const Renderer& r, std::map<std::string, std::vector<double>>* stages);
// `on_frame(f)` before each timed frame, f the budget's fraction spent.
FrameTimes time_frames(Renderer& r, const FrameTiming& t, std::chrono::steady_clock::time_point loaded_at,
                       const std::function<void(double)>& on_frame);

}  // namespace circles
