// The lab's reductions on the live frame (issue 8's "debug kernels"): a chosen reduce_sum variant
// sums the frame's channels and a "touched" plane, giving the mean colour and the coverage (pixels
// whose colour is not the background's). FrameStats and its CPU reference build without CUDA;
// FrameReducer (CUDA) enqueues behind the frame's render and is read without a host wait.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>

#include "kernels/lab/lab.h"
#include "render/image.h"
#include "render/scene.h"

namespace circles::lab {

struct FrameStats {
  double mean[4] = {0, 0, 0, 0};  // mean r, g, b and (accumulated) alpha over the frame
  double touched = 0;             // pixels whose colour differs from the background's
  double pixels = 0;
  double ms = 0;                  // GPU time of the planes and the five reductions (CUDA events)
};

// The reference: the same figures from a host image, summed in double.
FrameStats frame_stats_cpu(const Image& img, const Background& bg);

// Whether `a` (from the GPU, summed in float by a lab variant) agrees with the reference `b`:
// means within `rel` relative (or 1e-6 absolute), touched exactly.
bool frame_stats_agree(const FrameStats& a, const FrameStats& b, double rel = 1e-4);

// Makes its CUDA resources on the first enqueue(), so constructing one without a GPU is safe.
class FrameReducer {
 public:
  FrameReducer();
  ~FrameReducer();
  // Enqueues on `stream` (after the frame's render already there): five f32 planes from the
  // float4 image (width x height, row 0 at the bottom), then `launch` (a reduce_sum variant that
  // takes f32, its knob `param`) over each, the sums copied to pinned host memory, and an event.
  // Returns false (and enqueues nothing) while the previous request is still running.
  bool enqueue(LaunchFn launch, int param, const void* image, int width, int height, const Background& bg,
               void* stream);
  // The finished request's figures, once; nullopt while it runs (or none was made). wait = true
  // blocks until it is done.
  std::optional<FrameStats> poll(bool wait = false);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace circles::lab
