// Per-stage GPU times from CUDA events, kept in a small ring of frames so that a live viewer can
// read the newest finished frame's times without waiting (cudaEventQuery), while a benchmark can
// wait for the last frame exactly. With stages off (set_stages(false)), a frame is timed whole,
// one entry "frame", and no event goes between two stages that follow each other at once
// (mark(..., then = true)): an event recorded between two kernels delays the second and stops
// it from starting early (kernels/cuda/dependent_launch.cuh).
#pragma once
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "kernels/cuda/raii.h"
#include "render/renderer.h"

namespace circles {

class StageTimer {
 public:
  // Whether the frames opened from now on are timed stage by stage (the default) or whole.
  void set_stages(bool on) { stages_ = on; }
  // Starts a frame's slot (records its start event) unless one is already open.
  void open(cudaStream_t s) {
    if (open_) return;
    current_ = (current_ + 1) % kSlots;
    Slot& slot = slots_[current_];
    slot.names.clear();
    slot.closed = false;
    slot.stages = stages_;
    slot.seq = ++seq_;
    event(slot, 0).record(s);
    open_ = true;
  }
  // Records the end of stage `name` (which began where the previous stage ended). A stage marked
  // again right after itself (advance() called many times before a render) is extended, so a
  // slot holds at most one entry per stage run. A frame timed whole records the end of its stages
  // as the frame's end, overwriting it, except where `then`: the caller's next stage follows at
  // once, so this cannot be the frame's last.
  void mark(const char* name, cudaStream_t s, bool then = false) {
    open(s);
    Slot& slot = slots_[current_];
    if (!slot.stages) {
      if (!then) end_whole(slot, s);
      return;
    }
    if (slot.names.empty() || slot.names.back() != name) slot.names.emplace_back(name);
    event(slot, slot.names.size()).record(s);
  }
  // Ends the frame's slot; a frame timed whole whose every stage went on into another (none
  // recorded its end) ends here, on stream s.
  void close(cudaStream_t s) {
    if (!open_) return;
    Slot& slot = slots_[current_];
    if (!slot.stages && slot.names.empty()) end_whole(slot, s);
    slot.closed = true;
    open_ = false;
  }
  void reset() {
    for (Slot& slot : slots_) slot.closed = false;
    open_ = false;
  }
  // Every closed frame whose events have completed and that is newer than *last (a frame
  // number this timer gave), oldest first: each stage as an interval in ms since `origin` (recorded
  // on the device before them). Never blocks; *last moves to the newest frame returned.
  std::vector<TimedSpan> spans_after(long long* last, cudaEvent_t origin) const {
    std::vector<const Slot*> ready;
    for (const Slot& slot : slots_) {
      if (!slot.closed || slot.names.empty() || slot.seq <= *last) continue;
      const cudaError_t q = cudaEventQuery(slot.events[slot.names.size()]->get());
      if (q == cudaErrorNotReady) continue;
      CUDA_CHECK(q);
      ready.push_back(&slot);
    }
    std::sort(ready.begin(), ready.end(), [](const Slot* a, const Slot* b) { return a->seq < b->seq; });
    std::vector<TimedSpan> out;
    for (const Slot* slot : ready) {
      float prev = 0;
      CUDA_CHECK(cudaEventElapsedTime(&prev, origin, slot->events[0]->get()));
      for (std::size_t i = 0; i < slot->names.size(); ++i) {
        float t = 0;
        CUDA_CHECK(cudaEventElapsedTime(&t, origin, slot->events[i + 1]->get()));
        out.push_back({slot->names[i], prev, t});
        prev = t;
      }
      *last = slot->seq;
    }
    return out;
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
    bool stages = true;  // timed stage by stage, or whole
    long long seq = 0;   // the frame's number (spans_after)
  };
  // A frame timed whole: its one entry, "frame", ends here (again, if a later stage ends it).
  static void end_whole(Slot& slot, cudaStream_t s) {
    if (slot.names.empty()) slot.names.emplace_back("frame");
    event(slot, 1).record(s);
  }
  static CudaEvent& event(Slot& slot, std::size_t i) {
    while (slot.events.size() <= i) slot.events.push_back(std::make_unique<CudaEvent>());
    return *slot.events[i];
  }
  Slot slots_[kSlots];
  int current_ = 0;
  long long seq_ = 0;
  bool open_ = false;
  bool stages_ = true;
};

}  // namespace circles
