// The viewer's timeline (--timeline FILE): every displayed frame's work as intervals on one clock,
// in three lanes: the host (each step of the loop, its waits, the whole loop), CUDA (the render's
// stages and the interop's, from the CUDA events the Timings panel reads) and GL (the frame's
// upload, present and UI draws, from GL_TIMESTAMP queries). The clocks are tied together once at
// the start: with the GPU idle, a CUDA event is recorded and waited for, and the GL timestamp and
// the host clock are read at that moment (GL_TIMESTAMP and CUDA events count the same GPU time;
// the tie is off by the host's wake-up, microseconds). Written as JSON when the viewer exits;
// scripts/plot_timeline.py draws it.
#pragma once
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "render/renderer.h"

namespace circles {

class Timeline {
 public:
  using Clock = std::chrono::steady_clock;
  // Ties the clocks (GL finished first; `stream` null or a CPU renderer: GL and host lanes only).
  void start(void* cuda_stream);
  bool started() const { return started_; }
  const void* origin_event() const { return origin_.get(); }  // null without CUDA
  // A host interval (the name is copied only while recording: the loop calls this every frame).
  void host(std::string_view name, Clock::time_point a, Clock::time_point b);
  // CUDA intervals, each named as `name_of` says (the Timings panel's names).
  void cuda(const std::vector<TimedSpan>& spans, std::string (*name_of)(const std::string&));
  void gl(const std::string& name, const std::vector<std::pair<double, double>>& spans_ms);
  // The JSON: {"about": ..., "spans": [{"lane", "name", "t0", "t1"} ...]}, ms since the tie.
  void write(const std::string& path, const std::string& about) const;

 private:
  struct Span {
    std::string lane, name;
    double t0, t1;
  };
  bool started_ = false;
  std::shared_ptr<void> origin_;  // the CUDA origin event (cudaEvent_t)
  double gl0_ms_ = 0;             // GL_TIMESTAMP at the tie
  Clock::time_point host0_;
  std::vector<Span> spans_;
};

}  // namespace circles
