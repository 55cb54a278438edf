// The sixteenth session: the fourteenth session's layouts.cpp (docs/bench/shade14/sim/) with three layouts added: 8x4 boxes, two columns a lane (a row group of four lanes), eight row groups a warp in 8x32, 16x16 or 32x8 (54 instructions a visit; their slots/blend column counts a pass as 128 pixel slots, not 256: read only the walk instructions).
// The fourteenth session's estimate of the row groups' walk under other layouts (random circles
// of the scene's radii and density around one 32x32 tile at a time): a row group's box is bw x bh
// pixels, a warp's wx x wy; a group of 32 staged circles takes each warp its busiest row group's
// visits; a visit costs `instr` warp instructions (32 measured for 8x4 boxes, four pixels a lane;
// 53 and 52 estimated for eight pixels a lane: the pick 7, four loads, dx 2 (4 for two columns),
// eight compares, 32 blends). slots/blend: pixel slots a pass walks per blend; tests/blend: pixels
// of the visited boxes per blend (the bench's counters read 1.26 for stress10M at 4K, 1.58 rand1M).
#include <cstdio>
#include <random>
#include <vector>
#include <algorithm>
#include <cstdlib>
struct L { const char* name; int bw, bh, wx, wy, instr; };
int main(int argc, char** argv) {
  double rmin = atof(argv[1]), rmax = atof(argv[2]), rho = atof(argv[3]); int ntiles = atoi(argv[4]);
  const int T = 32;
  std::vector<L> ls = {{"8x4 in 8x16 (now)", 8, 4, 8, 16, 32}, {"8x8 in 16x16", 8, 8, 16, 16, 53}, {"8x8 in 8x32", 8, 8, 8, 32, 53},
                       {"8x8 in 32x8", 8, 8, 32, 8, 53}, {"16x4 in 16x16", 16, 4, 16, 16, 52},
                       {"8x4 in 16x8", 8, 4, 16, 8, 32}, {"8x4 in 8x32 2col", 8, 4, 8, 32, 54}, {"8x4 in 16x16 2col", 8, 4, 16, 16, 54}, {"8x4 in 32x8 2col", 8, 4, 32, 8, 54}};
  std::mt19937_64 g(1);
  std::vector<double> instr(ls.size()), slots(ls.size()), tests(ls.size());
  double blends = 0;
  for (int t = 0; t < ntiles; ++t) {
    double m = rmax + 2, W = T + 2 * m;
    std::poisson_distribution<int> P(rho * W * W);
    int n = P(g);
    std::uniform_real_distribution<double> U(-m, T + m), R(rmin, rmax);
    std::vector<float> X, Y, RR;
    auto touch = [](float x, float y, float r, float x0, float x1, float y0, float y1) {
      float dx = x - std::clamp(x, x0, x1), dy = y - std::clamp(y, y0, y1); return dx * dx + dy * dy <= r * r; };
    for (int i = 0; i < n; ++i) {
      float x = U(g), y = U(g), r = R(g);
      if (touch(x, y, r, .5f, T - .5f, .5f, T - .5f)) { X.push_back(x); Y.push_back(y); RR.push_back(r); }
    }
    n = X.size();
    for (int i = 0; i < n; ++i)
      for (int py = 0; py < T; ++py) for (int px = 0; px < T; ++px) {
        float dx = px + .5f - X[i], dy = py + .5f - Y[i]; blends += dx * dx + dy * dy <= RR[i] * RR[i];
      }
    for (size_t k = 0; k < ls.size(); ++k) {
      const L& l = ls[k];
      int nbx = T / l.bw, nby = T / l.bh;
      long long passes = 0;
      for (int g0 = 0; g0 < n; g0 += 32) {
        std::vector<int> cnt(nbx * nby, 0);
        for (int i = g0; i < std::min(n, g0 + 32); ++i)
          for (int by = 0; by < nby; ++by) for (int bx = 0; bx < nbx; ++bx)
            { bool h = touch(X[i], Y[i], RR[i], bx * l.bw + .5f, bx * l.bw + l.bw - .5f, by * l.bh + .5f, by * l.bh + l.bh - .5f); cnt[by * nbx + bx] += h; tests[k] += h * l.bw * l.bh; }
        for (int wy = 0; wy < T / l.wy; ++wy) for (int wx = 0; wx < T / l.wx; ++wx) {
          int mx = 0;
          for (int by = wy * l.wy / l.bh; by < (wy + 1) * l.wy / l.bh; ++by)
            for (int bx = wx * l.wx / l.bw; bx < (wx + 1) * l.wx / l.bw; ++bx) mx = std::max(mx, cnt[by * nbx + bx]);
          passes += mx;
        }
      }
      instr[k] += passes * l.instr; slots[k] += passes * 32.0 * (l.bw * l.bh / 8);
    }
  }
  for (size_t k = 0; k < ls.size(); ++k)
    printf("%-20s walk instr/tile %9.0f (%.3f of now)  slots/blend %.2f tests/blend %.2f\n", ls[k].name, instr[k] / ntiles, instr[k] / instr[0], slots[k] / blends, tests[k] / blends);
}
