// The fifteenth session: runs of box-covering circles composed at staging into one entry of the
// box list (a warp a group of 32 circles); the walk then visits entries; cost of composing per circle as argv[5].
// Staging-time composition: per box per group of 32, runs of consecutive full circles become one entry.
#include <cstdio>
#include <random>
#include <vector>
#include <algorithm>
#include <cstdlib>
#include <cmath>
int main(int argc, char** argv) {
  double rmin = atof(argv[1]), rmax = atof(argv[2]), rho = atof(argv[3]); int ntiles = atoi(argv[4]);
  double compose_per_circle = argc > 5 ? atof(argv[5]) : 20; // warp instr per circle of a group (one warp per group)
  const int T = 32, bw = 8, bh = 4;
  std::mt19937_64 g(1);
  double base = 0, comp = 0, cost = 0, groups = 0, cross = 0;
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
      return dx * dx + dy * dy <= r * r * 0.999f; };
    for (int i = 0; i < n; ++i) {
      float x = U(g), y = U(g), r = R(g);
      if (touch(x, y, r, .5f, T - .5f, .5f, T - .5f)) { X.push_back(x); Y.push_back(y); RR.push_back(r); }
    }
    n = X.size();
    const int nb = (T / bw) * (T / bh);
    for (int g0 = 0; g0 < n; g0 += 32) {
      groups++;
      std::vector<int> nv(nb, 0), ne(nb, 0);
      for (int b = 0; b < nb; ++b) {
        int bx = b % (T / bw), by = b / (T / bw);
        float x0 = bx * bw + .5f, x1 = bx * bw + bw - .5f, y0 = by * bh + .5f, y1 = by * bh + bh - .5f;
        bool inrun = false;
        for (int i = g0; i < std::min(n, g0 + 32); ++i) {
          if (full(X[i], Y[i], RR[i], x0, x1, y0, y1)) { nv[b]++; if (!inrun) { ne[b]++; inrun = true; } }
          else if (touch(X[i], Y[i], RR[i], x0, x1, y0, y1)) { nv[b]++; ne[b]++; inrun = false; }
        }
      }
      for (int wx = 0; wx < 4; ++wx) for (int wy = 0; wy < 2; ++wy) {
        int mv = 0, me = 0;
        for (int k = 0; k < 4; ++k) { int b = (wy * 4 + k) * 4 + wx; mv = std::max(mv, nv[b]); me = std::max(me, ne[b]); }
        base += 32.0 * mv; comp += 32.0 * me;
      }
      cost += compose_per_circle * std::min(32, n - g0);
    }
  }
  printf("walk now %.0f/tile; with runs as entries %.0f (%.3f); composing %.0f (%.3f); net %.3f\n", base / ntiles, comp / ntiles, comp / base,
         cost / ntiles, cost / base, (comp + cost) / base);
}
