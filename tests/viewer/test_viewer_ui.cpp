// The viewer's UI at any display: --ui-scale (or the display's content scale) sizes the column,
// its spacing and its font; every panel's text fits the column's width (wrapped, never cut) at
// the default 1280x720 and at scale 2; and the host copy's timing summary. Offscreen (EGL), so
// these run in CI without a GPU.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "app/common/lab_registry.h"
#include "app/common/registry.h"
#include "app/viewer/viewer_layout.h"
#include "render/png.h"
#include "viewer/viewer_test_util.h"

namespace circles {
namespace {

using namespace viewer_test;

// Every panel open, the default window: the column scrolls, and no text reaches past its edge.
TEST_F(ViewerBinary, EveryPanelsTextFitsTheDefaultWindow) {
  // On a CPU renderer's frame the heat map and the frame statistics are unavailable on any machine
  // (exit 1), and say why in their panels (text that must fit too): without a GPU, that there is
  // none; with one, that the frame is in host memory.
  const std::string gpu_why = gpu_unavailable_reason();
  const std::string heat_why = "heat: unavailable: the frame is drawn on the CPU: " +
                               (gpu_why.empty() ? "pick a CUDA renderer" : "no CUDA device here (" + gpu_why + ")");
  const std::string lab_why = lab_unavailable_reason();
  const std::string stats_why =
      "frame stats: cannot check: " + (lab_why.empty() ? "the frame is in host memory: pick a CUDA renderer" : lab_why);
  for (const char* renderer : {"cpu-mt", "cpu-ref"}) {
    SCOPED_TRACE(renderer);
    const Result v = circles({"view", "--offscreen", "rand10k", "-r", renderer, "--open-panels", "--quit-after", "10",
                              "--heat", "time", "--frame-stats", "reduce-shuffle"});
    EXPECT_EQ(v.rc, 1) << describe(v);
    EXPECT_TRUE(contains(v.err, heat_why)) << v.err;
    EXPECT_TRUE(contains(v.err, stats_why)) << v.err;
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
  struct Case {
    std::vector<std::string> flags;
    const char* message;
  };
  for (const Case& c : {Case{{"--ui-scale", "0.1"}, "--ui-scale: Value 0.1 not in range 0.5"},
                        Case{{"--ui-scale", "9"}, "--ui-scale: Value 9 not in range 0.5"},
                        Case{{"--font-size", "3"}, "--font-size: Value 3 not in range 6"},
                        Case{{"--ui-scale", "3", "-s", "800x600"},
                             "offscreen window 800x600 is too small: at least 1112x120 (the panel column alone is 1080 wide)"}}) {
    std::vector<std::string> args = {"view", "--offscreen", "rgb", "--quit-after", "1"};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    SCOPED_TRACE(c.message);
    const Result v = circles(args);
    EXPECT_EQ(v.rc, 2) << describe(v);
    EXPECT_TRUE(contains(v.err, c.message)) << describe(v);
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
  // The steps cover each frame of the host's loop: in the loop's order, none overlapping the next,
  // the first starting when the frame starts and the last ending when it ends (the same clock
  // readings); the host copy's two steps lie inside "host: to texture".
  const nlohmann::json doc = nlohmann::json::parse(json);
  const std::vector<std::string> order = {"host: events", "host: advance", "host: render", "host: to texture",
                                          "host: tools", "host: ui", "host: draw", "wait: swap (host)",
                                          "host: timings"};
  std::size_t frames_checked = 0;
  for (const nlohmann::json& f : doc["spans"]) {
    if (f["name"] != "frame") continue;
    const double f0 = f["t0"], f1 = f["t1"];
    SCOPED_TRACE("the frame from " + std::to_string(f0) + " ms");
    std::vector<const nlohmann::json*> steps, copies;
    const nlohmann::json* texture = nullptr;
    for (const nlohmann::json& s : doc["spans"]) {
      const double t0 = s["t0"], t1 = s["t1"];
      if (s["lane"] != "host" || t0 < f0 || t1 > f1) continue;
      const std::string name = s["name"];
      if (std::find(order.begin(), order.end(), name) != order.end()) steps.push_back(&s);
      if (name == "host: to texture") texture = &s;
      if (name.rfind("copy: ", 0) == 0) copies.push_back(&s);
    }
    std::stable_sort(steps.begin(), steps.end(), [](const nlohmann::json* a, const nlohmann::json* b) {
      return (*a)["t0"].get<double>() < (*b)["t0"].get<double>();
    });
    ASSERT_GE(steps.size(), order.size() - 1);  // "host: advance" from the second frame on
    EXPECT_EQ((*steps.front())["t0"].get<double>(), f0) << (*steps.front())["name"];
    EXPECT_EQ((*steps.back())["t1"].get<double>(), f1) << (*steps.back())["name"];
    std::size_t at = 0;
    for (std::size_t k = 0; k < steps.size(); ++k) {
      const std::string name = (*steps[k])["name"];
      const auto where = std::find(order.begin(), order.end(), name) - order.begin();
      EXPECT_GE(static_cast<std::size_t>(where), at) << name << " out of the loop's order";
      at = static_cast<std::size_t>(where) + 1;
      if (k > 0) {
        EXPECT_GE((*steps[k])["t0"].get<double>(), (*steps[k - 1])["t1"].get<double>()) << name;
      }
    }
    ASSERT_NE(texture, nullptr);
    EXPECT_EQ(copies.size(), 2u);
    for (const nlohmann::json* c : copies) {
      EXPECT_GE((*c)["t0"].get<double>(), (*texture)["t0"].get<double>()) << (*c)["name"];
      EXPECT_LE((*c)["t1"].get<double>(), (*texture)["t1"].get<double>()) << (*c)["name"];
    }
    ++frames_checked;
  }
  EXPECT_EQ(frames_checked, 12u);
  const std::string script = test::source_dir() + "/scripts/plot_timeline.py";
  const int rc = std::system(("python3 " + quote(script) + " " + quote(path("timeline.json")) + " -o " +
                              quote(path("timeline.svg")) + " > " + quote(path("summary.md")))
                                 .c_str());
  ASSERT_EQ(rc, 0);
  const std::string summary = test::slurp(path("summary.md"));
  EXPECT_TRUE(contains(summary, "| GPU idle (neither) |")) << summary;
  EXPECT_TRUE(contains(summary, "| host: render | host |")) << summary;
  // The summary's figures are there and are durations (how small the host's time outside the
  // steps is depends on the machine's load: the steps' order and bounds are checked above).
  auto value = [&](const std::string& row) {
    const std::size_t at = summary.find("| " + row + " | ");
    return at == std::string::npos ? -1.0 : std::stod(summary.substr(at + row.size() + 5));
  };
  EXPECT_GT(value("frame (host loop)"), 0) << summary;
  EXPECT_GE(value("host outside every interval"), 0) << summary;
  EXPECT_TRUE(contains(test::slurp(path("timeline.svg")), "<svg")) << "no drawing";
  // An unwritable path is refused before anything opens.
  const Result bad = circles({"view", "--offscreen", "rgb", "--quit-after", "1", "--timeline", "/nonexistent/t.json"});
  EXPECT_EQ(bad.rc, 2) << describe(bad);
}

}  // namespace
}  // namespace circles
