#include "app/common/args.h"

#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "render/scene.h"

namespace circles {

void parse_size(const std::string& text, int* width, int* height, int max_side, const std::string& beyond) {
  const std::size_t x = text.find_first_of("xX");
  auto number = [&](const std::string& s) {
    if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos)
      throw std::invalid_argument("bad size '" + text + "': expected WxH, e.g. 1024x768");
    return std::stoi(s);
  };
  if (x == std::string::npos)
    throw std::invalid_argument("bad size '" + text + "': expected WxH, e.g. 1024x768");
  const int w = number(text.substr(0, x)), h = number(text.substr(x + 1));
  if (w < 1 || h < 1 || w > max_side || h > max_side)
    throw std::invalid_argument("bad size '" + text + "': width and height must be 1.." + std::to_string(max_side) +
                                (beyond.empty() || (w < 1 || h < 1) ? "" : " (" + beyond + ")"));
  *width = w;
  *height = h;
}

// A frame number of --frames or --frame: digits, up to kMaxFrame (limit: the largest allowed, for
// the B of A:B one more). "" when `s` is one, else what is wrong with it.
std::string frame_number_error(const std::string& s, std::int64_t limit) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return "not a whole number";
  errno = 0;
  const unsigned long long v = std::strtoull(s.c_str(), nullptr, 10);
  if (errno == ERANGE || v > static_cast<unsigned long long>(limit))
    return "frames go up to " + std::to_string(kMaxFrame) + " (2^62, as in scene files)";
  return "";
}

void parse_frames(const std::string& text, std::int64_t* first, std::int64_t* last) {
  auto number = [&](const std::string& s, std::int64_t limit) -> std::int64_t {
    const std::string why = frame_number_error(s, limit);
    if (!why.empty())
      throw std::invalid_argument("bad frame range '" + text + "': expected A:B (frames A to B-1) or A, with 0 <= A < B: " +
                                  why);
    return std::stoll(s);
  };
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos) {
    *first = number(text, kMaxFrame);
    *last = *first + 1;
    return;
  }
  *first = number(text.substr(0, colon), kMaxFrame);
  *last = number(text.substr(colon + 1), kMaxFrame + 1);
  if (*last <= *first)
    throw std::invalid_argument("bad frame range '" + text + "': B must be greater than A");
}

std::string frame_path(const std::string& pattern, std::int64_t frame, bool several) {
  // A pattern holds exactly one %d, %Nd or %0Nd (and %% for a literal %); formatted here, never
  // handed to printf.
  std::string out;
  int conversions = 0;
  for (std::size_t k = 0; k < pattern.size(); ++k) {
    if (pattern[k] != '%') {
      out += pattern[k];
      continue;
    }
    if (k + 1 < pattern.size() && pattern[k + 1] == '%') {
      out += '%';
      ++k;
      continue;
    }
    std::size_t e = k + 1;
    const bool zero = e < pattern.size() && pattern[e] == '0';
    if (zero) ++e;
    int width = 0;
    while (e < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[e])) && width < 100)
      width = width * 10 + (pattern[e++] - '0');
    if (e >= pattern.size() || pattern[e] != 'd' || ++conversions > 1)
      throw std::invalid_argument("bad output pattern '" + pattern +
                                  "': use one %d, %4d or %04d for the frame number (and %% for %)");
    std::string num = std::to_string(frame);
    if (static_cast<int>(num.size()) < width) num.insert(0, width - num.size(), zero ? '0' : ' ');
    out += num;
    k = e;
  }
  if (conversions == 1) return out;
  if (!several) return out;
  const std::string& plain = out;
  char num[32];
  std::snprintf(num, sizeof num, "-%04" PRId64, frame);
  const std::size_t dot = plain.rfind('.');
  const std::size_t slash = plain.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return plain + num;
  return plain.substr(0, dot) + num + plain.substr(dot);
}

}  // namespace circles
