// `circles bench`: per-frame medians of renderers on scenes, all read from the registries.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "app/common/registry.h"
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

}  // namespace circles
