#include "render/progress.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace circles {

namespace {

using Clock = std::chrono::steady_clock;
constexpr double kQuietSeconds = 0.5;  // work shorter than this prints nothing
constexpr double kRedrawSeconds = 0.1;

std::atomic<Progress*> g_active{nullptr};
std::atomic<std::int64_t> g_next_draw_ns{0};  // progress_within() redraws no earlier than this

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

std::string duration_text(double s) {
  char buf[64];
  if (!std::isfinite(s) || s > 365.0 * 86400) return "years";
  if (s < 60) std::snprintf(buf, sizeof buf, "%.0f s", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%d min %02d s", static_cast<int>(s / 60), static_cast<int>(s) % 60);
  else if (s < 86400) std::snprintf(buf, sizeof buf, "%d h %02d min", static_cast<int>(s / 3600), static_cast<int>(s / 60) % 60);
  else std::snprintf(buf, sizeof buf, "%.0f days", s / 86400);
  return buf;
}

}  // namespace

bool progress_enabled() {
  static const bool on = [] {
    if (const char* force = std::getenv("CIRCLES_PROGRESS"); force && *force)
      return std::strcmp(force, "0") != 0;
    const char* ci = std::getenv("CI");
    if (ci && *ci && std::strcmp(ci, "0") != 0 && std::strcmp(ci, "false") != 0) return false;
    return ::isatty(STDERR_FILENO) == 1;
  }();
  return on;
}

Progress::Progress(std::string task, double total)
    : task_(std::move(task)), total_(std::max(1.0, total)), start_(Clock::now()) {
  if (progress_enabled()) outer_ = g_active.exchange(this);
}

Progress::~Progress() {
  if (!progress_enabled()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    erase();
  }
  g_active.store(outer_);
}

void Progress::restart(std::string task, double total) {
  std::lock_guard<std::mutex> lock(mutex_);
  task_ = std::move(task);
  total_ = std::max(1.0, total);
  done_ = within_ = 0;
  detail_.clear();
  start_ = Clock::now();
}

void Progress::update(double done, const std::string& detail) {
  if (!progress_enabled()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  done_ = done;
  within_ = 0;
  detail_ = detail;
  draw(false);
}

void Progress::message(const std::string& line) {
  std::lock_guard<std::mutex> lock(mutex_);
  erase();
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

void Progress::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  erase();
}

void Progress::erase() {
  if (!shown_) return;
  std::fputs("\r\x1b[K", stderr);
  std::fflush(stderr);
  shown_ = false;
}

void Progress::draw(bool force) {
  const auto now = Clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (!force && (elapsed < kQuietSeconds ||
                 std::chrono::duration<double>(now - last_draw_).count() < kRedrawSeconds))
    return;
  last_draw_ = now;
  g_next_draw_ns.store(now_ns() + static_cast<std::int64_t>(kRedrawSeconds * 1e9), std::memory_order_relaxed);
  const double share = std::clamp((done_ + within_) / total_, 0.0, 1.0);
  std::string line = task_;
  if (!detail_.empty()) line += ": " + detail_;
  char buf[128];
  std::snprintf(buf, sizeof buf, "  %.1f%%  %s", 100 * share, duration_text(elapsed).c_str());
  line += buf;
  if (share > 0.001) line += ", about " + duration_text(elapsed * (1 - share) / share) + " left";
  line += "  (Ctrl-C stops)";
  std::fprintf(stderr, "\r%s\x1b[K", line.c_str());
  std::fflush(stderr);
  shown_ = true;
}

void progress_within(double fraction) {
  Progress* p = g_active.load(std::memory_order_acquire);
  if (!p || now_ns() < g_next_draw_ns.load(std::memory_order_relaxed)) return;
  std::unique_lock<std::mutex> lock(p->mutex_, std::try_to_lock);
  if (!lock.owns_lock() || !p->takes_within_) return;
  p->within_ = std::clamp(fraction, 0.0, 1.0);
  p->draw(false);
}

}  // namespace circles
