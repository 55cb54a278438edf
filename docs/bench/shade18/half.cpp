// Error of accumulating the colour in fp16 (R, G and B as half, one half FMA each: c*keep + a*col,
// the premultiplied colour rounded to half), the alpha channel in fp32, against cpu-ref's fp32
// blend, on a window of stress10M at 3840x2160.
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cmath>
#include "render/builtin_scenes.h"
#include "render/raster.h"
using namespace circles;
static inline _Float16 hfma(_Float16 a, _Float16 b, _Float16 c) {
  return (_Float16)((double)a * (double)b + (double)c);  // exact in double, then one rounding
}
int main(int argc, char** argv) {
  int W = 3840, H = 2160, X0 = atoi(argv[1]), Y0 = atoi(argv[2]), N = atoi(argv[3]);
  Scene s = make_builtin_scene("stress10M");
  View v = make_view(W, H);
  std::vector<std::vector<unsigned>> rows(N);  // circles whose bbox meets each window row, in order
  for (unsigned k = 0; k < s.circles.size(); ++k) {
    const Circle& c = s.circles[k];
    float cy = c.y * v.scale + v.off_y, cx = c.x * v.scale + v.off_x, rp = c.radius * v.scale + 2;
    if (cx + rp < X0 || cx - rp > X0 + N) continue;
    int j0 = std::max(0, (int)floorf(cy - rp) - Y0), j1 = std::min(N - 1, (int)ceilf(cy + rp) - Y0);
    for (int j = j0; j <= j1; ++j) rows[j].push_back(k);
  }
  long long px = 0, flips[4] = {0, 0, 0, 0}; double maxd[4] = {0, 0, 0, 0}, sumd2[4] = {0, 0, 0, 0};
  long long blends = 0;
#pragma omp parallel for schedule(dynamic) reduction(+:px,blends) reduction(max:maxd[:4]) reduction(+:flips[:4],sumd2[:4])
  for (int j = 0; j < N; ++j) {
    const float py = v.pixel_y(Y0 + j);
    const Float4 bg = background_at(s.background, Y0 + j, H);
    for (int i = 0; i < N; ++i) {
      const float pxc = v.pixel_x(X0 + i);
      Float4 ref = bg;
      _Float16 h[3] = {(_Float16)bg.x, (_Float16)bg.y, (_Float16)bg.z};
      for (unsigned k : rows[j]) {
        const Circle& c = s.circles[k];
        if (!blend_circle(s.shading, pxc, py, c.x, c.y, c.z, c.radius, c.r, c.g, c.b, c.a, &ref)) continue;
        ++blends;
        const _Float16 keep = (_Float16)(1.f - c.a);
        h[0] = hfma(h[0], keep, (_Float16)(c.a * c.r));
        h[1] = hfma(h[1], keep, (_Float16)(c.a * c.g));
        h[2] = hfma(h[2], keep, (_Float16)(c.a * c.b));
      }
      const float r[3] = {ref.x, ref.y, ref.z};
      ++px;
      for (int q = 0; q < 3; ++q) {
        const double d = std::fabs((double)(float)h[q] - r[q]);
        maxd[q] = std::max(maxd[q], d);
        sumd2[q] += d * d;
        flips[q] += to_byte((float)h[q]) != to_byte(r[q]);
      }
    }
  }
  printf("window %d,%d %dx%d: %lld pixels, %.1f blends a pixel\n", X0, Y0, N, N, px, (double)blends / px);
  for (int q = 0; q < 3; ++q)
    printf("channel %c: max |diff| %.3g, rms %.3g, 8-bit values that differ %.2f%%\n", "rgb"[q], maxd[q],
           std::sqrt(sumd2[q] / px), 100.0 * flips[q] / px);
}
