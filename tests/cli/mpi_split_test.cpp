// The command line's MPI side that runs without MPI: how frames and rows split over ranks
// (app/cli/mpi_split.h: contiguous, in rank order, balanced to one, empty blocks at the end), a
// bad --mpi value, and, in a build without MPI, the line that says so. The runs over ranks
// themselves are tests/mpi/render_test.sh (ctest's mpi_* tests).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>

#include "app/cli/mpi_split.h"
#include "cli_test_util.h"

namespace circles {
namespace {

TEST(MpiSplit, ContiguousBalancedBlocksInRankOrder) {
  for (std::int64_t first : {std::int64_t{0}, std::int64_t{5}, std::int64_t{1} << 40})
    for (std::int64_t count : {0, 1, 3, 7, 12, 1000})
      for (int ranks : {1, 2, 3, 4, 7, 16}) {
        std::int64_t next = first, most = 0, least = count + 1;
        for (int k = 0; k < ranks; ++k) {
          const Block b = block_of(first, first + count, k, ranks);
          EXPECT_EQ(b.begin, next) << "rank " << k << " of " << ranks << ", " << count << " items";
          EXPECT_GE(b.size(), 0);
          if (k > 0) {
            EXPECT_LE(b.size(), block_of(first, first + count, k - 1, ranks).size()) << "larger blocks first";
          }
          next = b.end;
          most = std::max(most, b.size());
          least = std::min(least, b.size());
        }
        EXPECT_EQ(next, first + count) << "every item, once";
        EXPECT_LE(most - least, 1) << count << " items over " << ranks;
      }
  // 3 rows over 4 ranks: the last rank's band is empty.
  EXPECT_EQ(block_of(0, 3, 3, 4).size(), 0);
  EXPECT_EQ(block_of(0, 3, 2, 4).begin, 2);
}

class MpiCliTest : public test::CliTest {};

TEST_F(MpiCliTest, BadModeIsRefusedBeforeAnyWork) {
  EXPECT_EQ(test::cli({"render", "rgb", "-s", "8x8", "--mpi", "rows", "-o", path("x.png")}), 2);
  EXPECT_FALSE(std::filesystem::exists(path("x.png")));
}

#if !CIRCLES_HAVE_MPI
TEST_F(MpiCliTest, BuildWithoutMpiSaysSo) {
  testing::internal::CaptureStderr();
  EXPECT_EQ(test::cli({"render", "rgb", "-s", "8x8", "--mpi", "bands", "-o", path("x.png")}), 2);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("this build has no MPI"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(path("x.png")));
}
#endif

}  // namespace
}  // namespace circles
