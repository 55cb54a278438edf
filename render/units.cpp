#include "render/units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace circles {

std::string memory_text(double bytes) {
  const double mib = 1024.0 * 1024;
  char buf[64];
  if (bytes >= 1024 * mib) std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / (1024 * mib));
  else std::snprintf(buf, sizeof buf, "%.0f MiB", std::max(1.0, std::ceil(bytes / mib)));
  return buf;
}

}  // namespace circles
