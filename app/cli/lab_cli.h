// `circles kernels`: the kernel lab on the command line. Every selected variant is checked
// against the CPU and timed beside the device copy, one table per family, task, type and size.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/lab/lab.h"

namespace CLI {
class App;
}

namespace circles {

struct KernelsOptions {
  std::string family;                 // "" or "all": every family (or those of --variant)
  std::vector<std::string> variants;  // empty: every variant of the families
  std::vector<std::string> sizes;     // "N", "2^K" or "WxH"; empty: each family's defaults
  std::string type;                   // "i32", "f32" or "" (each type the variant supports)
  std::vector<int> params;            // knob values to run; empty: all the variant lists
  int repeat = 20;
  int warmup = 3;
  std::uint64_t seed = 1;
  std::string json_path;
  bool list = false;
  bool counters = false;              // also read each variant's hardware counters (CUPTI)
};

// Adds the `kernels` subcommand to `app`, filling `opt`.
CLI::App* add_kernels_command(CLI::App& app, KernelsOptions* opt);
// Runs it; returns the exit code (0 all ok, 1 a variant was WRONG or the lab cannot run here).
// Throws std::invalid_argument for a bad selection (the CLI maps it to exit code 2).
int run_kernels(const KernelsOptions& opt);
// "N", "2^K" or "WxH" -> a shape (limits checked later per task); throws std::invalid_argument.
lab::Shape parse_lab_size(const std::string& text);

}  // namespace circles
