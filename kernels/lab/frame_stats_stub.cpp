// FrameReducer in a build without CUDA: it never runs (the viewer greys its panel out).
#include "kernels/lab/frame_stats.h"

namespace circles::lab {

struct FrameReducer::Impl {};
FrameReducer::FrameReducer() = default;
FrameReducer::~FrameReducer() = default;
bool FrameReducer::enqueue(LaunchFn, int, const void*, int, int, const Background&, void*) { return false; }
std::optional<FrameStats> FrameReducer::poll(bool) { return std::nullopt; }

}  // namespace circles::lab
