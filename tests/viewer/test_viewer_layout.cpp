// The viewer's pure parts, in-process: the window layout and the frame's placement, pan and zoom,
// the timings' histories and medians, the frame's texture bytes, the Kernels panel's bars and
// --kernels specs, the heat maps' ramp and the shortcut table.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/viewer/tools/live_lab.h"
#include "app/viewer/viewer_layout.h"
#include "app/viewer/viewer_state.h"
#include "kernels/lab/frame_stats.h"
#include "render/image.h"
#include "render/stats.h"
#include "viewer/viewer_test_util.h"

namespace circles {
namespace {

using namespace viewer_test;

TEST(ViewerLayout, SceneAreaIsEverythingRightOfThePanelColumn) {
  const PixelRect a = scene_area(1280, 720, 1.f);
  EXPECT_EQ(a.x, kPanelWidth);
  EXPECT_EQ(a.y, 0);
  EXPECT_EQ(a.w, 1280 - kPanelWidth);
  EXPECT_EQ(a.h, 720);
  const PixelRect hidpi = scene_area(2560, 1440, 2.f);
  EXPECT_EQ(hidpi.x, 2 * kPanelWidth);
  EXPECT_EQ(hidpi.w, 2560 - 2 * kPanelWidth);
  const PixelRect tiny = scene_area(100, 50, 1.f);  // never empty
  EXPECT_GE(tiny.w, 1);
  EXPECT_GE(tiny.h, 1);
}

// The stage chart stacks each series' newest samples, right-aligned, oldest column first.
TEST(ViewerLayout, StageChartColumnsAlignOnTheNewestSamples) {
  History a, b;
  for (float v : {1.f, 2.f, 3.f}) a.push(v);
  for (float v : {10.f, 20.f}) b.push(v);
  EXPECT_EQ(a.back(0), 3.f);
  EXPECT_EQ(a.back(2), 1.f);
  EXPECT_EQ(a.back(3), 0.f);
  const auto cols = stacked_columns({&a, &b}, 4);
  ASSERT_EQ(cols.size(), 4u);
  EXPECT_EQ(cols[0], (std::vector<float>{0.f, 0.f}));
  EXPECT_EQ(cols[1], (std::vector<float>{1.f, 0.f}));
  EXPECT_EQ(cols[2], (std::vector<float>{2.f, 10.f}));
  EXPECT_EQ(cols[3], (std::vector<float>{3.f, 20.f}));
  EXPECT_TRUE(stacked_columns({&a}, 0).empty());
}

TEST(ViewerLayout, DefaultViewOfAFollowingSizeIsTheUnitSquareOneToOne) {
  const PixelRect a = scene_area(1000, 600, 1.f);  // 640x600
  int w = 0, h = 0;
  render_size_for(a, 0, 0, &w, &h);
  EXPECT_EQ(w, 600);  // the largest square: the unit square fills the frame
  EXPECT_EQ(h, 600);
  const Placement p = place_frame(a, w, h, ViewState{});
  EXPECT_EQ(p.scale, 1.0);
  EXPECT_EQ(p.origin_x, a.x + 20);  // centred, letterboxed left and right
  EXPECT_EQ(p.origin_y, a.y);
  const PixelRect tall = scene_area(500, 900, 1.f);  // 140x900
  render_size_for(tall, 0, 0, &w, &h);
  EXPECT_EQ(w, 140);
  EXPECT_EQ(h, 140);
  render_size_for(a, 64, 32, &w, &h);
  EXPECT_EQ(w, 64);
  EXPECT_EQ(h, 32);
}

TEST(ViewerLayout, FixedSizesAreLetterboxedKeepingTheAspect) {
  const PixelRect a{360, 0, 900, 600};
  const Placement wide = place_frame(a, 300, 100, ViewState{});  // 3:1 in 3:2: bars above/below
  EXPECT_DOUBLE_EQ(wide.scale, 3.0);
  EXPECT_EQ(wide.origin_x, 360);
  EXPECT_EQ(wide.origin_y, 150);
  const Placement tall = place_frame(a, 100, 200, ViewState{});  // bars left/right
  EXPECT_DOUBLE_EQ(tall.scale, 3.0);
  EXPECT_EQ(tall.origin_x, 360 + 300);
  EXPECT_EQ(tall.origin_y, 0);
}

TEST(ViewerLayout, ZoomKeepsThePointUnderTheCursor) {
  const PixelRect a{360, 0, 800, 600};
  ViewState v;
  const Placement before = place_frame(a, 800, 600, v);
  const double px = 600, py = 200;
  const double tx = (px - before.origin_x) / before.scale, ty = (py - before.origin_y) / before.scale;
  zoom_about(&v, a, 800, 600, px, py, 2.5);
  const Placement after = place_frame(a, 800, 600, v);
  EXPECT_DOUBLE_EQ(after.scale, 2.5);
  EXPECT_NEAR(after.origin_x + tx * after.scale, px, 1.0);  // the origin is rounded to pixels
  EXPECT_NEAR(after.origin_y + ty * after.scale, py, 1.0);
  EXPECT_FALSE(v.is_default());
}

TEST(ViewerLayout, HistoryIsARingForPlotLines) {
  History h;
  EXPECT_EQ(h.count(), 0);
  EXPECT_EQ(h.latest(), 0.f);
  for (int i = 0; i < History::kSize + 5; ++i) h.push(static_cast<float>(i));
  EXPECT_EQ(h.count(), History::kSize);
  EXPECT_EQ(h.latest(), static_cast<float>(History::kSize + 4));
  EXPECT_EQ(h.values()[h.offset()], 5.f);  // the oldest value kept
  EXPECT_EQ(h.max(), static_cast<float>(History::kSize + 4));
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({}), 0.0);
}

TEST(ViewerTimings, FrameTimeAndFpsComeFromTheSameWindowAndPausedStagesAreMarkedOld) {
  TimingsUi t;
  EXPECT_EQ(t.fps(), 0.f);
  // 100 slow frames, then 60 fast ones: both figures describe the last 60 only.
  for (int i = 0; i < 100; ++i) t.frame_ms.push(100.f);
  for (int i = 0; i < TimingsUi::kWindow; ++i) t.frame_ms.push(i % 2 ? 10.f : 30.f);
  EXPECT_FLOAT_EQ(t.frame_median_ms(), 20.f);
  EXPECT_FLOAT_EQ(t.fps(), 50.f);
  EXPECT_FLOAT_EQ(t.frame_ms.recent_median(3), 10.f);  // 10, 30, 10
  // A stage sampled in the previous frame is current; one not sampled for longer (paused) is old.
  t.frame_index = 5;
  t.add("renderer: render", 2.f);
  t.frame_index = 6;
  EXPECT_FALSE(t.stale(t.series[0]));
  t.frame_index = 5 + TimingsUi::kStaleFrames + 1;
  EXPECT_TRUE(t.stale(t.series[0]));
  t.add("renderer: render", 3.f);
  EXPECT_FALSE(t.stale(t.series[0]));
  EXPECT_EQ(t.series.size(), 1u);
}

TEST(ViewerLayout, TextureBytesAreToRgba8BottomRowFirst) {
  Image img(3, 2);
  img.at(0, 0) = {1.f, 0.f, 0.f, 1.f};       // bottom-left: red
  img.at(2, 1) = {0.f, 0.f, 1.f, 1.f};       // top-right: blue
  img.at(1, 0) = {0.5f, -1.f, 2.f, 0.25f};   // clamped and rounded like to_rgba8
  std::vector<std::uint8_t> tex(img.pixels.size() * 4);
  to_rgba8_bottom_up(img, tex.data());
  const std::vector<std::uint8_t> png = to_rgba8(img);
  ASSERT_EQ(tex.size(), png.size());
  for (int row = 0; row < 2; ++row)
    for (int k = 0; k < 3 * 4; ++k) EXPECT_EQ(tex[row * 12 + k], png[(1 - row) * 12 + k]);
  EXPECT_EQ(tex[0], 255);  // texture row 0 is the bottom row
  EXPECT_EQ(tex[12 + 2 * 4 + 2], 255);
  // (0.5, -1, 2, 0.25): round(127.5), clamped to 0 and 255, round(63.75).
  EXPECT_EQ((std::array<std::uint8_t, 4>{tex[4], tex[5], tex[6], tex[7]}), (std::array<std::uint8_t, 4>{128, 0, 255, 64}));
}

// The Kernels panel's bars: only ticked rows with a time; the fastest bar or the copy line,
// whichever is larger, fills 95% of the width, and the copy line sits on the same scale.
TEST(ViewerKernels, BarsScaleToTheFastestOrTheCopy) {
  std::vector<KernelRow> rows(4);
  const char* names[] = {"a", "b", "c", "d"};
  const float gbps[] = {100, 400, 800, 50};
  for (int i = 0; i < 4; ++i) {
    rows[i].name = names[i];
    rows[i].ticked = i != 3;
    rows[i].gbps = gbps[i];
    rows[i].check = i == 1 ? "WRONG at index 3" : "ok";
    if (i != 2) rows[i].ms.push(1.f);  // c has no time yet
  }
  const std::vector<KernelBar> bars = kernel_bars(rows, 2000.f);
  ASSERT_EQ(bars.size(), 2u);
  EXPECT_EQ(bars[0].name, "a");
  EXPECT_EQ(bars[1].name, "b");
  EXPECT_FALSE(bars[1].ok);
  EXPECT_FLOAT_EQ(bars[0].fraction, 0.95f * 100 / 2000);
  EXPECT_FLOAT_EQ(bars[1].fraction, 0.95f * 400 / 2000);
  EXPECT_FLOAT_EQ(kernel_bar_fraction(2000.f, bars), 0.95f);
  const std::vector<KernelBar> fast = kernel_bars(rows, 200.f);  // b beats the copy: b fills 95%
  EXPECT_FLOAT_EQ(fast[1].fraction, 0.95f);
  EXPECT_FLOAT_EQ(kernel_bar_fraction(200.f, fast), 0.95f * 200 / 400);
  EXPECT_TRUE(kernel_bars({}, 100.f).empty());
}

// --kernels FAMILY[:VARIANT,...] and --kernels-size: the panel's choices, or an error that says
// what is wrong (the CLI turns it into exit 2).
TEST(ViewerKernels, SpecSelectsAFamilyTaskAndVariants) {
  KernelsUi k;
  kernels_ui_from_spec("reduce", "l2", &k);
  EXPECT_EQ(k.families.at(static_cast<std::size_t>(k.family)), "reduce");
  EXPECT_EQ(k.size, 1);
  EXPECT_TRUE(k.every_frame);
  int ticked = 0;
  for (const KernelRow& r : k.rows) ticked += r.ticked;
  EXPECT_EQ(ticked, static_cast<int>(k.rows.size()));  // every reduction runs live
  kernels_ui_from_spec("scan:compact-scan,compact-cub", "hbm", &k);
  EXPECT_EQ(k.tasks.at(static_cast<std::size_t>(k.task)), "compact");
  ASSERT_EQ(k.rows.size(), 2u);
  EXPECT_TRUE(k.rows[0].ticked && k.rows[1].ticked);
  kernels_ui_from_spec("transpose:transpose-best", "hbm", &k);
  for (const KernelRow& r : k.rows) {
    EXPECT_EQ(r.ticked, r.name == "transpose-best") << r.name;
    if (r.name == "transpose-cpu-mt") {
      EXPECT_TRUE(contains(r.unavailable, "runs on the CPU")) << r.unavailable;
    }
  }
  auto error = [](const std::string& spec, const std::string& size) {
    KernelsUi u;
    try {
      kernels_ui_from_spec(spec, size, &u);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_TRUE(contains(error("nope", "hbm"), "unknown family 'nope' (families: reduce, scan")) << error("nope", "hbm");
  EXPECT_TRUE(contains(error("reduce:scan-cub", "hbm"), "'scan-cub' is not a reduce variant"));
  EXPECT_TRUE(contains(error("scan:scan-cub,compact-cub", "hbm"), "'compact-cub' does not compute exclusive-scan"));
  EXPECT_TRUE(contains(error("transpose:transpose-cpu-mt", "hbm"), "cannot run live: runs on the CPU"));
  EXPECT_TRUE(contains(error("reduce:", "hbm"), "no variant after ':'"));
  EXPECT_TRUE(contains(error("reduce", "big"), "expected hbm (256 MiB inputs) or l2"));
  EXPECT_EQ(kernels_preset_shape(0, lab::Task::reduce_sum).n, std::size_t{1} << 26);
  EXPECT_EQ(kernels_preset_shape(1, lab::Task::exclusive_scan).n, std::size_t{1} << 20);
  EXPECT_EQ(kernels_preset_shape(1, lab::Task::transpose).width, 1024);
  EXPECT_EQ(kernels_preset_shape(0, lab::Task::transpose).height, 8192);
}

// The transpose view's reference: pixel (i, j) of the mirror image is pixel (j, i) of the frame.
TEST(ViewerKernels, TransposeReferenceMirrorsAlongTheDiagonal) {
  Image img(3, 2);
  for (int j = 0; j < 2; ++j)
    for (int i = 0; i < 3; ++i) img.at(i, j) = Float4{float(i), float(j), float(10 * i + j), 1.f};
  const Image t = lab::transpose_cpu(img);
  ASSERT_EQ(t.width, 2);
  ASSERT_EQ(t.height, 3);
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 2; ++i) {
      EXPECT_EQ(t.at(i, j).x, img.at(j, i).x);
      EXPECT_EQ(t.at(i, j).y, img.at(j, i).y);
      EXPECT_EQ(t.at(i, j).z, img.at(j, i).z);
      EXPECT_EQ(t.at(i, j).w, img.at(j, i).w);
    }
}

// The heat maps' ramp: dark at 0, pale at 1, brighter at every step (order reads without the
// legend); lo and hi map to its ends, NaN and out-of-range values are clamped.
TEST(ViewerLayout, HeatRampIsMonotoneAndTexelsSpanIt) {
  auto luma = [](const std::array<std::uint8_t, 3>& c) { return 0.3 * c[0] + 0.59 * c[1] + 0.11 * c[2]; };
  double last = -1;
  for (int k = 0; k <= 64; ++k) {
    const double l = luma(heat_colour(k / 64.f));
    EXPECT_GT(l, last) << k;
    last = l;
  }
  EXPECT_EQ(heat_colour(-3.f), heat_colour(0.f));
  EXPECT_EQ(heat_colour(7.f), heat_colour(1.f));
  EXPECT_EQ(heat_colour(std::nanf("")), heat_colour(0.f));
  const std::vector<std::uint8_t> t = heat_texels({2.f, 10.f, 6.f}, 3, 1, 2.f, 10.f);
  ASSERT_EQ(t.size(), 12u);
  EXPECT_EQ((std::array<std::uint8_t, 3>{t[0], t[1], t[2]}), heat_colour(0.f));
  EXPECT_EQ((std::array<std::uint8_t, 3>{t[4], t[5], t[6]}), heat_colour(1.f));
  EXPECT_EQ((std::array<std::uint8_t, 3>{t[8], t[9], t[10]}), heat_colour(0.5f));
  EXPECT_EQ(t[3], 255);
}

TEST(ViewerShortcuts, EveryRequiredKeyIsInTheHelpTable) {
  std::set<std::string> keys;
  std::set<Action> actions;
  for (const Shortcut& s : shortcuts()) {
    keys.insert(s.keys);
    EXPECT_TRUE(actions.insert(s.action).second) << "two rows for one action: " << s.keys;
    EXPECT_NE(std::string(s.what), "");
  }
  for (const char* k : {"Space", "Right, N", "R", "S", "C", "D", "V", "H, F1", "0", "Esc"})
    EXPECT_TRUE(keys.count(k)) << k;
}

}  // namespace
}  // namespace circles
