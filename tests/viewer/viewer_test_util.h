// Helpers shared by the viewer's test files (tests/viewer/test_viewer_*.cpp): the ViewerBinary
// fixture that runs the real `circles` binary in a directory of its own, and what its tests
// compare with (screenshots against `circles render`, the panel column, the GPU's presence).
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "app/common/registry.h"
#include "app/viewer/viewer_layout.h"
#include "render/image.h"
#include "render/png.h"
#include "test_util.h"

namespace circles::viewer_test {

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// How often `what` occurs in `text` (non-overlapping).
inline std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

struct Result {
  int rc = -1;
  std::string out, err;
};

// A timing summary's lines ("  NAME   median   samples"), by name: the median and the sample
// count. The name runs to the last two fields.
struct SummaryLine {
  double median = 0;
  long samples = 0;
};
inline std::map<std::string, SummaryLine> timing_summary(const std::string& out) {
  std::map<std::string, SummaryLine> m;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("  ", 0) != 0) continue;
    std::istringstream fields(line);
    std::vector<std::string> words;
    for (std::string w; fields >> w;) words.push_back(w);
    if (words.size() < 3) continue;
    std::string name;
    for (std::size_t i = 0; i + 2 < words.size(); ++i) name += (i ? " " : "") + words[i];
    char* end1 = nullptr;
    char* end2 = nullptr;
    const double median = std::strtod(words[words.size() - 2].c_str(), &end1);
    const long samples = std::strtol(words.back().c_str(), &end2, 10);
    if (*end1 || *end2) continue;  // not a stage line
    m[name] = {median, samples};
  }
  return m;
}

inline std::string describe(const Result& r) {
  return "exit " + std::to_string(r.rc) + "\nstdout:\n" + r.out + "\nstderr:\n" + r.err;
}

// The binary under test: $CIRCLES_BIN, else a `circles` next to this test executable (binaries
// copied together to another machine), else the one this build made. A relative $CIRCLES_BIN is
// made absolute here: the tests run it from other working directories.
inline std::string circles_bin() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("CIRCLES_BIN"); env && *env) return fs::absolute(env).string();
  std::error_code ec;
  const fs::path sibling = fs::read_symlink("/proc/self/exe", ec).parent_path() / "circles";
  if (!ec && fs::exists(sibling)) return sibling.string();
  return CIRCLES_BIN;
}

inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The frame in a screenshot's scene area (columns panel.., every row; the column is kPanelWidth
// wide at UI scale 1), centred 1:1 as the default view places it, against a rendered PNG: largest
// per-channel difference over RGB, in 1/255 steps.
inline int max_scene_area_difference(const Image& shot, const Image& frame, int panel = kPanelWidth) {
  const PixelRect area{panel, 0, shot.width - panel, shot.height};
  const Placement p = place_frame(area, frame.width, frame.height, ViewState{});
  EXPECT_EQ(p.scale, 1.0) << "the frame is not shown 1:1";
  const int ox = static_cast<int>(p.origin_x), oy = static_cast<int>(p.origin_y);
  int worst = 0;
  for (int j = 0; j < frame.height; ++j)
    for (int i = 0; i < frame.width; ++i) {
      const Float4 a = shot.at(ox + i, oy + j), b = frame.at(i, j);
      for (float d : {a.x - b.x, a.y - b.y, a.z - b.z})
        worst = std::max(worst, static_cast<int>(std::lround(std::fabs(d) * 255.f)));
    }
  return worst;
}

// The screenshot's panel column is drawn (not one flat colour) and unlike the scene area.
inline void expect_panels_drawn(const Image& shot, int panel = kPanelWidth) {
  const int kPanelWidth = panel;  // the column's width in this screenshot
  std::set<std::uint32_t> colours;
  auto key = [](const Float4& p) {
    return (static_cast<std::uint32_t>(std::lround(p.x * 255)) << 16) |
           (static_cast<std::uint32_t>(std::lround(p.y * 255)) << 8) | static_cast<std::uint32_t>(std::lround(p.z * 255));
  };
  for (int j = 0; j < shot.height; ++j)
    for (int i = 0; i < kPanelWidth; ++i) colours.insert(key(shot.at(i, j)));
  EXPECT_GE(colours.size(), 8u) << "the panel column looks empty";
  std::int64_t differing = 0;
  const int w = std::min(kPanelWidth, shot.width - kPanelWidth);
  for (int j = 0; j < shot.height; ++j)
    for (int i = 0; i < w; ++i) differing += key(shot.at(i, j)) != key(shot.at(kPanelWidth + i, j));
  EXPECT_GT(differing, static_cast<std::int64_t>(w) * shot.height / 4) << "the panel column looks like the scene";
}

inline bool gpu_missing() {
  for (const RendererInfo& r : renderer_registry())
    if (r.needs_gpu && unavailable_reason(r).empty()) return false;
  return true;
}

inline bool gpu_required() {
  const char* v = std::getenv("CIRCLES_REQUIRE_GPU");
  return v && std::string(v) == "1";
}

// Skips the test when cuda-tile-scan cannot run here; fails it instead when CIRCLES_REQUIRE_GPU=1.
#define REQUIRE_CUDA_TILE_SCAN()                                                                     \
  do {                                                                                               \
    const ::circles::RendererInfo* info_ = ::circles::find_renderer("cuda-tile-scan");               \
    const std::string why_ = info_ ? ::circles::unavailable_reason(*info_) : "not in the registry";  \
    if (!why_.empty()) {                                                                             \
      if (::circles::viewer_test::gpu_required()) FAIL() << "CIRCLES_REQUIRE_GPU=1 but cuda-tile-scan: " << why_; \
      GTEST_SKIP() << "cuda-tile-scan: " << why_;                                                    \
    }                                                                                                \
  } while (0)

class ViewerBinary : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("circles_viewer_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // Runs `env_prefix circles args...` in the test's directory; `wrapper` goes before the binary
  // (e.g. xvfb-run). The display is removed.
  Result circles(const std::vector<std::string>& args, const std::string& env_prefix = "",
                 const std::string& wrapper = "") const {
    std::string cmd = "cd " + quote(dir_.string()) + " && env -u DISPLAY -u WAYLAND_DISPLAY " + env_prefix + " " +
                      wrapper + " " + quote(circles_bin());
    for (const std::string& a : args) cmd += " " + quote(a);
    cmd += " > " + quote(path("stdout.txt")) + " 2> " + quote(path("stderr.txt"));
    const int status = std::system(cmd.c_str());
    Result r;
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    r.out = test::slurp(path("stdout.txt"));
    r.err = test::slurp(path("stderr.txt"));
    return r;
  }

  // `shot` is a w x h window with the panels drawn, and its scene area shows `circles render` of
  // rgb (cpu-mt) at the largest square in the scene area.
  void expect_window_of_rgb(const Image& shot, int w, int h, int panel = kPanelWidth) {
    ASSERT_EQ(shot.width, w);
    ASSERT_EQ(shot.height, h);
    expect_panels_drawn(shot, panel);
    const int side = std::min(w - panel, h);
    const std::string size = std::to_string(side) + "x" + std::to_string(side);
    const Result r = circles({"render", "rgb", "-r", "cpu-mt", "-s", size, "-o", path("render.png")});
    ASSERT_EQ(r.rc, 0) << describe(r);
    EXPECT_LE(max_scene_area_difference(shot, read_png(path("render.png")), panel), 1);
  }

  // On a GPU: the CUDA renderer offscreen through interop on `present` ("surface" or "pbo"): that
  // path and no other is used, --check passes, and the scene area equals `circles render` exactly.
  void expect_interop_frame(const std::string& present, const std::vector<std::string>& stages) {
    const Result v = circles({"view", "--offscreen", "rand10k", "-r", "cuda-tile-scan", "--quit-after", "5", "-s",
                              "1000x400", "--present", present, "--screenshot", path("shot.png"), "--check"});
    ASSERT_EQ(v.rc, 0) << describe(v);
    EXPECT_TRUE(contains(v.err, "EGL device platform")) << v.err;
    EXPECT_TRUE(contains(v.err, "present: cuda-gl interop (" + present + ")")) << v.err;
    EXPECT_EQ(count_of(v.err, "present: "), 1u) << v.err;  // no switch to another path
    for (const std::string& stage : stages) EXPECT_TRUE(contains(v.out, stage)) << v.out;
    EXPECT_TRUE(contains(v.out, "check: PASS")) << v.out;
    const Result r = circles({"render", "rand10k", "-r", "cuda-tile-scan", "-s", "400x400", "-o", path("render.png")});
    ASSERT_EQ(r.rc, 0) << describe(r);
    EXPECT_EQ(max_scene_area_difference(read_png(path("shot.png")), read_png(path("render.png"))), 0);
  }

  std::filesystem::path dir_;
};

}  // namespace circles::viewer_test
