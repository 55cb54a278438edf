// Small statistics shared by every timing summary (the benchmark, the kernel lab, the viewer).
#pragma once
#include <algorithm>
#include <vector>

namespace circles {

// Median of `v` (0 for none).
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace circles
