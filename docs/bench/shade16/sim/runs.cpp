// Eight-pixel walk with per-box lists over a batch of 128 circles, runs of box-covering circles
// composed into one entry (decoupled row groups), against the coupled mask walk now. Also the
// build's work: per (box, group) lane, entries (and full circles) it walks; a warp waits on its
// busiest lane.
#include <cstdio>
#include <random>
#include <vector>
#include <algorithm>
#include <cstdlib>
int main(int argc, char** argv) {
  double rmin = atof(argv[1]), rmax = atof(argv[2]), rho = atof(argv[3]); int ntiles = atoi(argv[4]);
  const int T = 32, nbx = 4, nby = 8, batch = 128;
  std::mt19937_64 g(1);
  double lr_sum = 0, lr_max = 0, nbatches = 0;
  double now = 0, dec = 0, runs = 0, build_max = 0, build_mean = 0, touches = 0, fulls = 0, entries = 0;
  for (int t = 0; t < ntiles; ++t) {
    double m = rmax + 2, W = T + 2 * m;
    std::poisson_distribution<int> P(rho * W * W);
    int n = P(g);
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
    for (int b0 = 0; b0 < n; b0 += batch) {
      int nb = std::min(n, b0 + batch) - b0;
      // type[box][i]: 0 none, 1 partial, 2 full
      std::vector<std::vector<int>> ty(32, std::vector<int>(nb, 0));
      for (int i = 0; i < nb; ++i)
        for (int by = 0; by < nby; ++by) for (int bx = 0; bx < nbx; ++bx) {
          float x0 = bx * 8 + .5f, x1 = bx * 8 + 7.5f, y0 = by * 4 + .5f, y1 = by * 4 + 3.5f;
          int k = by * nbx + bx;
          if (full(X[b0 + i], Y[b0 + i], RR[b0 + i], x0, x1, y0, y1)) ty[k][i] = 2;
          else if (touch(X[b0 + i], Y[b0 + i], RR[b0 + i], x0, x1, y0, y1)) ty[k][i] = 1;
        }
      std::vector<int> plain(32, 0), withruns(32, 0);
      int long_runs = 0;
      for (int k = 0; k < 32; ++k) {
        bool inrun = false; int len = 0;
        for (int i = 0; i < nb; ++i) {
          if (!ty[k][i]) continue;
          plain[k]++; touches++;
          if (ty[k][i] == 2) { fulls++; if (!inrun) { withruns[k]++; inrun = true; len = 0; } ++len; if (len == 2) long_runs++; }
          else { withruns[k]++; inrun = false; }
        }
        entries += withruns[k];
      }
      double bnow = 0, bdec = 0, bruns = 0;
      for (int w = 0; w < 4; ++w) {
        std::vector<int> boxes;
        for (int by = 0; by < nby; ++by) for (int bx = 0; bx < nbx; ++bx) if ((bx >= 2) + 2 * (by >= 4) == w) boxes.push_back(by * nbx + bx);
        double pn = 0;
        for (int g0 = 0; g0 < nb; g0 += 32) {
          int mx = 0;
          for (int k : boxes) { int c = 0; for (int i = g0; i < std::min(nb, g0 + 32); ++i) c += ty[k][i] != 0; mx = std::max(mx, c); }
          pn += mx;
        }
        double pd = 0, pr = 0;
        for (int k : boxes) { pd = std::max(pd, (double)plain[k]); pr = std::max(pr, (double)withruns[k]); }
        bnow = std::max(bnow, pn); bdec = std::max(bdec, pd); bruns = std::max(bruns, pr);
        // build: lanes (box, group): touched circles each
        int bm = 0; double bs = 0;
        for (int k : boxes) for (int g0 = 0; g0 < nb; g0 += 32) { int c = 0; for (int i = g0; i < std::min(nb, g0 + 32); ++i) c += ty[k][i] != 0; bm = std::max(bm, c); bs += c; }
        build_max += bm; build_mean += bs / 32;
      }
      now += bnow; dec += bdec; runs += bruns;
      lr_sum += long_runs; lr_max = std::max(lr_max, (double)long_runs); nbatches++;
    }
  }
  printf("block passes: now %.0f, decoupled %.3f, decoupled with runs %.3f; full share %.3f, entries/touches %.3f; build steps a warp-batch: busiest lane %.0f, mean %.1f (per tile: %.0f vs walk passes %.0f)\n",
         now / ntiles, dec / now, runs / now, fulls / touches, entries / touches, build_max / ntiles, build_mean / ntiles, build_max / ntiles, now / ntiles);
  printf("runs of two or more circles a batch (all 32 boxes): mean %.0f, most %.0f\n", lr_sum / nbatches, lr_max);
}
