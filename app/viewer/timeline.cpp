// The viewer's timeline (timeline.h).
#include "app/viewer/timeline.h"

#include <glad/gl.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "app/gl/gl_util.h"
#include "app/gl/interop.h"

namespace circles {

void Timeline::start(void* cuda_stream) {
  glFinish();
  std::string why;
  if (cuda_stream) origin_ = record_origin_event(cuda_stream, &why);  // waits for it
  GLint64 ns = 0;
  glGetInteger64v(GL_TIMESTAMP, &ns);
  GL_CHECK("GL_TIMESTAMP");
  host0_ = Clock::now();
  gl0_ms_ = static_cast<double>(ns) * 1e-6;
  started_ = true;
}

void Timeline::host(std::string_view name, Clock::time_point a, Clock::time_point b) {
  if (!started_) return;
  const auto ms = [&](Clock::time_point t) { return std::chrono::duration<double, std::milli>(t - host0_).count(); };
  spans_.push_back({"host", std::string(name), ms(a), ms(b)});
}

void Timeline::cuda(const std::vector<TimedSpan>& spans, std::string (*name_of)(const std::string&)) {
  if (!started_) return;
  for (const TimedSpan& s : spans) spans_.push_back({"cuda", name_of(s.stage), s.t0, s.t1});
}

void Timeline::gl(const std::string& name, const std::vector<std::pair<double, double>>& spans_ms) {
  if (!started_) return;
  for (const auto& [a, b] : spans_ms) spans_.push_back({"gl", name, a - gl0_ms_, b - gl0_ms_});
}

namespace {
std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out += c;
  }
  return out + "\"";
}
}  // namespace

void Timeline::write(const std::string& path, const std::string& about) const {
  std::ofstream f(path);
  if (!f) throw std::runtime_error("--timeline " + path + ": cannot write the file");
  f << "{\"about\": " << json_string(about) << ",\n \"unit\": \"ms since the clocks were tied\",\n \"spans\": [";
  char buf[64];
  for (std::size_t i = 0; i < spans_.size(); ++i) {
    const Span& s = spans_[i];
    std::snprintf(buf, sizeof buf, "%.4f, \"t1\": %.4f}", s.t0, s.t1);
    f << (i ? ",\n  " : "\n  ") << "{\"lane\": " << json_string(s.lane) << ", \"name\": " << json_string(s.name)
      << ", \"t0\": " << buf;
  }
  f << "\n ]}\n";
  if (!f) throw std::runtime_error("--timeline " + path + ": writing failed");
}

}  // namespace circles
