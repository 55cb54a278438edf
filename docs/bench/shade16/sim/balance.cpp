// Block-level balance of the eight-pixel walk: per batch of 128 circles (4 groups), each warp's
// passes = sum over groups of the max over its 8 row groups; the block waits on its slowest warp.
#include <cstdio>
#include <random>
#include <vector>
#include <algorithm>
#include <cstdlib>
int main(int argc, char** argv) {
  double rmin = atof(argv[1]), rmax = atof(argv[2]), rho = atof(argv[3]); int ntiles = atoi(argv[4]);
  const int T = 32, nbx = 4, nby = 8;
  std::mt19937_64 g(1);
  // layouts: owner warp of box (bx, by)
  auto own_regions = [](int bx, int by) { return (bx >= 2) + 2 * (by >= 4); };
  auto own_inter = [](int bx, int by) { return (bx & 1) + 2 * (by & 1); };
  auto own_rows = [](int bx, int by) { return by & 3; };
  auto own_cols = [](int bx, int by) { return bx; };
  double sum_mean[4] = {0}, sum_max[4] = {0};
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
    for (int L = 0; L < 4; ++L) {
      auto own = [&](int bx, int by) { return L == 0 ? own_regions(bx, by) : L == 1 ? own_inter(bx, by) : L == 2 ? own_rows(bx, by) : own_cols(bx, by); };
      for (int b0 = 0; b0 < n; b0 += 128) {
        double wp[4] = {0};
        for (int g0 = b0; g0 < std::min(n, b0 + 128); g0 += 32) {
          int cnt[32] = {0};
          for (int i = g0; i < std::min(n, g0 + 32); ++i)
            for (int by = 0; by < nby; ++by) for (int bx = 0; bx < nbx; ++bx)
              cnt[by * nbx + bx] += touch(X[i], Y[i], RR[i], bx * 8 + .5f, bx * 8 + 7.5f, by * 4 + .5f, by * 4 + 3.5f);
          int mx[4] = {0};
          for (int by = 0; by < nby; ++by) for (int bx = 0; bx < nbx; ++bx) { int w = own(bx, by); mx[w] = std::max(mx[w], cnt[by * nbx + bx]); }
          for (int w = 0; w < 4; ++w) wp[w] += mx[w];
        }
        double mean = (wp[0] + wp[1] + wp[2] + wp[3]) / 4, mxw = std::max({wp[0], wp[1], wp[2], wp[3]});
        sum_mean[L] += mean; sum_max[L] += mxw;
      }
    }
  }
  const char* names[4] = {"16x16 regions (now)", "interleaved boxes", "rows by&3", "columns"};
  for (int L = 0; L < 4; ++L) printf("%-22s mean warp passes %.0f  block (max warp) %.0f  ratio %.3f  (vs now mean %.3f)\n", names[L], sum_mean[L] / ntiles, sum_max[L] / ntiles, sum_max[L] / sum_mean[L], sum_mean[L] / sum_mean[0]);
}
