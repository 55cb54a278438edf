// `circles ladder`: every rung of the renderer ladder (app/common/ladder.h) on one scene, timed
// side by side in one run and checked against cpu-ref.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace circles {

struct LadderOptions {
  std::string scene;
  int width = 1024, height = 1024;
  std::vector<std::string> rungs;  // empty: every rung
  int repeat = 20;                 // timed frames a rung (fewer when max_seconds runs out)
  int warmup = 3;                  // untimed frames first (at least one)
  double max_seconds = 4.0;        // a rung's budget, warm-up included
  std::uint64_t seed = 1;
  std::string json_path;           // also write the results as JSON here
  std::string plot_path;           // and a bar chart as SVG here
};

// Prints a row a rung on stdout; returns 0 when every rung kept its promise, else 1. Throws
// std::invalid_argument for a bad selection or a renderer not available here (exit 2).
int run_ladder(const LadderOptions& opt);

}  // namespace circles
