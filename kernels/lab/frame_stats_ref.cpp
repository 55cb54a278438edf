#include <algorithm>
#include <cmath>

#include "kernels/lab/frame_stats.h"
#include "render/raster.h"

namespace circles::lab {

FrameStats frame_stats_cpu(const Image& img, const Background& bg) {
  FrameStats s;
  double sum[4] = {0, 0, 0, 0};
  for (int j = 0; j < img.height; ++j) {
    const Float4 b = background_at(bg, j, img.height);
    for (int i = 0; i < img.width; ++i) {
      const Float4& p = img.at(i, j);
      sum[0] += p.x, sum[1] += p.y, sum[2] += p.z, sum[3] += p.w;
      s.touched += (p.x != b.x || p.y != b.y || p.z != b.z || p.w != b.w) ? 1 : 0;
    }
  }
  s.pixels = static_cast<double>(img.width) * img.height;
  for (int c = 0; c < 4; ++c) s.mean[c] = s.pixels > 0 ? sum[c] / s.pixels : 0;
  return s;
}

bool frame_stats_agree(const FrameStats& a, const FrameStats& b, double rel) {
  if (a.pixels != b.pixels || a.touched != b.touched) return false;
  for (int c = 0; c < 4; ++c)
    if (std::fabs(a.mean[c] - b.mean[c]) > std::max(1e-6, rel * std::fabs(b.mean[c]))) return false;
  return true;
}

DiffStats diff_stats_cpu(const Image& a, const Image& b) {
  DiffStats d;
  for (std::size_t k = 0; k < a.pixels.size() && k < b.pixels.size(); ++k) {
    const Float4& p = a.pixels[k];
    const Float4& q = b.pixels[k];
    const float v[4] = {std::fabs(p.x - q.x), std::fabs(p.y - q.y), std::fabs(p.z - q.z), std::fabs(p.w - q.w)};
    for (int c = 0; c < 4; ++c) {
      d.max_abs[c] = std::max(d.max_abs[c], static_cast<double>(v[c]));
      d.sum_abs[c] += v[c];
    }
  }
  return d;
}

bool diff_stats_agree(const DiffStats& gpu, const DiffStats& cpu, double rel) {
  for (int c = 0; c < 4; ++c) {
    if (gpu.max_abs[c] != cpu.max_abs[c]) return false;
    if (std::fabs(gpu.sum_abs[c] - cpu.sum_abs[c]) > std::max(1e-6, rel * std::fabs(cpu.sum_abs[c]))) return false;
  }
  return true;
}

Image transpose_cpu(const Image& img) {
  Image out(img.height, img.width);
  for (int j = 0; j < img.height; ++j)
    for (int i = 0; i < img.width; ++i) out.at(j, i) = img.at(i, j);
  return out;
}

}  // namespace circles::lab
