// Per-stage GPU times from CUDA events, kept in a small ring of frames so that a live viewer can
// read the newest finished frame's times without waiting (cudaEventQuery), while a benchmark can
// wait for the last frame exactly.
#pragma once
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "kernels/cuda_raii.h"
#include "render/renderer.h"

namespace circles {

class StageTimer {
 public:
  // Starts a frame's slot (records its start event) unless one is already open.
  void open(cudaStream_t s) {
    if (open_) return;
    current_ = (current_ + 1) % kSlots;
    Slot& slot = slots_[current_];
    slot.names.clear();
    slot.closed = false;
    event(slot, 0).record(s);
    open_ = true;
  }
  // Records the end of stage `name` (which began where the previous stage ended). A stage marked
  // again right after itself (advance() called many times before a render) is extended, so a
  // slot holds at most one entry per stage run.
  void mark(const char* name, cudaStream_t s) {
    open(s);
    Slot& slot = slots_[current_];
    if (slot.names.empty() || slot.names.back() != name) slot.names.emplace_back(name);
    event(slot, slot.names.size()).record(s);
  }
  void close() {
    if (!open_) return;
    slots_[current_].closed = true;
    open_ = false;
  }
  void reset() {
    for (Slot& slot : slots_) slot.closed = false;
    open_ = false;
  }
  std::vector<StageTiming> read(bool wait) const {
    for (int k = 0; k < kSlots; ++k) {
      const Slot& slot = slots_[(current_ - k + kSlots) % kSlots];
      if (!slot.closed || slot.names.empty()) continue;
      const CudaEvent& last = *slot.events[slot.names.size()];
      if (!wait) {
        const cudaError_t q = cudaEventQuery(last.get());
        if (q == cudaErrorNotReady) continue;  // try an older frame
        CUDA_CHECK(q);
      }
      // A stage that ran more than once in the frame (a renderer that bins in chunks) is one
      // entry, the sum of its runs, where it first ran.
      std::vector<StageTiming> out;
      for (std::size_t i = 0; i < slot.names.size(); ++i) {
        const double ms = slot.events[i + 1]->since(*slot.events[i]);
        auto same = std::find_if(out.begin(), out.end(), [&](const StageTiming& t) { return t.stage == slot.names[i]; });
        if (same == out.end()) out.push_back({slot.names[i], ms});
        else same->ms += ms;
      }
      return out;
    }
    return {};
  }

 private:
  static constexpr int kSlots = 4;
  struct Slot {
    std::vector<std::string> names;
    std::vector<std::unique_ptr<CudaEvent>> events;  // events[0] = start, events[i] = end of stage i-1
    bool closed = false;
  };
  static CudaEvent& event(Slot& slot, std::size_t i) {
    while (slot.events.size() <= i) slot.events.push_back(std::make_unique<CudaEvent>());
    return *slot.events[i];
  }
  Slot slots_[kSlots];
  int current_ = 0;
  bool open_ = false;
};

}  // namespace circles
