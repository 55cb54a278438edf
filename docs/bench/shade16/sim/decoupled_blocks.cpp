// Block time per batch (the slowest warp) for the eight-pixel walk: coupled (row groups wait at
// every group) or decoupled (per-box lists over the batch), boxes owned by 16x16 regions or
// interleaved.
#include <cstdio>
#include <random>
#include <vector>
#include <algorithm>
#include <cstdlib>
int main(int argc, char** argv) {
  double rmin = atof(argv[1]), rmax = atof(argv[2]), rho = atof(argv[3]); int ntiles = atoi(argv[4]);
  const int T = 32, nbx = 4, nby = 8, batch = 128;
  std::mt19937_64 g(1);
  double res[2][2] = {{0, 0}, {0, 0}}, mean[2][2] = {{0,0},{0,0}};
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
    for (int b0 = 0; b0 < n; b0 += batch) {
      std::vector<std::vector<int>> cnt;
      for (int g0 = b0; g0 < std::min(n, b0 + batch); g0 += 32) {
        std::vector<int> c(32, 0);
        for (int i = g0; i < std::min(n, g0 + 32); ++i)
          for (int by = 0; by < nby; ++by) for (int bx = 0; bx < nbx; ++bx)
            c[by * nbx + bx] += touch(X[i], Y[i], RR[i], bx * 8 + .5f, bx * 8 + 7.5f, by * 4 + .5f, by * 4 + 3.5f);
        cnt.push_back(c);
      }
      for (int L = 0; L < 2; ++L) for (int D = 0; D < 2; ++D) {
        double wmax = 0, wsum = 0;
        for (int w = 0; w < 4; ++w) {
          std::vector<int> boxes;
          for (int by = 0; by < nby; ++by) for (int bx = 0; bx < nbx; ++bx) {
            int o = L == 0 ? (bx >= 2) + 2 * (by >= 4) : (bx & 1) + 2 * (by & 1);
            if (o == w) boxes.push_back(by * nbx + bx);
          }
          double p = 0;
          if (D == 0) { for (auto& c : cnt) { int mx = 0; for (int b : boxes) mx = std::max(mx, c[b]); p += mx; } }
          else { for (int b : boxes) { int s = 0; for (auto& c : cnt) s += c[b]; p = std::max(p, (double)s); } }
          wmax = std::max(wmax, p); wsum += p;
        }
        res[L][D] += wmax; mean[L][D] += wsum / 4;
      }
    }
  }
  const char* ln[2] = {"16x16 regions", "interleaved"}; const char* dn[2] = {"coupled", "decoupled"};
  for (int L = 0; L < 2; ++L) for (int D = 0; D < 2; ++D)
    printf("%-14s %-9s block passes %.0f (%.3f of now), warp mean %.0f\n", ln[L], dn[D], res[L][D] / ntiles, res[L][D] / res[0][0], mean[L][D] / ntiles);
}
