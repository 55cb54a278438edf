// FrameReducer and FrameTransposer in a build without CUDA: it never runs (the viewer greys its panel out).
#include "kernels/lab/frame_stats.h"

#include <stdexcept>

namespace circles::lab {

struct FrameReducer::Impl {};
FrameReducer::FrameReducer() = default;
FrameReducer::~FrameReducer() = default;
bool FrameReducer::enqueue(LaunchFn, int, const void*, int, int, const Background&, void*) { return false; }
std::optional<FrameStats> FrameReducer::poll(bool) { return std::nullopt; }

DiffStats diff_stats_gpu(const Image&, const Image&, LaunchFn, int) {
  throw std::runtime_error("this build has no CUDA support");
}

struct FrameTransposer::Impl {};
FrameTransposer::FrameTransposer() = default;
FrameTransposer::~FrameTransposer() = default;
bool FrameTransposer::enqueue(LaunchFn, int, const void*, int, int, void*) { return false; }
std::optional<TransposedFrame> FrameTransposer::poll(bool) { return std::nullopt; }
void FrameTransposer::read_image(Image* out) { *out = Image(); }

}  // namespace circles::lab
