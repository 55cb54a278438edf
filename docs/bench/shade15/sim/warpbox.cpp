// Warp-level boxes (no row groups) with box-covering runs composed in the walk: the entry type is
// the same for the whole warp, so no divergence. Cost: full circle 14 (pick, loads, compose),
// partial 32, flush before a partial after a run 21.
#include <cstdio>
#include <random>
#include <vector>
#include <algorithm>
#include <cstdlib>
#include <cmath>
int main(int argc, char** argv) {
  double rmin = atof(argv[1]), rmax = atof(argv[2]), rho = atof(argv[3]); int ntiles = atoi(argv[4]);
  int bw = atoi(argv[5]), bh = atoi(argv[6]);
  double CF = 14, CP = 32, CFL = 21;
  const int T = 32;
  std::mt19937_64 g(1);
  double cost = 0, visits = 0, fulls = 0;
  for (int t = 0; t < ntiles; ++t) {
    double m = rmax + 2, W = T + 2 * m;
    std::poisson_distribution<int> Pn(rho * W * W);
    int n = Pn(g);
    std::uniform_real_distribution<double> U(-m, T + m), R(rmin, rmax);
    auto touch = [](float x, float y, float r, float x0, float x1, float y0, float y1) {
      float dx = x - std::clamp(x, x0, x1), dy = y - std::clamp(y, y0, y1); return dx * dx + dy * dy <= r * r; };
    auto full = [](float x, float y, float r, float x0, float x1, float y0, float y1) {
      float dx = std::max(std::fabs(x - x0), std::fabs(x - x1)), dy = std::max(std::fabs(y - y0), std::fabs(y - y1));
      return dx * dx + dy * dy <= r * r * 0.999f; };
    std::vector<float> X, Y, RR;
    for (int i = 0; i < n; ++i) {
      float x = U(g), y = U(g), r = R(g);
      if (touch(x, y, r, .5f, T - .5f, .5f, T - .5f)) { X.push_back(x); Y.push_back(y); RR.push_back(r); }
    }
    n = X.size();
    for (int by = 0; by < T / bh; ++by) for (int bx = 0; bx < T / bw; ++bx) {
      float x0 = bx * bw + .5f, x1 = bx * bw + bw - .5f, y0 = by * bh + .5f, y1 = by * bh + bh - .5f;
      bool pending = false;
      for (int i = 0; i < n; ++i) {
        if (full(X[i], Y[i], RR[i], x0, x1, y0, y1)) { cost += CF; pending = true; visits++; fulls++; }
        else if (touch(X[i], Y[i], RR[i], x0, x1, y0, y1)) { cost += CP + (pending ? CFL : 0); pending = false; visits++; }
      }
      if (pending) cost += CFL;
    }
  }
  // warps per tile = (T/bw)*(T/bh); per-warp pixels = bw*bh = 128
  printf("box %dx%d: cost/tile %.0f (vs 815748 now at 4K / 202624 rand1M), visits/tile %.0f, full share %.3f\n", bw, bh, cost / ntiles, visits / ntiles, fulls / visits);
}
