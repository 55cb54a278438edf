// Helpers shared by every test binary, in one place: where the source tree and the binary under
// test are, a folder of its own per test, skipping (or failing) where a GPU or a tool is missing,
// counts read from the environment, whole files, and frames rendered by name.
//
// Skips: a test that needs the GPU skips through NEED_GPU (its message starts "[needs the GPU]"),
// and fails instead when CIRCLES_REQUIRE_GPU=1. A skip that is right on some machines whatever
// CIRCLES_REQUIRE_GPU says (a test of the no-GPU path on a GPU machine, a tool not installed) goes
// through SKIP_EXPECTED (its message starts "[expected skip]"). scripts/gpu-tests.sh, the GPU
// machine's entry point, fails on any skip without that mark.
#pragma once
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>

#include "app/common/registry.h"
#include "render/builtin_scenes.h"
#include "render/image.h"
#include "render/renderer.h"
#include "render/scene.h"
#include "render/scene_io.h"

namespace circles::test {

// Whether an environment variable is set to exactly "1".
inline bool env_is_1(const char* name) {
  const char* v = std::getenv(name);
  return v && std::string(v) == "1";
}

// CIRCLES_REQUIRE_GPU=1: a test that needs the GPU fails where it cannot run instead of skipping.
inline bool gpu_required() { return env_is_1("CIRCLES_REQUIRE_GPU"); }

// The marks that start a skip's message (see the top of this file).
inline constexpr const char* kNeedsGpu = "[needs the GPU] ";
inline constexpr const char* kExpectedSkip = "[expected skip] ";

// A positive count from the environment variable `name`, or `fallback` where it is unset. Anything
// else (0, a negative number, a non-number, trailing characters) throws: a test told to run 0
// scenes must not pass having run nothing.
inline long positive_env_count(const char* name, long fallback) {
  const char* v = std::getenv(name);
  if (!v) return fallback;
  errno = 0;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (!*v || *end || errno == ERANGE || n <= 0)
    throw std::invalid_argument(std::string(name) + " must be a positive integer, found '" + v + "'");
  return n;
}

// An unsigned 64-bit number from the environment variable `name`; false where it is unset. A
// value that is not a number throws.
inline bool env_u64(const char* name, std::uint64_t* out) {
  const char* v = std::getenv(name);
  if (!v) return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  if (!*v || *end || errno == ERANGE || *v == '-')
    throw std::invalid_argument(std::string(name) + " must be an unsigned integer, found '" + v + "'");
  *out = n;
  return true;
}

// The source tree: $CIRCLES_SOURCE_DIR (binaries copied to another machine), else this build's.
inline std::string source_dir() {
  const char* env = std::getenv("CIRCLES_SOURCE_DIR");
#ifdef CIRCLES_SOURCE_DIR
  return env && *env ? env : CIRCLES_SOURCE_DIR;
#else
  return env && *env ? env : ".";
#endif
}

// The `circles` binary under test: $CIRCLES_BIN, else a `circles` next to this test executable
// (binaries copied together to another machine), else the one this build made. A relative
// $CIRCLES_BIN is made absolute: the tests run it from other working directories.
inline std::string circles_bin() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("CIRCLES_BIN"); env && *env) return fs::absolute(env).string();
  std::error_code ec;
  const fs::path sibling = fs::read_symlink("/proc/self/exe", ec).parent_path() / "circles";
  if (!ec && fs::exists(sibling)) return sibling.string();
#ifdef CIRCLES_BIN
  return CIRCLES_BIN;
#else
  return "circles";
#endif
}

// An empty folder per test, named after its suite and test; path(NAME) is NAME in it.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string("circles_") + t->test_suite_name() + "_" + t->name();
    for (char& c : name)
      if (c == '/') c = '_';
    dir_ = std::filesystem::path(::testing::TempDir()) / name;
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

// The whole file as bytes ("" when it cannot be read).
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// Renders frame `frame` (>= scene.frame) of `scene` with renderer `name` at w x h.
inline Image render_frame(const std::string& name, const Scene& scene, int w, int h,
                          std::int64_t frame) {
  std::unique_ptr<Renderer> r = make_renderer(name);
  Image img;
  run_frames(*r, scene, w, h, frame, frame + 1, [&](std::int64_t) { r->read_image(&img); });
  return img;
}

// Saves the first `circles` circles of built-in scene `name` as a scene file at `path` (the memory
// refusal tests' files of a known size).
inline void save_first_circles(const std::string& name, std::size_t circles, const std::string& path) {
  Scene scene = make_builtin_scene(name);
  scene.circles.resize(circles);
  save_scene_file(scene, path);
}

}  // namespace circles::test

// Skips the test where `why` (a std::string: why the GPU cannot be used, "" where it can) is not
// empty; fails it instead when CIRCLES_REQUIRE_GPU=1.
#define NEED_GPU(why)                                                                          \
  do {                                                                                         \
    const std::string need_gpu_why_ = (why);                                                   \
    if (!need_gpu_why_.empty()) {                                                              \
      if (::circles::test::gpu_required()) FAIL() << "CIRCLES_REQUIRE_GPU=1 but " << need_gpu_why_; \
      GTEST_SKIP() << ::circles::test::kNeedsGpu << need_gpu_why_;                            \
    }                                                                                          \
  } while (0)

// A skip that is right on this machine (see the top of the file): `what` says why.
#define SKIP_EXPECTED(what) GTEST_SKIP() << ::circles::test::kExpectedSkip << what
