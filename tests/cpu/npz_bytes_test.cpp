// The binary scene reader and writer in memory (read_npz_bytes, read_npy_bytes,
// load_scene_npz_bytes, write_npz_bytes, save_scene_npz_bytes): the same arrays, scenes, bytes
// and messages as through a file, the arrays pointing into the caller's bytes, and an owner
// keeping them alive.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "render/builtin_scenes.h"
#include "render/npy.h"
#include "render/scene_npz.h"
#include "test_util.h"

namespace circles {
namespace {

namespace fs = std::filesystem;

std::string data_of(const NpyArray& a) { return std::string(static_cast<const char*>(a.data), a.nbytes); }

// The error loading `path` as a scene ("" if it loads), and loading its bytes under the same name.
std::string file_error(const std::string& path) {
  try {
    load_scene_npz(path);
  } catch (const NpyError& e) {
    return e.what();
  }
  return "";
}
std::string bytes_error(const std::string& bytes, const std::string& name) {
  try {
    load_scene_npz_bytes(bytes.data(), bytes.size(), name);
  } catch (const NpyError& e) {
    EXPECT_EQ(e.file(), name);
    return e.what();
  }
  return "";
}

bool same_scene(const Scene& a, const Scene& b) {
  return a.width == b.width && a.height == b.height && a.shading == b.shading && a.animation == b.animation &&
         a.seed == b.seed && a.frame == b.frame && a.has_velocity == b.has_velocity &&
         a.background.kind == b.background.kind &&
         std::memcmp(&a.background.top, &b.background.top, sizeof(Float4)) == 0 &&
         std::memcmp(&a.background.bottom, &b.background.bottom, sizeof(Float4)) == 0 &&
         a.circles.size() == b.circles.size() &&
         (a.circles.empty() || std::memcmp(a.circles.data(), b.circles.data(), a.circles.size() * sizeof(Circle)) == 0);
}

class NpzBytesTest : public test::TempDirTest {};

TEST_F(NpzBytesTest, ArraysAreTheFilesAndPointIntoTheBytes) {
  const float f4[] = {1, 2, 3, 4, 5, 6};
  const std::int64_t i8 = -7;
  const std::vector<NpyOut> arrays = {{"a", "<f4", {2, 3}, f4, 24}, {"b", "<i8", {}, &i8, 8}};
  const std::string p = path("a.npz");
  write_npz(p, arrays);
  const std::string bytes = test::slurp(p);
  EXPECT_EQ(write_npz_bytes(arrays, "a.npz"), bytes) << "written to memory, the file's bytes";

  const std::vector<NpyArray> from_file = read_npz(p);
  const std::vector<NpyArray> got = read_npz_bytes(bytes.data(), bytes.size(), "mem.npz");
  ASSERT_EQ(got.size(), from_file.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(got[i].key);
    EXPECT_EQ(got[i].key, from_file[i].key);
    EXPECT_EQ(got[i].descr, from_file[i].descr);
    EXPECT_EQ(got[i].shape, from_file[i].shape);
    EXPECT_EQ(data_of(got[i]), data_of(from_file[i]));
    EXPECT_FALSE(got[i].mapped);
    EXPECT_FALSE(got[i].keeper) << "no owner given: the caller keeps the bytes";
    const char* d = static_cast<const char*>(got[i].data);
    EXPECT_TRUE(d >= bytes.data() && d + got[i].nbytes <= bytes.data() + bytes.size()) << "not copied";
  }

  const std::string npy_path = path("a.npy");
  write_npy(npy_path, arrays[0]);
  const std::string npy_bytes = test::slurp(npy_path);
  const NpyArray one = read_npy_bytes(npy_bytes.data(), npy_bytes.size(), "mem.npy");
  EXPECT_EQ(one.key, "");
  EXPECT_EQ(data_of(one), data_of(read_npy(npy_path)));
  EXPECT_EQ(static_cast<const char*>(one.data), npy_bytes.data() + (npy_bytes.size() - 24));
}

TEST_F(NpzBytesTest, ScenesAndSavedBytesAreTheFiles) {
  Scene s = make_builtin_scene("rand10k");
  const std::string p = path("s.npz");
  save_scene_npz(s, p);
  const std::string bytes = test::slurp(p);
  EXPECT_EQ(save_scene_npz_bytes(s), bytes);
  const Scene back = load_scene_npz_bytes(bytes.data(), bytes.size(), "mem.npz");
  EXPECT_EQ(back.name, "mem.npz");
  EXPECT_TRUE(same_scene(back, load_scene_npz(p)));
  ASSERT_TRUE(back.circles.is_view()) << "float32 rows of 10 are used where they lie in the bytes";
  EXPECT_GE(reinterpret_cast<const char*>(back.circles.data()), bytes.data());
  EXPECT_LE(reinterpret_cast<const char*>(back.circles.end()), bytes.data() + bytes.size());
}

TEST_F(NpzBytesTest, AnOwnerKeepsTheBytesAlive) {
  auto bytes = std::make_shared<std::string>(save_scene_npz_bytes(make_builtin_scene("rand10k")));
  const std::string copy = *bytes;
  Scene back = load_scene_npz_bytes(bytes->data(), bytes->size(), "mem.npz", bytes);
  std::weak_ptr<std::string> watch = bytes;
  bytes.reset();
  EXPECT_FALSE(watch.expired()) << "the scene's circles hold the owner";
  ASSERT_TRUE(back.circles.is_view());
  EXPECT_TRUE(same_scene(back, load_scene_npz_bytes(copy.data(), copy.size(), "copy.npz")));
  back.circles.clear();
  EXPECT_TRUE(watch.expired()) << "and let it go with them";
}

TEST_F(NpzBytesTest, TheNameDecidesNpyAndNamesTheFile) {
  const float rows[10] = {0.5f, 0.5f, 0.f, 0.1f, 1.f, 0.f, 0.f, 1.f, 0.f, 0.f};
  const std::string p = path("c.npy");
  write_npy(p, {"", "<f4", {1, 10}, rows, 40});
  const std::string bytes = test::slurp(p);
  const Scene s = load_scene_npz_bytes(bytes.data(), bytes.size(), "C.NPY");
  ASSERT_EQ(s.circles.size(), 1u);
  EXPECT_EQ(s.circles[0].radius, 0.1f);
  EXPECT_EQ(bytes_error(bytes, "c.npz"), "c.npz: error: not a zip file (no end of central directory record)");
  EXPECT_EQ(bytes_error("", "empty.npz"), "empty.npz: error: not a zip file (no end of central directory record)");
  EXPECT_EQ(bytes_error("", "empty.npy"), "empty.npy: error: not a .npy file (no \\x93NUMPY magic)");
  try {
    load_scene_npz_bytes(nullptr, 0, "null.npz");
    FAIL() << "no bytes loaded";
  } catch (const NpyError& e) {
    EXPECT_EQ(e.file(), "null.npz");
  }
}

// Every file of the fuzz corpus, and every prefix of a saved scene: the same answer, to the
// byte of the message, as a file and as bytes named by its path.
TEST_F(NpzBytesTest, MessagesAreTheFiles) {
  std::size_t files = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(fs::path(CIRCLES_SOURCE_DIR) / "fuzz" / "corpus-npz")) {
    const std::string p = e.path().string();
    SCOPED_TRACE(p);
    const std::string want = file_error(p);
    EXPECT_EQ(bytes_error(test::slurp(p), p), want);
    const std::string name = e.path().filename().string();
    if (name.rfind("bad-", 0) == 0) {
      EXPECT_NE(want, "");
    }
    ++files;
  }
  EXPECT_GE(files, 20u);

  Scene s;
  s.circles = {Circle{0.5f, 0.5f, 0.f, 0.25f, 1.f, 0.f, 0.f, 1.f, 0.f, 0.f}};
  const std::string full = save_scene_npz_bytes(s);
  const std::string p = path("cut.npz");
  for (std::size_t n = 0; n < full.size(); n += 7) {
    SCOPED_TRACE(n);
    const std::string cut = full.substr(0, n);
    {
      std::ofstream f(p, std::ios::binary | std::ios::trunc);
      f << cut;
    }
    const std::string want = file_error(p);
    EXPECT_NE(want, "");
    EXPECT_EQ(bytes_error(cut, p), want);
  }
}

// Without velocities a saved scene's are +0, bit for bit, whatever zero the circles held: the
// same scene gives the same bytes (found by fuzz/npz_fuzz.cpp: a -0 was written as it was).
TEST_F(NpzBytesTest, NoVelocitiesAreSavedAsPlusZero) {
  Scene s;
  s.circles = {Circle{0.5f, 0.5f, 0.f, 0.25f, 1.f, 0.f, 0.f, 1.f, -0.f, 0.f},
               Circle{0.5f, 0.5f, 0.f, 0.25f, 1.f, 0.f, 0.f, 1.f, 0.f, -0.f}};
  s.has_velocity = false;
  Scene plus = s;
  for (Circle& c : plus.circles.edit()) c.vx = c.vy = 0.f;
  const std::string bytes = save_scene_npz_bytes(s);
  EXPECT_EQ(bytes, save_scene_npz_bytes(plus));
  const Scene back = load_scene_npz_bytes(bytes.data(), bytes.size(), "v.npz");
  EXPECT_TRUE(same_scene(back, plus));
  EXPECT_FALSE(std::signbit(back.circles[0].vx));
  EXPECT_FALSE(std::signbit(back.circles[1].vy));
}

TEST_F(NpzBytesTest, WriteErrorsNameTheGivenName) {
  const float f4[] = {1, 2};
  try {
    write_npz_bytes({{"a", "<f4", {3}, f4, 8}}, "mem.npz");
    FAIL() << "a short array was written";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write scene 'mem.npz': array 'a': data is 8 bytes, but shape (3,) of '<f4' needs 12");
  }
}

}  // namespace
}  // namespace circles
