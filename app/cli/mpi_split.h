// Work split over MPI ranks in contiguous blocks: frames (each rank seeks once, to its first
// frame, and then steps frame by frame) and rows of one image (bands, top to bottom in rank
// order, so rank 0 writes the PNG's rows as they arrive from the ranks in turn). The first
// `count % ranks` ranks take one more; where there are more ranks than items, the last ones take
// none.
#pragma once
#include <cstdint>

namespace circles {

struct Block {
  std::int64_t begin = 0, end = 0;  // [begin, end)
  std::int64_t size() const { return end - begin; }
};

// Rank `rank` of `ranks`' block of [first, last).
inline Block block_of(std::int64_t first, std::int64_t last, int rank, int ranks) {
  const std::int64_t n = last - first, q = n / ranks, r = n % ranks;
  const std::int64_t begin = first + rank * q + (rank < r ? rank : r);
  return {begin, begin + q + (rank < r ? 1 : 0)};
}

}  // namespace circles
