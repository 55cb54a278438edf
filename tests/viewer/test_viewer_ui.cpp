// The viewer's UI at any display: --ui-scale (or the display's content scale) sizes the column,
// its spacing and its font; every panel's text fits the column's width (wrapped, never cut) at
// the default 1280x720 and at scale 2; and the host copy's timing summary. Offscreen (EGL), so
// these run in CI without a GPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "app/viewer/viewer_layout.h"
#include "render/png.h"
#include "viewer/viewer_test_util.h"

namespace circles {
namespace {

using namespace viewer_test;

// Every panel open, the default window: the column scrolls, and no text reaches past its edge.
TEST_F(ViewerBinary, EveryPanelsTextFitsTheDefaultWindow) {
  for (const char* renderer : {"cpu-mt", "cpu-ref"}) {
    const Result v = circles({"view", "--offscreen", "rand10k", "-r", renderer, "--open-panels", "--quit-after", "10",
                              "--heat", "time", "--frame-stats", "reduce-shuffle"});
    // Without a GPU the heat map and frame statistics are unavailable (exit 1), and say why in
    // their panels: text that must fit too.
    EXPECT_TRUE(v.rc == 0 || v.rc == 1) << describe(v);
    EXPECT_TRUE(contains(v.err, "ui: scale 1.00, font 13 px")) << v.err;
    EXPECT_TRUE(contains(v.out, "panels: no text cut")) << v.out;
    EXPECT_TRUE(contains(v.out, "the column scrolls")) << v.out;  // every panel open: taller than 720
  }
}

// At --ui-scale 2 the column is twice as wide, the font 26 px, the text still fits, and the scene
// area still shows `circles render`'s frame 1:1.
TEST_F(ViewerBinary, ScaleTwoDoublesTheColumnAndItsTextFits) {
  const Result v = circles({"view", "--offscreen", "rgb", "-r", "cpu-mt", "-s", "2560x1440", "--ui-scale", "2",
                            "--open-panels", "--quit-after", "10", "--screenshot", path("shot.png")});
  ASSERT_EQ(v.rc, 0) << describe(v);
  EXPECT_TRUE(contains(v.err, "ui: scale 2.00, font 26 px (--ui-scale), column 720 px")) << v.err;
  EXPECT_TRUE(contains(v.out, "panels: no text cut")) << v.out;
  EXPECT_TRUE(contains(v.err, "render size 1440x1440")) << v.err;  // 2560 - 720 wide, 1440 high
  expect_window_of_rgb(read_png(path("shot.png")), 2560, 1440, panel_width(2.f));
  // --font-size sets the font, and the column widens with it (360 x 20/13).
  const Result f = circles({"view", "--offscreen", "rgb", "-r", "cpu-mt", "--font-size", "20", "--open-panels",
                            "--quit-after", "3"});
  ASSERT_EQ(f.rc, 0) << describe(f);
  EXPECT_TRUE(contains(f.err, "ui: scale 1.00, font 20 px (the display's content scale), column 554 px")) << f.err;
  EXPECT_TRUE(contains(f.out, "panels: no text cut")) << f.out;
}

TEST_F(ViewerBinary, UiScaleAndFontSizeAreValidated) {
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--ui-scale", "0.1"}, std::vector<std::string>{"--ui-scale", "9"},
        std::vector<std::string>{"--font-size", "3"}, std::vector<std::string>{"--ui-scale", "3", "-s", "800x600"}}) {
    std::vector<std::string> args = {"view", "--offscreen", "rgb", "--quit-after", "1"};
    args.insert(args.end(), bad.begin(), bad.end());
    const Result v = circles(args);
    EXPECT_EQ(v.rc, 2) << describe(v);
    EXPECT_FALSE(contains(v.err, "viewer: offscreen")) << "validated too late: " << describe(v);
  }
}

// The host copy (every CPU renderer's path) times its two steps every frame: the 8-bit read
// (converted on every core) and the upload.
TEST_F(ViewerBinary, HostCopyTimingSummaryHasItsSteps) {
  const Result v = circles({"view", "--offscreen", "rand10k", "-r", "cpu-mt", "--quit-after", "6", "--play"});
  ASSERT_EQ(v.rc, 0) << describe(v);
  EXPECT_TRUE(contains(v.err, "present: host copy: read_rgba8 + pixel buffer upload")) << v.err;
  const std::map<std::string, SummaryLine> summary = timing_summary(v.out);
  for (const char* stage : {"copy: read 8-bit", "copy: upload"}) {
    const auto it = summary.find(stage);
    ASSERT_NE(it, summary.end()) << stage << "\n" << v.out;
    EXPECT_EQ(it->second.samples, 6) << stage;  // every frame, playing
    EXPECT_GE(it->second.median, 0.0) << stage;
  }
}

// --timeline: every frame's intervals on one clock, as JSON, and the plot script draws it and sums
// it up. Here (no GPU) the host and GL lanes; on a GPU the CUDA lane too (test_viewer_gpu.cpp).
TEST_F(ViewerBinary, TimelineHasEveryFramesHostAndGlWork) {
  const Result v = circles({"view", "--offscreen", "rand10k", "-r", "cpu-mt", "--quit-after", "12", "--play",
                            "--timeline", path("timeline.json")});
  ASSERT_EQ(v.rc, 0) << describe(v);
  EXPECT_TRUE(contains(v.err, "timeline: " + path("timeline.json"))) << v.err;
  const std::string json = test::slurp(path("timeline.json"));
  EXPECT_EQ(count_of(json, "\"name\": \"frame\""), 12u);
  // Each step of the host's loop, every frame.
  for (const char* step : {"host: events", "host: render", "host: to texture", "host: tools", "host: ui", "host: draw",
                           "wait: swap (host)", "host: timings"})
    EXPECT_EQ(count_of(json, "\"name\": \"" + std::string(step) + "\""), 12u) << step;
  EXPECT_GE(count_of(json, "\"name\": \"gl: present\""), 9u);  // GL results arrive frames later
  EXPECT_EQ(count_of(json, "\"lane\": \"cuda\""), 0u);         // a CPU renderer
  // The source tree: $CIRCLES_SOURCE_DIR (binaries copied to another machine), else this build's.
  const char* src = std::getenv("CIRCLES_SOURCE_DIR");
  const std::string script = std::string(src && *src ? src : CIRCLES_SOURCE_DIR) + "/scripts/plot_timeline.py";
  const int rc = std::system(("python3 " + quote(script) + " " + quote(path("timeline.json")) + " -o " +
                              quote(path("timeline.svg")) + " > " + quote(path("summary.md")))
                                 .c_str());
  ASSERT_EQ(rc, 0);
  const std::string summary = test::slurp(path("summary.md"));
  EXPECT_TRUE(contains(summary, "| GPU idle (neither) |")) << summary;
  EXPECT_TRUE(contains(summary, "| host: render | host |")) << summary;
  // The steps cover the host's frame: what lies outside them is a small part of it.
  auto value = [&](const std::string& row) {
    const std::size_t at = summary.find("| " + row + " | ");
    return at == std::string::npos ? -1.0 : std::stod(summary.substr(at + row.size() + 5));
  };
  const double frame = value("frame (host loop)"), outside = value("host outside every interval");
  ASSERT_GT(frame, 0) << summary;
  ASSERT_GE(outside, 0) << summary;
  EXPECT_LT(outside, 0.05 * frame) << summary;
  EXPECT_TRUE(contains(test::slurp(path("timeline.svg")), "<svg")) << "no drawing";
  // An unwritable path is refused before anything opens.
  const Result bad = circles({"view", "--offscreen", "rgb", "--quit-after", "1", "--timeline", "/nonexistent/t.json"});
  EXPECT_EQ(bad.rc, 2) << describe(bad);
}

}  // namespace
}  // namespace circles
