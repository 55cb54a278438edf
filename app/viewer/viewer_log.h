// The viewer's clock and its lines on stderr ("viewer: ...", one line each; tests read them).
#pragma once
#include <chrono>

namespace circles::viewer_detail {

using Clock = std::chrono::steady_clock;
double ms_between(Clock::time_point a, Clock::time_point b);
void report(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace circles::viewer_detail
