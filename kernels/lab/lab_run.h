// The lab's harness: one problem on the device, against which any variant of its task is checked
// (output poisoned first, compared with the CPU) and timed (CUDA events, warm-up, median), with
// the device-to-device copy of the same bytes timed the same way as the ceiling. Plain C++
// header; the implementation (lab_run.cpp) needs the CUDA runtime.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "kernels/lab/lab.h"
#include "kernels/lab/reference.h"

namespace circles::lab {

struct Timing {
  int repeat = 20;  // timed runs (the median, min and max are over these)
  int warmup = 3;   // untimed runs after the checked one
};

struct Measurement {
  std::string name;               // the variant's name, or "device-copy"
  const Variant* variant = nullptr;  // nullptr for the copy line
  int param = 0;
  Elem type = Elem::i32;
  Shape shape;
  std::string check;  // "ok", "WRONG ..." (first bad element), or "" for the copy line
  int runs = 0;       // timed runs (0: checked only)
  double median_ms = 0, min_ms = 0, max_ms = 0;
  double bytes = 0;   // declared bytes moved per run (task_bytes; the copy: read + written)
  double gbps = 0;    // bytes / median, in 10^9 bytes per second
  bool ok() const { return check.empty() || check == "ok"; }
};

class LabBench {
 public:
  // Generates the problem (make_problem) and uploads it. Throws CudaError on CUDA failure.
  LabBench(Task task, Elem type, const Shape& shape, std::uint64_t seed);
  ~LabBench();
  LabBench(const LabBench&) = delete;
  LabBench& operator=(const LabBench&) = delete;

  const Problem& problem() const;
  // Runs `v` once with its output poisoned and checks it against the CPU; then, with `timing`,
  // warms up and times it.
  Measurement run(const Variant& v, int param, const Timing* timing);
  // The device-to-device copy of the input's bytes, timed the same way.
  Measurement device_copy(const Timing& timing);
  // Enqueues one run of `v` with `param` on the bench's stream, exactly as a timed run does (same
  // buffers and scratch, output not poisoned, nothing checked), and returns without waiting: the
  // work that measure_counters (kernels/cuda/counters.h) replays. A CPU variant runs to completion here.
  // Call run() for the same variant and param first, so that the scratch is already grown.
  void launch_once(const Variant& v, int param);
  // The same run for the viewer's Kernels panel: enqueued on `stream` (a cudaStream_t; nullptr:
  // the bench's own) between two CUDA events kept in slot `slot` (0, 1, ...), returning at once.
  // Device variants only; run() the variant with `param` first (the scratch then never grows).
  void enqueue_timed(const Variant& v, int param, int slot, void* stream);
  // The slot's run time in ms once its events have completed; nullopt while it runs (or when
  // nothing was enqueued there since the last answer). wait = true blocks until it is done.
  std::optional<double> poll_timed(int slot, bool wait = false);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace circles::lab
