// The fifteenth session: the row groups walk with runs of box-covering circles composed in the walk
// (a pending map a row group; a pass of the four row groups pays every path one of them takes: C
// common, F compose, P a partly covering circle, FL the flush before it). Circles as layouts.cpp (shade14/sim).
// Simulate the row groups' walk with box-covering runs composed per row group.
#include <cstdio>
#include <random>
#include <vector>
#include <algorithm>
#include <cstdlib>
int main(int argc, char** argv) {
  double rmin = atof(argv[1]), rmax = atof(argv[2]), rho = atof(argv[3]); int ntiles = atoi(argv[4]);
  double C = argc > 5 ? atof(argv[5]) : 10;   // common cost of a visit in the compose design
  double F = argc > 6 ? atof(argv[6]) : 5;    // compose
  double P = argc > 7 ? atof(argv[7]) : 24;   // partial: lim load, dx, cmp, blends
  double FL = argc > 8 ? atof(argv[8]) : 20;  // flush + reset
  const int T = 32, bw = 8, bh = 4;
  std::mt19937_64 g(1);
  double base = 0, comp = 0, comp2 = 0, visits = 0, fullv = 0, nvis = 0, flushes = 0;
  for (int t = 0; t < ntiles; ++t) {
    double m = rmax + 2, W = T + 2 * m;
    std::poisson_distribution<int> Pn(rho * W * W);
    int n = Pn(g);
    std::uniform_real_distribution<double> U(-m, T + m), R(rmin, rmax);
    std::vector<float> X, Y, RR;
    auto touch = [](float x, float y, float r, float x0, float x1, float y0, float y1) {
      float dx = x - std::clamp(x, x0, x1), dy = y - std::clamp(y, y0, y1); return dx * dx + dy * dy <= r * r; };
    auto full = [](float x, float y, float r, float x0, float x1, float y0, float y1) {
      float dx = std::max(std::fabs(x - x0), std::fabs(x - x1)), dy = std::max(std::fabs(y - y0), std::fabs(y - y1));
      return dx * dx + dy * dy <= r * r; };
    for (int i = 0; i < n; ++i) {
      float x = U(g), y = U(g), r = R(g);
      if (touch(x, y, r, .5f, T - .5f, .5f, T - .5f)) { X.push_back(x); Y.push_back(y); RR.push_back(r); }
    }
    n = X.size();
    // per box: sequence of types (1 partial, 2 full) per group of 32
    const int nb = (T / bw) * (T / bh);
    std::vector<int> pending(nb, 0);
    for (int g0 = 0; g0 < n; g0 += 32) {
      std::vector<std::vector<int>> seq(nb);
      for (int i = g0; i < std::min(n, g0 + 32); ++i)
        for (int b = 0; b < nb; ++b) {
          int bx = b % (T / bw), by = b / (T / bw);
          float x0 = bx * bw + .5f, x1 = bx * bw + bw - .5f, y0 = by * bh + .5f, y1 = by * bh + bh - .5f;
          if (full(X[i], Y[i], RR[i], x0, x1, y0, y1)) seq[b].push_back(2);
          else if (touch(X[i], Y[i], RR[i], x0, x1, y0, y1)) seq[b].push_back(1);
        }
      // warps: 8 cols x 16 rows = boxes (bx, 4 consecutive by)
      for (int wx = 0; wx < 4; ++wx) for (int wy = 0; wy < 2; ++wy) {
        int bs[4]; for (int k = 0; k < 4; ++k) bs[k] = (wy * 4 + k) * 4 + wx;
        size_t mx = 0; for (int k = 0; k < 4; ++k) mx = std::max(mx, seq[bs[k]].size());
        base += 32.0 * mx; nvis += mx;
        for (size_t j = 0; j < mx; ++j) {
          bool anyF = false, anyP = false, anyFl = false;
          for (int k = 0; k < 4; ++k) {
            if (j >= seq[bs[k]].size()) continue;
            int ty = seq[bs[k]][j];
            visits++;
            if (ty == 2) { anyF = true; pending[bs[k]] = 1; fullv++; }
            else { anyP = true; if (pending[bs[k]]) { anyFl = true; flushes++; } pending[bs[k]] = 0; }
          }
          comp += C + (anyF ? F : 0) + (anyP ? P : 0) + (anyFl ? FL : 0);
          // branch-free alternative: always flush in partial path
          comp2 += C + (anyF ? F : 0) + (anyP ? P + FL : 0);
        }
      }
    }
    for (int b = 0; b < nb; ++b) if (pending[b]) { comp += FL / 4; comp2 += FL / 4; }
  }
  printf("visits per row group %.0f, full share %.3f, flushes per full %.3f\n", visits / ntiles, fullv / visits, flushes / fullv);
  printf("base walk %.0f/tile; compose %.0f (%.3f); compose always-flush %.0f (%.3f)\n", base / ntiles, comp / ntiles, comp / base, comp2 / ntiles, comp2 / base);
}
