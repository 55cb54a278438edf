// A progress line for long work (renders of many frames or large sizes, seeking far into an
// animation, benchmarks): one line on stderr, redrawn in place, with the share done, the time
// spent and an estimate of the time left. Shown only when stderr is a terminal and CI is not set
// (never in logs or pipes); CIRCLES_PROGRESS=1 forces it on (tests), CIRCLES_PROGRESS=0 off.
// Work that ends within half a second prints nothing.
#pragma once
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace circles {

// Whether progress lines are shown in this process (decided once, from the environment).
bool progress_enabled();

class Progress {
 public:
  // `task` names the work ("render stress10M"); `total` is in units (frames, pairs), >= 1.
  Progress(std::string task, double total);
  ~Progress();  // erases the line
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // `done` units are complete; `detail` says what is under way ("frame 12"). Redraws at most
  // ten times a second.
  void update(double done, const std::string& detail = {});
  // Another phase of the same work (e.g. seeking before rendering), with its own total.
  void restart(std::string task, double total);
  // Prints `line` (and a newline) on stderr above the progress line, which is redrawn later.
  void message(const std::string& line);
  // progress_within() is ignored: the units are not the renderers' frames (a benchmark's pairs).
  void ignore_within() { takes_within_ = false; }
  // Erases the line (before printing on stdout, which shares the terminal); redrawn later.
  void clear();

 private:
  friend void progress_within(double fraction);
  void draw(bool force);
  void erase();

  std::mutex mutex_;
  std::string task_, detail_;
  double total_ = 1, done_ = 0, within_ = 0;
  std::chrono::steady_clock::time_point start_, last_draw_;
  bool shown_ = false;
  bool takes_within_ = true;
  Progress* outer_ = nullptr;  // the line this one replaced, restored when it ends
};

// Long loops inside one unit (a CPU renderer drawing one frame) report the share of that unit
// they have done, 0..1; cheap, thread-safe, and a no-op when no progress line is active.
void progress_within(double fraction);

}  // namespace circles
