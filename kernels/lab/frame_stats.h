// The lab's reductions on the live frame (its debug kernels): a chosen reduce_sum variant
// sums the frame's channels and a "touched" plane, giving the mean colour and the coverage (pixels
// whose colour is not the background's). FrameStats and its CPU reference build without CUDA;
// FrameReducer (CUDA) enqueues behind the frame's render and is read without a host wait.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

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

// The Check's difference statistics between a renderer's frame and cpu-ref's, per channel: the
// largest |a - b| and the sum of |a - b| (each |a - b| formed in float, as the GPU forms it).
struct DiffStats {
  double max_abs[4] = {0, 0, 0, 0};
  double sum_abs[4] = {0, 0, 0, 0};
  double ms = 0;  // GPU time of the difference planes, the sums and the maxima (CUDA events)
};
// The reference, summed in double. The images must have the same size.
DiffStats diff_stats_cpu(const Image& a, const Image& b);
// Maxima exactly equal; sums within `rel` relative (or 1e-6 absolute).
bool diff_stats_agree(const DiffStats& gpu, const DiffStats& cpu, double rel = 1e-4);
// On the GPU, waiting for the result: both images uploaded, |a - b| per channel into four f32
// planes, `sum` (a lab reduce_sum variant taking f32, knob `param`) over each for the sums, and a
// max reduction (a warp-shuffle kernel of this file: the lab's ladder has no max) for the maxima.
// Throws CudaError on a CUDA failure (std::runtime_error in a build without CUDA).
DiffStats diff_stats_gpu(const Image& a, const Image& b, LaunchFn sum, int param);

// The lab's transpose on the live frame: the frame's colour planes transposed by a chosen
// transpose variant and shown as a debug view, the picture mirrored along its diagonal (pixel
// (i, j) of the view is pixel (j, i) of the frame; row 0 at the bottom). Like FrameReducer it is
// enqueued behind the render, read without a host wait, and makes its CUDA resources lazily.
struct TransposedFrame {
  std::vector<std::uint8_t> rgba8;  // width x height texels, bottom row first (a texture's order)
  int width = 0, height = 0;        // the frame's height and width, swapped
  double ms = 0;                    // GPU time of the variant's four transposes (CUDA events)
};

class FrameTransposer {
 public:
  FrameTransposer();
  ~FrameTransposer();
  // Enqueues on `stream`: four f32 planes from the float4 image (width x height), `launch` (a
  // transpose variant, its knob `param`) over each, the planes interleaved back into a float4
  // image of height x width and converted to 8-bit texels (to_byte, as PNG files), copied to
  // pinned host memory, and an event. Returns false (enqueuing nothing) while the previous
  // request still runs.
  bool enqueue(LaunchFn launch, int param, const void* image, int width, int height, void* stream);
  // The finished request, once; nullopt while it runs (or none was made). wait = true blocks.
  std::optional<TransposedFrame> poll(bool wait = false);
  // The last finished request's float image (waits for it): what the checks compare.
  void read_image(Image* out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The reference: `img` mirrored along its diagonal (out.at(i, j) == img.at(j, i)).
Image transpose_cpu(const Image& img);

}  // namespace circles::lab
