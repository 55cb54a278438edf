// Helpers shared by the viewer's test files (tests/viewer/test_viewer_*.cpp): the ViewerBinary
// fixture that runs the real `circles` binary in a folder of its own, and what its tests compare
// with (a screenshot's scene area against cpu-ref's render, byte for byte; the panel column; the
// GPU's presence). The binary, the source tree, the folder and the GPU skips are test_util.h's.
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
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

inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The 8-bit RGB of pixel (i, j) of an image read from a PNG: its values are byte / 255, so
// to_byte_fast gives the file's bytes back exactly.
inline std::array<std::uint8_t, 3> rgb8(const Image& img, int i, int j) {
  const Float4& p = img.at(i, j);
  return {to_byte_fast(p.x), to_byte_fast(p.y), to_byte_fast(p.z)};
}

inline std::string rgb_text(const std::array<std::uint8_t, 3>& c) {
  return std::to_string(c[0]) + "," + std::to_string(c[1]) + "," + std::to_string(c[2]);
}

// Whether the scene area of the screenshot `shot` (columns panel.., every row) shows `frame` (a
// PNG read back: a render, or an image made from one) where the default view places a frame of
// that size, `scale` window pixels per texel (a whole number: 1 at the default render size), each
// pixel's 8-bit R, G and B equal to its texel's; and whether every other pixel of the scene area is
// the letterbox: one dark colour (each channel below 51, 0.2 of full scale).
inline ::testing::AssertionResult scene_area_shows(const Image& shot, const Image& frame, int panel = kPanelWidth,
                                                   int scale = 1) {
  if (frame.width < 1 || frame.height < 1) return ::testing::AssertionFailure() << "no frame to compare with";
  const PixelRect area{panel, 0, shot.width - panel, shot.height};
  if (area.w < 1 || area.h < 1)
    return ::testing::AssertionFailure() << "a " << shot.width << "x" << shot.height << " screenshot has no scene area";
  const Placement p = place_frame(area, frame.width, frame.height, ViewState{});
  if (p.scale != scale)
    return ::testing::AssertionFailure() << "the default view shows the " << frame.width << "x" << frame.height
                                         << " frame at scale " << p.scale << ", not " << scale;
  const int ox = static_cast<int>(p.origin_x), oy = static_cast<int>(p.origin_y);
  const int fw = frame.width * scale, fh = frame.height * scale;
  if (ox < area.x || oy < area.y || ox + fw > area.x + area.w || oy + fh > area.y + area.h)
    return ::testing::AssertionFailure() << "the frame (" << fw << "x" << fh << " at " << ox << "," << oy
                                         << ") does not fit the scene area";
  std::int64_t differing = 0, not_letterbox = 0;
  std::string first, first_letterbox;
  bool have_letterbox = false;
  std::array<std::uint8_t, 3> letterbox{};
  for (int y = area.y; y < area.y + area.h; ++y)
    for (int x = area.x; x < area.x + area.w; ++x) {
      const std::array<std::uint8_t, 3> got = rgb8(shot, x, y);
      if (x >= ox && x < ox + fw && y >= oy && y < oy + fh) {
        const int i = (x - ox) / scale, j = (y - oy) / scale;
        const std::array<std::uint8_t, 3> want = rgb8(frame, i, j);
        if (got != want && differing++ == 0)
          first = "texel " + std::to_string(i) + "," + std::to_string(j) + " (window pixel " + std::to_string(x) + "," +
                  std::to_string(y) + "): " + rgb_text(got) + " against " + rgb_text(want);
      } else if (!have_letterbox) {
        have_letterbox = true;
        letterbox = got;
      } else if (got != letterbox && not_letterbox++ == 0) {
        first_letterbox = "window pixel " + std::to_string(x) + "," + std::to_string(y) + ": " + rgb_text(got);
      }
    }
  std::string wrong;
  if (differing)
    wrong = std::to_string(differing) + " of " + std::to_string(static_cast<std::int64_t>(fw) * fh) +
            " frame pixels of the scene area differ; the first: " + first;
  if (have_letterbox && (not_letterbox || *std::max_element(letterbox.begin(), letterbox.end()) >= 51))
    wrong += (wrong.empty() ? "" : "; and ") + std::string("the letterbox is not one dark colour (") +
             rgb_text(letterbox) + "; " + std::to_string(not_letterbox) + " pixels differ from it" +
             (not_letterbox ? ", the first: " + first_letterbox : std::string()) + ")";
  if (!wrong.empty()) return ::testing::AssertionFailure() << wrong;
  return ::testing::AssertionSuccess();
}

// The screenshot's panel column is drawn (not one flat colour) and unlike the scene area.
inline void expect_panels_drawn(const Image& shot, int panel = kPanelWidth) {
  std::set<std::uint32_t> colours;
  auto key = [&](int i, int j) {
    const std::array<std::uint8_t, 3> c = rgb8(shot, i, j);
    return (static_cast<std::uint32_t>(c[0]) << 16) | (static_cast<std::uint32_t>(c[1]) << 8) | c[2];
  };
  for (int j = 0; j < shot.height; ++j)
    for (int i = 0; i < panel; ++i) colours.insert(key(i, j));
  EXPECT_GE(colours.size(), 8u) << "the panel column looks empty";
  std::int64_t differing = 0;
  const int w = std::min(panel, shot.width - panel);
  for (int j = 0; j < shot.height; ++j)
    for (int i = 0; i < w; ++i) differing += key(i, j) != key(panel + i, j);
  EXPECT_GT(differing, static_cast<std::int64_t>(w) * shot.height / 4) << "the panel column looks like the scene";
}

// No renderer that needs the GPU can run here.
inline bool gpu_missing() {
  for (const RendererInfo& r : renderer_registry())
    if (r.needs_gpu && unavailable_reason(r).empty()) return false;
  return true;
}

// Why the CUDA renderers the GPU tests use (cuda-tile-scan, cuda-tile-binned) cannot run here, or
// "" when they can.
inline std::string cuda_renderers_unavailable() {
  for (const char* name : {"cuda-tile-scan", "cuda-tile-binned"}) {
    const RendererInfo* info = find_renderer(name);
    if (!info) return std::string(name) + " is not in the registry";
    if (const std::string why = unavailable_reason(*info); !why.empty()) return std::string(name) + ": " + why;
  }
  return "";
}

// Skips the test where the CUDA renderers cannot run here; fails it instead when
// CIRCLES_REQUIRE_GPU=1 (test_util.h's NEED_GPU).
#define REQUIRE_CUDA_RENDERERS() NEED_GPU(::circles::viewer_test::cuda_renderers_unavailable())

// Runs the real `circles` binary in a folder of its own per test (test::TempDirTest).
class ViewerBinary : public test::TempDirTest {
 protected:
  // Runs `env_prefix circles args...` in the test's folder; `wrapper` goes before the binary
  // (e.g. xvfb-run). The display is removed.
  Result circles(const std::vector<std::string>& args, const std::string& env_prefix = "",
                 const std::string& wrapper = "") const {
    std::string cmd = "cd " + quote(dir_.string()) + " && env -u DISPLAY -u WAYLAND_DISPLAY " + env_prefix + " " +
                      wrapper + " " + quote(test::circles_bin());
    for (const std::string& a : args) cmd += " " + quote(a);
    cmd += " > " + quote(path("stdout.txt")) + " 2> " + quote(path("stderr.txt"));
    const int status = std::system(cmd.c_str());
    Result r;
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    r.out = test::slurp(path("stdout.txt"));
    r.err = test::slurp(path("stderr.txt"));
    return r;
  }

  // The reference picture: `circles render SCENE -r cpu-ref -s SIZE [extra...]` written to
  // `name` in the test's folder and read back (an empty image, and a failure, where it fails).
  Image cpu_ref_render(const std::string& scene, const std::string& size, const std::string& name = "render.png",
                       const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> args = {"render", scene, "-r", "cpu-ref", "-s", size, "-o", path(name)};
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = circles(args);
    if (r.rc != 0) {
      ADD_FAILURE() << "circles render failed: " << describe(r);
      return Image();
    }
    return read_png(path(name));
  }

  // `shot` is a w x h window with the panels drawn, and its scene area shows cpu-ref's render of
  // rgb at the largest square in the scene area, to the bit.
  void expect_window_of_rgb(const Image& shot, int w, int h, int panel = kPanelWidth) {
    ASSERT_EQ(shot.width, w);
    ASSERT_EQ(shot.height, h);
    expect_panels_drawn(shot, panel);
    const int side = std::min(w - panel, h);
    EXPECT_TRUE(scene_area_shows(shot, cpu_ref_render("rgb", std::to_string(side) + "x" + std::to_string(side)), panel));
  }

  // On a GPU: the CUDA renderer offscreen through interop on `present` ("external", "surface" or
  // "pbo"): that path and no other is used, --check passes, and the scene area equals cpu-ref's
  // render to the bit.
  void expect_interop_frame(const std::string& present, const std::vector<std::string>& stages) {
    const Result v = circles({"view", "--offscreen", "rand10k", "-r", "cuda-tile-scan", "--quit-after", "5", "-s",
                              "1000x400", "--present", present, "--screenshot", path("shot.png"), "--check"});
    ASSERT_EQ(v.rc, 0) << describe(v);
    EXPECT_TRUE(contains(v.err, "EGL device platform")) << v.err;
    EXPECT_TRUE(contains(v.err, "present: cuda-gl interop (" + present + ")")) << v.err;
    EXPECT_EQ(count_of(v.err, "present: "), 1u) << v.err;  // no switch to another path
    for (const std::string& stage : stages) EXPECT_TRUE(contains(v.out, stage)) << v.out;
    EXPECT_TRUE(contains(v.out, "check: PASS frame 0 400x400 cuda-tile-scan vs cpu-ref (exact mode")) << v.out;
    EXPECT_TRUE(scene_area_shows(read_png(path("shot.png")), cpu_ref_render("rand10k", "400x400")));
  }
};

}  // namespace circles::viewer_test
