// Eight-pixel walk: a warp's passes over a batch of 128 circles (4 groups) when its eight row
// groups wait for each other at every group (coupled, now) or only at the batch's end (decoupled).
#include <cstdio>
#include <random>
#include <vector>
#include <algorithm>
#include <cstdlib>
int main(int argc, char** argv) {
  double rmin = atof(argv[1]), rmax = atof(argv[2]), rho = atof(argv[3]); int ntiles = atoi(argv[4]);
  int batch = argc > 5 ? atoi(argv[5]) : 128;
  const int T = 32, nbx = 4, nby = 8;
  std::mt19937_64 g(1);
  double coupled = 0, decoupled = 0, visits = 0;
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
      std::vector<std::vector<int>> cnt;  // [group][box]
      for (int g0 = b0; g0 < std::min(n, b0 + batch); g0 += 32) {
        std::vector<int> c(32, 0);
        for (int i = g0; i < std::min(n, g0 + 32); ++i)
          for (int by = 0; by < nby; ++by) for (int bx = 0; bx < nbx; ++bx)
            c[by * nbx + bx] += touch(X[i], Y[i], RR[i], bx * 8 + .5f, bx * 8 + 7.5f, by * 4 + .5f, by * 4 + 3.5f);
        cnt.push_back(c);
      }
      for (int w = 0; w < 4; ++w) {
        std::vector<int> boxes;
        for (int by = 0; by < nby; ++by) for (int bx = 0; bx < nbx; ++bx) if ((bx >= 2) + 2 * (by >= 4) == w) boxes.push_back(by * nbx + bx);
        int tot_max = 0; std::vector<int> sum(boxes.size(), 0);
        for (auto& c : cnt) { int mx = 0; for (size_t k = 0; k < boxes.size(); ++k) { mx = std::max(mx, c[boxes[k]]); sum[k] += c[boxes[k]]; visits += c[boxes[k]]; } tot_max += mx; }
        coupled += tot_max; decoupled += *std::max_element(sum.begin(), sum.end());
      }
    }
  }
  printf("batch %d: passes coupled %.0f decoupled %.0f (%.3f); row-group visits %.0f (slot use coupled %.3f, decoupled %.3f)\n", batch,
         coupled / ntiles, decoupled / ntiles, decoupled / coupled, visits / ntiles, visits / (8 * coupled), visits / (8 * decoupled));
}
