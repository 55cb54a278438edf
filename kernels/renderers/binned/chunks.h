// cuda-tile-binned's chunk policy: which circles a binned frame bins and shades together, in
// which order, and when it stops. Plain C++ (no CUDA): the renderer (renderer.cu) asks it for
// each chunk and tells it what the chunk's count found; tests/cpu/binned_chunks_test.cpp holds it
// to its rules without a GPU.
#pragma once
#include <algorithm>

namespace circles::binned {

// The device's per-frame numbers the host reads back after count: the chunk's exact 64-bit pair
// total, the most pairs of one block of circles (binning by counting), and how many tiles the
// last shade left unsettled (early exit). The count clears the first two.
struct ChunkStats {
  unsigned long long total;
  unsigned long long max_block;
  unsigned long long unsettled;
};

// Early exit's chunks double up to this many circles.
constexpr int kMaxEarlyChunk = 1 << 24;

// The chunks of one frame of n circles. Exact mode walks them forward from circle 0, `size` at a
// time (the size that fitted the budget last frame); early exit backward from the last circle,
// its first chunk `size` circles and each after it twice the last, up to kMaxEarlyChunk. A chunk
// whose pairs exceed the budget is halved and counted again, until it fits or is one circle.
// Early exit stops once every tile has settled, and takes the rest in one chunk once more
// chunks stop paying: many tiles still open, or the last chunk settled hardly any.
class ChunkWalk {
 public:
  // What a chunk's count decided (counted()).
  enum class Verdict {
    Bin,     // bin and shade [lo(), hi()), then done()
    Halved,  // over the budget: the chunk is halved, count it again
    Widened, // early exit: the rest in one chunk, count it again
    Stop,    // early exit: every tile has settled, the frame is done
  };

  ChunkWalk(int n, bool early, int size, unsigned long long tiles);

  // Whether a chunk is left (the first chunk always is, so that an empty frame is cleared).
  // Counts the passes: each either shades a chunk or shrinks or widens one, so more than
  // 4n + 64 means a bug (std::logic_error).
  bool next();
  int passes() const { return passes_; }
  int lo() const { return early_ ? std::max(done_lo_, done_hi_ - size_) : done_lo_; }
  int hi() const { return early_ ? done_hi_ : std::min(done_hi_, done_lo_ + size_); }
  bool first() const { return first_; }
  // The chunk reaches the last of the circles left (exact: circle n - 1; early exit: circle 0).
  bool last() const { return early_ ? lo() == done_lo_ : hi() == done_hi_; }
  // The chunk size now: exact mode's next frame starts from it.
  int size() const { return size_; }

  // A waited count of the chunk: `total` pairs against `budget`; early exit's `open` tiles, those
  // still unsettled after the last shade.
  Verdict counted(unsigned long long total, unsigned long long budget, unsigned long long open);
  // The chunk [lo(), hi()) was binned and shaded (after counted()'s Bin, or shaded ahead of its
  // count, which counted() never saw).
  void done();

 private:
  bool early_;
  unsigned long long tiles_;
  int n_, done_lo_ = 0, done_hi_, size_;
  bool first_ = true, widened_ = false;
  unsigned long long open_before_;  // early exit: tiles open before the last chunk was shaded
  int passes_ = 0;
};

}  // namespace circles::binned
