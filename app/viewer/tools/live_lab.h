// The Kernels panel's runner: lab variants checked and timed while the viewer draws, on the
// frame's GPU. The input is generated and uploaded, and every newly ticked variant checked against
// the CPU, on a worker thread (kernels/lab/lab_run.h's LabBench, which waits on its own stream
// there); the timed runs are enqueued by the render thread behind the frame, on the renderer's
// stream, each between two CUDA events, and read frames later when the events have completed,
// so the frame loop never waits for the lab (like the stage timer).
#pragma once
#include <memory>
#include <string>

#include "app/viewer/viewer_state.h"
#include "kernels/cuda/counters.h"

namespace circles {

// The sizes the panel offers, by preset (KernelsUi::size: 0 HBM-sized, 1 fits in L2) and task:
// 2^26 elements (256 MiB of 32-bit words) or 2^20 (4 MiB); transpose 8192x8192 or 1024x1024;
// the bank kernels 2^20 threads either way (they read shared memory, not global).
lab::Shape kernels_preset_shape(int preset, lab::Task task);

// Parses --kernels SPEC into the panel's choices: FAMILY or FAMILY:VARIANT,VARIANT (the family's
// first task that has those variants); SIZE is "hbm" or "l2". Throws std::invalid_argument
// naming what is wrong and what would be accepted.
void kernels_ui_from_spec(const std::string& spec, const std::string& size, KernelsUi* ui);

class LiveLab {
 public:
  LiveLab();
  ~LiveLab();  // waits for the worker and for timed runs still in flight
  LiveLab(const LiveLab&) = delete;
  LiveLab& operator=(const LiveLab&) = delete;

  // Once per displayed frame, after the render is enqueued: reads the panel's choices (a changed
  // family or task rebuilds the rows; a changed type or size rebuilds the input), collects the
  // worker's results and the timed runs that have finished, starts the worker for variants that
  // need a check, and, when asked (every frame, or Run once) and the previous round is done,
  // enqueues one timed run of every checked, ticked variant on `stream` (the renderer's CUDA
  // stream; nullptr: the lab's own). Never waits for the GPU. `stage` (may be null) receives
  // each finished run as ("lab: NAME", ms) for the Timings panel.
  void update(KernelsUi& ui, void* stream, void (*stage)(void* ctx, const std::string&, double) = nullptr,
              void* ctx = nullptr);
  // Waits until the checks and the timed runs under way are done and updates `ui` (the last
  // frame of --quit-after, so the summary and a screenshot show them).
  // The hardware counters (kernels/cuda/counters.h) of one run of row `row`'s variant on the panel's
  // input with its knob value: the worker and the runs in flight are waited for, the input built
  // and the variant checked first if that has not happened yet, so the frame waits for it (a few
  // ms; seconds the first time on a 256 MiB input). An explicit action, never every frame.
  CounterReport counters(KernelsUi& ui, int row);
  // The Nsight Compute command that measures the same run: `ncu --metrics ... circles kernels ...`.
  static std::string ncu_command(const KernelsUi& ui, int row);
  void finish(KernelsUi& ui, void (*stage)(void* ctx, const std::string&, double) = nullptr, void* ctx = nullptr);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace circles
