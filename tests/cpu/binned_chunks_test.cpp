// cuda-tile-binned's chunk policy (kernels/renderers/binned/chunks.h) without a GPU: the chunks
// cover every circle once, in order, within the pair budget; early exit walks back, doubling,
// stops once every tile has settled and takes the rest at once when chunks stop paying.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "kernels/renderers/binned/chunks.h"

namespace circles::binned {
namespace {

using Verdict = ChunkWalk::Verdict;

// The pairs of circles [lo, hi).
unsigned long long pairs_of(const std::vector<unsigned>& pairs, int lo, int hi) {
  unsigned long long t = 0;
  for (int k = lo; k < hi; ++k) t += pairs[k];
  return t;
}

// Runs a frame's walk as the renderer does, `open(chunks shaded)` giving early exit's open tiles;
// returns the chunks binned.
template <class Open>
std::vector<std::pair<int, int>> run(ChunkWalk& walk, const std::vector<unsigned>& pairs, unsigned long long budget,
                                     Open open) {
  std::vector<std::pair<int, int>> chunks;
  while (walk.next()) {
    const Verdict v = walk.counted(pairs_of(pairs, walk.lo(), walk.hi()), budget, open(chunks.size()));
    if (v == Verdict::Stop) break;
    if (v != Verdict::Bin) continue;
    chunks.push_back({walk.lo(), walk.hi()});
    walk.done();
  }
  return chunks;
}

TEST(BinnedChunks, ExactChunksCoverEveryCircleOnceInOrderWithinTheBudget) {
  std::mt19937 rng(7);
  std::vector<unsigned> pairs(5000);
  for (unsigned& p : pairs) p = rng() % 40;
  for (unsigned long long budget : {1ull, 39ull, 500ull, 20000ull, 1ull << 40}) {
    ChunkWalk walk(static_cast<int>(pairs.size()), false, static_cast<int>(pairs.size()), 64);
    const auto chunks = run(walk, pairs, budget, [](std::size_t) { return 64ull; });
    ASSERT_FALSE(chunks.empty());
    int next = 0;
    for (const auto& [lo, hi] : chunks) {
      EXPECT_EQ(lo, next) << budget;
      EXPECT_GT(hi, lo) << budget;
      // Within the budget, or one circle (never dropped, whatever its pairs).
      EXPECT_TRUE(pairs_of(pairs, lo, hi) <= budget || hi - lo == 1) << budget << ": " << lo << ".." << hi;
      next = hi;
    }
    EXPECT_EQ(next, static_cast<int>(pairs.size())) << budget;
    if (budget >= pairs_of(pairs, 0, static_cast<int>(pairs.size()))) {
      EXPECT_EQ(chunks.size(), 1u);
    }
    // The size the next frame starts from fits the budget here too (or is one circle).
    EXPECT_GE(walk.size(), 1);
    if (budget < 1ull << 40) {
      EXPECT_LT(walk.size(), static_cast<int>(pairs.size())) << budget;
    }
  }
}

TEST(BinnedChunks, ExactFramesStartFromTheSizeThatFitLastTime) {
  ChunkWalk walk(1000, false, 250, 64);
  ASSERT_TRUE(walk.next());
  EXPECT_EQ(walk.lo(), 0);
  EXPECT_EQ(walk.hi(), 250);
  EXPECT_TRUE(walk.first());
  EXPECT_FALSE(walk.last());
  EXPECT_EQ(walk.counted(10, 10, 0), Verdict::Bin);  // at the budget: fits
  walk.done();
  ASSERT_TRUE(walk.next());
  EXPECT_EQ(walk.lo(), 250);
  EXPECT_FALSE(walk.first());
  EXPECT_EQ(walk.counted(11, 10, 0), Verdict::Halved);
  EXPECT_EQ(walk.size(), 125);
  ASSERT_TRUE(walk.next());
  EXPECT_EQ(walk.lo(), 250);
  EXPECT_EQ(walk.hi(), 375);
}

TEST(BinnedChunks, AnEmptyFrameHasOneChunkSoThatItIsCleared) {
  for (bool early : {false, true}) {
    ChunkWalk walk(0, early, 16384, 64);
    ASSERT_TRUE(walk.next());
    EXPECT_EQ(walk.lo(), 0);
    EXPECT_EQ(walk.hi(), 0);
    EXPECT_TRUE(walk.first());
    EXPECT_TRUE(walk.last());
    EXPECT_EQ(walk.counted(0, 1, 64), Verdict::Bin);
    walk.done();
    EXPECT_FALSE(walk.next());
  }
}

TEST(BinnedChunks, EarlyExitWalksBackFromTheLastCircleDoubling) {
  const int n = 1000000;
  std::vector<unsigned> pairs(n, 1);
  ChunkWalk walk(n, true, 16384, 1000);
  // Under a quarter of the tiles open, each chunk settling a third of them: chunks keep paying
  // until the circles run out.
  unsigned long long open = 200;
  const auto chunks = run(walk, pairs, 1ull << 40, [&](std::size_t) { return open = open * 2 / 3 + 1; });
  ASSERT_EQ(chunks.size(), 6u);  // 16384 + ... + 262144 circles, then the rest
  int top = n, size = 16384;
  for (std::size_t k = 0; k < chunks.size(); ++k) {
    EXPECT_EQ(chunks[k].second, top) << k;
    if (k + 1 < chunks.size()) {
      EXPECT_EQ(chunks[k].second - chunks[k].first, size) << k;
    }
    top = chunks[k].first;
    size = std::min(2 * size, kMaxEarlyChunk);
  }
  EXPECT_EQ(top, 0);
}

TEST(BinnedChunks, EarlyExitStopsOnceEveryTileHasSettled) {
  ChunkWalk walk(100000, true, 16384, 1000);
  ASSERT_TRUE(walk.next());
  EXPECT_EQ(walk.counted(5, 100, 0), Verdict::Bin);  // the first count's open tiles mean nothing yet
  walk.done();
  ASSERT_TRUE(walk.next());
  EXPECT_EQ(walk.counted(5, 100, 0), Verdict::Stop);
}

TEST(BinnedChunks, EarlyExitTakesTheRestOnceChunksStopPaying) {
  // Many tiles still open (over a quarter), or the last chunk settled under a tenth of those open.
  for (unsigned long long second : {300ull, 180ull}) {
    ChunkWalk walk(1000000, true, 16384, 1000);
    ASSERT_TRUE(walk.next());
    EXPECT_EQ(walk.counted(5, 100, 1000), Verdict::Bin);
    walk.done();
    ASSERT_TRUE(walk.next());
    EXPECT_EQ(walk.counted(5, 100, 200), Verdict::Bin) << second;  // 200 open: it paid
    walk.done();
    ASSERT_TRUE(walk.next());
    EXPECT_EQ(walk.counted(5, 100, second), Verdict::Widened) << second;
    ASSERT_TRUE(walk.next());
    EXPECT_EQ(walk.lo(), 0) << second;
    EXPECT_EQ(walk.hi(), 1000000 - 16384 - 32768) << second;
    EXPECT_TRUE(walk.last());
    // Widened once: the next count bins it, however many tiles are open, or halves it.
    EXPECT_EQ(walk.counted(101, 100, second), Verdict::Halved) << second;
    ASSERT_TRUE(walk.next());
    EXPECT_EQ(walk.counted(5, 100, second), Verdict::Bin) << second;
  }
}

TEST(BinnedChunks, AWalkThatMakesNoProgressThrows) {
  ChunkWalk walk(10, false, 10, 64);
  EXPECT_THROW(
      {
        for (int k = 0; k < 1000; ++k) ASSERT_TRUE(walk.next());
      },
      std::logic_error);
}

}  // namespace
}  // namespace circles::binned
