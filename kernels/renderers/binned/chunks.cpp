#include "kernels/renderers/binned/chunks.h"

#include <algorithm>
#include <stdexcept>

namespace circles::binned {

ChunkWalk::ChunkWalk(int n, bool early, int size, unsigned long long tiles)
    : early_(early), tiles_(tiles), n_(n), done_hi_(n), size_(std::max(1, std::min(size, n))), open_before_(tiles) {}

bool ChunkWalk::next() {
  if (!(done_lo_ < done_hi_ || first_)) return false;
  if (++passes_ > 4ll * n_ + 64) throw std::logic_error("cuda-tile-binned: chunking made no progress");
  return true;
}

ChunkWalk::Verdict ChunkWalk::counted(unsigned long long total, unsigned long long budget, unsigned long long open) {
  if (early_ && !first_) {
    if (open == 0) return Verdict::Stop;
    if (!widened_ && lo() > done_lo_ && (open > tiles_ / 4 || 10 * open >= 9 * open_before_)) {
      // Many tiles are still open, or the last chunk settled hardly any (tiles with pixels no
      // circle reaches, such as the margins of a wide frame, never settle): more chunks will not
      // pay, so the rest goes in one chunk (halved again if it exceeds the budget).
      size_ = done_hi_ - done_lo_;
      widened_ = true;
      return Verdict::Widened;
    }
  }
  if (total > budget && hi() - lo() > 1) {
    size_ = std::max(1, (hi() - lo()) / 2);
    return Verdict::Halved;
  }
  if (early_ && !first_) open_before_ = open;
  return Verdict::Bin;
}

void ChunkWalk::done() {
  if (early_) {
    done_hi_ = lo();
    size_ = std::min(size_ * 2, kMaxEarlyChunk);
  } else {
    done_lo_ = hi();
  }
  first_ = false;
}

}  // namespace circles::binned
