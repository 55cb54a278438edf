// Live hardware counters: the GPU's performance counters read in-process with CUPTI's range
// profiler, summed over every kernel a piece of work enqueues (a lab variant, a renderer stage).
// Plain C++ (no CUDA or CUPTI types), so panels and the CLI can show the figures and the reasons.
//
// libcupti is loaded at run time (dlopen), never linked: the program starts and works where it
// is absent, and where counters are not permitted (ERR_NVGPUCTRPERM) or the GPU has none,
// counters_unavailable_reason() says why in a sentence. Reading counters replays the work once
// per pass and costs a few milliseconds: it is an explicit action, never something every frame does.
// The metric names are Nsight Compute's, so every figure can be checked with `ncu --metrics`.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace circles {

// One metric of the list: the name ncu uses, a short label for tables and panels, its unit
// ("bytes", "%", "count" or "ratio") and what it means, in one line.
struct CounterSpec {
  std::string metric;
  std::string label;
  std::string unit;
  std::string meaning;
};

// The metrics read, in display order: one list read by the CLI, the viewer, the tests and
// scripts/counters_vs_ncu.sh. CUPTI 13's host API schedules them in one pass on every chip it
// knows (Volta to Blackwell); GB20x and the Tegra chips have no dram__ metrics (see `missing`).
const std::vector<CounterSpec>& counter_metrics();
// The entry of counter_metrics() with this ncu name, or nullptr.
const CounterSpec* find_counter_metric(const std::string& metric);

struct CounterValue {
  std::string metric;  // ncu's name
  std::string label;
  double value = 0;  // as ncu reports it (NaN where a ratio has no instructions to divide by)
  std::string unit;
};

struct CounterReport {
  std::vector<CounterValue> values;  // counter_metrics() order; only the metrics this GPU has
  std::vector<std::string> missing;  // metrics of the list this GPU does not have
  int passes = 0;                    // times the work ran (one per replay pass)
  double collect_ms = 0;             // wall time of the whole measurement, the work's runs included
  std::string error;  // why there are no values: a sentence, or "<CUPTI call>: <CUPTI's error>"
  bool ok() const { return error.empty(); }
  // The value of `metric`, or nullptr when it was not read.
  const CounterValue* find(const std::string& metric) const;
};

// "" when counters can be read on the current CUDA device; otherwise why not, as a sentence (no
// GPU, libcupti not found and where it was looked for, not permitted, GPU not supported, ...).
// Probes once (loads libcupti, sets up the profiler); later calls return the cached answer,
// updated when a measurement finds that counters are not permitted after all. Never throws.
std::string counters_unavailable_reason();

// Runs `work` (which enqueues CUDA kernels on any streams of the current device and may
// synchronize) under one CUPTI user range with user replay: `work` is called once per pass, the
// device is synchronized after each call, and the metrics are evaluated over every kernel of the
// range (kernels other threads enqueue meanwhile on the same device are counted too). `work`
// must do the same thing on every call (it is replayed). Its exceptions are caught and reported
// in `error`; nothing throws out of here. Serialized by a mutex; callable repeatedly. Kernels
// enqueued before the call are waited for first and not counted.
CounterReport measure_counters(const std::function<void()>& work);
// The same, but the range is only the part of `work` between counters_range_push(name) and
// counters_range_pop(), which `work` calls itself (a renderer around one stage's kernels): once
// each per call; kernels outside it are not counted. An error if the work never opens it.
CounterReport measure_counters_in_range(const std::function<void()>& work);
// Open and close that range; true when there is one to open (or close) here, else nothing
// happens (no measurement in progress). pop waits for the device first.
bool counters_range_push(const char* name);
bool counters_range_pop();

// Host-only planning, no GPU needed (libcupti and its libnvperf_host are): which metrics of the
// list a chip ("GH100", "AD102", ...) has and how many passes they need together.
struct CounterPlan {
  std::string chip;
  int passes = 0;
  std::vector<std::string> missing;
  std::string error;
  bool ok() const { return error.empty(); }
};
CounterPlan counters_plan_for_chip(const std::string& chip);

// The libcupti that was loaded (its path), or "" with `why` (when given) set to the reason.
// Loads it on the first call.
std::string counters_library(std::string* why = nullptr);

}  // namespace circles
