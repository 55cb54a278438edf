// The PNG encoder (render/png.h): a well-formed file (signature, IHDR, IDAT chunks, IEND, every
// CRC right) that decodes to the image's 8-bit values; the same bytes whether the rows come all at
// once, one by one or in uneven groups (an MPI render's bands: docs/SCALE.md); and nothing left
// on disk by a writer that fails or is abandoned before its last row.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "render/builtin_scenes.h"
#include "render/image.h"
#include "render/png.h"
#include "test_util.h"

namespace circles {
namespace {

namespace fs = std::filesystem;

class PngWriterTest : public test::TempDirTest {
 protected:
  // The names in the test's folder.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path().filename().string());
    return out;
  }
};

// An image with every kind of row: noise (incompressible: several IDAT chunks), flat runs, ramps.
Image test_image(int w, int h, std::uint32_t seed) {
  Image img(w, h);
  Pcg32 rng(seed);
  for (int j = 0; j < h; ++j)
    for (int i = 0; i < w; ++i) {
      Float4& p = img.at(i, j);
      if (j % 3 == 0) p = {rng.next() / 4294967296.f, rng.next() / 4294967296.f, rng.next() / 4294967296.f, 1.f};
      else if (j % 3 == 1) p = {0.25f, 0.5f, 0.75f, 0.5f};
      else p = {static_cast<float>(i) / w, static_cast<float>(j) / h, 1.5f, -0.25f};  // clamped to 255, 0
    }
  return img;
}

std::uint32_t be32(const std::string& s, std::size_t at) {
  return (std::uint32_t(std::uint8_t(s[at])) << 24) | (std::uint32_t(std::uint8_t(s[at + 1])) << 16) |
         (std::uint32_t(std::uint8_t(s[at + 2])) << 8) | std::uint32_t(std::uint8_t(s[at + 3]));
}

struct Chunk {
  std::string type, data;
};

// The file's chunks, each CRC checked; fails the test on a malformed file.
std::vector<Chunk> chunks_of(const std::string& file) {
  std::vector<Chunk> out;
  EXPECT_EQ(file.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  std::size_t pos = 8;
  while (pos + 12 <= file.size()) {
    const std::uint32_t n = be32(file, pos);
    if (pos + 12 + n > file.size()) break;
    Chunk c{file.substr(pos + 4, 4), file.substr(pos + 8, n)};
    const std::string typed = file.substr(pos + 4, 4 + n);
    const uLong crc = crc32(0, reinterpret_cast<const Bytef*>(typed.data()), static_cast<uInt>(typed.size()));
    EXPECT_EQ(be32(file, pos + 8 + n), static_cast<std::uint32_t>(crc)) << "chunk " << c.type << " at " << pos;
    out.push_back(c);
    pos += 12 + n;
  }
  EXPECT_EQ(pos, file.size()) << "bytes after the last whole chunk";
  return out;
}

TEST_F(PngWriterTest, WellFormedAndDecodesToTheImagesBytes) {
  for (const auto& [w, h] : std::vector<std::pair<int, int>>{{1, 1}, {7, 3}, {640, 480}, {3, 700}}) {
    const Image img = test_image(w, h, 7u + w);
    const std::string p = path("a.png");
    write_png(p, img);
    const std::vector<Chunk> cs = chunks_of(test::slurp(p));
    ASSERT_GE(cs.size(), 3u);
    EXPECT_EQ(cs.front().type, "IHDR");
    ASSERT_EQ(cs.front().data.size(), 13u);
    EXPECT_EQ(be32(cs.front().data, 0), static_cast<std::uint32_t>(w));
    EXPECT_EQ(be32(cs.front().data, 4), static_cast<std::uint32_t>(h));
    EXPECT_EQ(cs.front().data.substr(8), std::string("\x08\x06\x00\x00\x00", 5));  // 8-bit RGBA, no interlace
    EXPECT_EQ(cs.back().type, "IEND");
    EXPECT_TRUE(cs.back().data.empty());
    std::string idat;
    for (std::size_t k = 1; k + 1 < cs.size(); ++k) {
      EXPECT_EQ(cs[k].type, "IDAT");
      idat += cs[k].data;
    }
    if (w == 640) {
      EXPECT_GT(cs.size(), 3u) << "noise this size spans several IDAT chunks";
    }
    // The zlib stream holds one filtered row (filter type 0..4, then the row) per image row.
    std::vector<unsigned char> raw(static_cast<std::size_t>(h) * (w * 4 + 1) + 1);
    uLongf len = static_cast<uLongf>(raw.size());
    ASSERT_EQ(uncompress(raw.data(), &len, reinterpret_cast<const Bytef*>(idat.data()), idat.size()), Z_OK);
    EXPECT_EQ(len, static_cast<uLongf>(h) * (w * 4 + 1));
    for (int r = 0; r < h; ++r) EXPECT_LE(raw[static_cast<std::size_t>(r) * (w * 4 + 1)], 4) << "row " << r;
    EXPECT_EQ(to_rgba8(read_png(p)), to_rgba8(img)) << w << "x" << h;
  }
}

TEST_F(PngWriterTest, SameBytesHoweverTheRowsArrive) {
  const int w = 300, h = 211;
  const Image img = test_image(w, h, 3);
  write_png(path("whole.png"), img);
  const std::string want = test::slurp(path("whole.png"));
  const std::vector<std::uint8_t> rgba = to_rgba8(img);  // top row first
  const std::size_t row = static_cast<std::size_t>(w) * 4;
  for (const std::vector<int>& groups : std::vector<std::vector<int>>{{h}, {1}, {70, 71, 70}, {0, 5, 200, 0, 6}}) {
    const std::string p = path("rows.png");
    PngWriter png(p, w, h);
    for (std::size_t k = 0; png.rows_written() < h; ++k) {
      const int n = std::min(groups[k % groups.size()], h - png.rows_written());
      png.write_rows(rgba.data() + row * png.rows_written(), n);
    }
    png.finish();
    EXPECT_EQ(test::slurp(p), want) << "groups of " << groups.size();
  }
}

TEST_F(PngWriterTest, NothingLeftByAWriterThatStopsShort) {
  const Image img = test_image(16, 8, 1);
  const std::vector<std::uint8_t> rgba = to_rgba8(img);
  std::ofstream(path("kept.png")) << "the old file";
  {
    PngWriter png(path("kept.png"), 16, 8);
    png.write_rows(rgba.data(), 5);
    EXPECT_THROW(png.finish(), std::logic_error);             // 3 rows short
    EXPECT_THROW(png.write_rows(rgba.data(), 4), std::logic_error);  // past the last row
  }
  {
    PngWriter png(path("new.png"), 16, 8);
    png.write_rows(rgba.data(), 8);
  }  // abandoned before finish()
  EXPECT_EQ(test::slurp(path("kept.png")), "the old file");
  EXPECT_EQ(names(), std::vector<std::string>{"kept.png"}) << "no partial file, no temporary";
  try {
    PngWriter png(path("no/such/dir/x.png"), 4, 4);
    FAIL() << "a writer in a missing folder";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write PNG '" + path("no/such/dir/x.png") + "'"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW({ PngWriter png(path("e.png"), 0, 4); }, std::runtime_error);
}

}  // namespace
}  // namespace circles
