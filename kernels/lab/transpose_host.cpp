// The transpose ladder's CPU floor: a blocked transpose on every hardware thread. a.in / a.out are
// host pointers here and a.stream is unused. A plain loop over the whole matrix writes (or reads)
// with a stride of a full row, touching a new cache line and soon a new page per element; in
// 64x64 blocks turned in an L1-resident buffer, both sides stream whole cache lines. Rows of
// blocks (columns, if the matrix is wider than tall) are dealt out in contiguous bands to
// std::thread::hardware_concurrency() std::thread workers.
#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <thread>
#include <vector>

#include "kernels/lab/lab_launch.h"

namespace circles::lab {

namespace {

constexpr int kCpuBlock = 64;

// Transposes the part of in (height rows of width) with y in [y_begin, y_end) and x in
// [x_begin, x_end) into out (width rows of height), one kCpuBlock square at a time: the square's
// input rows are read in order into a 16 KB buffer, transposed on the way, and the buffer's rows
// are written out in order. Reading the matrix's columns in place instead would touch 64 lines a
// power-of-two stride apart (widths 4096, 8192...), all in the same L1 set.
void transpose_band(const float* in, float* out, int width, int height, int y_begin, int y_end,
                    int x_begin, int x_end) {
  const std::size_t w = static_cast<std::size_t>(width), h = static_cast<std::size_t>(height);
  alignas(64) float buf[kCpuBlock][kCpuBlock];  // buf[x][y]: the block, already transposed
  for (int y0 = y_begin; y0 < y_end; y0 += kCpuBlock) {
    const int bh = std::min(y_end - y0, kCpuBlock);
    for (int x0 = x_begin; x0 < x_end; x0 += kCpuBlock) {
      const int bw = std::min(x_end - x0, kCpuBlock);
      for (int y = 0; y < bh; ++y) {
        const float* src = in + static_cast<std::size_t>(y0 + y) * w + x0;
        for (int x = 0; x < bw; ++x) buf[x][y] = src[x];
      }
      for (int x = 0; x < bw; ++x) {
        float* dst = out + static_cast<std::size_t>(x0 + x) * h + y0;
        for (int y = 0; y < bh; ++y) dst[y] = buf[x][y];
      }
    }
  }
}

}  // namespace

void transpose_cpu_mt(const LaunchArgs& a) {
  if (a.type != Elem::f32) throw std::invalid_argument("transpose: float only");
  const int width = a.shape.width, height = a.shape.height;
  if (width <= 0 || height <= 0) return;
  const float* in = static_cast<const float*>(a.in);
  float* out = static_cast<float*>(a.out);
  // Bands of whole rows of blocks; a matrix with fewer rows of blocks than columns of blocks
  // (a single row, say) is cut into bands of columns instead, so that every thread has work.
  const long long block_rows = (static_cast<long long>(height) + kCpuBlock - 1) / kCpuBlock;
  const long long block_cols = (static_cast<long long>(width) + kCpuBlock - 1) / kCpuBlock;
  const bool by_rows = block_rows >= block_cols;
  const long long blocks = by_rows ? block_rows : block_cols;
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const int workers = static_cast<int>(std::min<long long>(hw, blocks));
  // Band t: blocks [t * blocks / workers, (t + 1) * blocks / workers), as elements.
  auto run_band = [=](int t) {
    const int extent = by_rows ? height : width;
    const int b0 = static_cast<int>(std::min<long long>(extent, blocks * t / workers * kCpuBlock));
    const int b1 =
        static_cast<int>(std::min<long long>(extent, blocks * (t + 1) / workers * kCpuBlock));
    if (by_rows)
      transpose_band(in, out, width, height, b0, b1, 0, width);
    else
      transpose_band(in, out, width, height, 0, height, b0, b1);
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(workers));
  try {
    for (int t = 1; t < workers; ++t) pool.emplace_back(run_band, t);
  } catch (...) {  // could not start a thread: finish what started, then report
    for (std::thread& th : pool) th.join();
    throw;
  }
  run_band(0);  // this thread takes band 0
  for (std::thread& th : pool) th.join();
}

}  // namespace circles::lab
