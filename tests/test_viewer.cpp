// The viewer: its pure parts in-process; the real `circles` binary offscreen (EGL: Mesa
// surfaceless here, NVIDIA's device platform on a GPU machine), without a display, with bad
// flags, in a window under Xvfb, and through CUDA-GL interop on a GPU.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "app/cli/cli.h"
#include "render/stats.h"
#include "app/gl/gl_present.h"
#include "app/gl/gl_surface.h"
#include "app/viewer/live_lab.h"
#include "app/viewer/viewer_layout.h"
#include "app/viewer/viewer_state.h"
#include "render/builtin_scenes.h"
#include "render/png.h"
#include "app/common/registry.h"
#include "kernels/lab/frame_stats.h"
#include "test_util.h"

namespace circles {
namespace {

namespace fs = std::filesystem;
using test::slurp;

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// ---------------------------------------------------------------------------------------------
// Pure parts

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
  const std::vector<std::uint8_t> tex = to_texture_rgba8(img);
  const std::vector<std::uint8_t> png = to_rgba8(img);
  ASSERT_EQ(tex.size(), png.size());
  for (int row = 0; row < 2; ++row)
    for (int k = 0; k < 3 * 4; ++k) EXPECT_EQ(tex[row * 12 + k], png[(1 - row) * 12 + k]);
  EXPECT_EQ(tex[0], 255);  // texture row 0 is the bottom row
  EXPECT_EQ(tex[12 + 2 * 4 + 2], 255);
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

// ---------------------------------------------------------------------------------------------
// The presenter's GL side of the pbo path, in-process on an offscreen context (Mesa here): CUDA's
// part (the kernel writing the buffer) runs only on a GPU, so the buffer is filled by GL here.

TEST(ViewerPresenter, PixelBufferUploadFillsTheFrameTextureExactly) {
  const std::unique_ptr<GlSurface> surface = open_offscreen(kMinWindowWidth, kMinWindowHeight);
  Presenter presenter;  // destroyed before the context
  const int w = 37, h = 13;  // odd: RGBA8 rows need no padding at GL_UNPACK_ALIGNMENT 4
  presenter.ensure_size(w, h);
  const GLuint buffer = presenter.pixel_buffer();
  ASSERT_NE(buffer, 0u);
  EXPECT_EQ(presenter.pixel_buffer(), buffer) << "one buffer per size";
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(w) * h * 4);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i * 7 + i / 4);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffer);
  GLint64 size = 0;
  glGetBufferParameteri64v(GL_PIXEL_UNPACK_BUFFER, GL_BUFFER_SIZE, &size);
  EXPECT_EQ(size, static_cast<GLint64>(bytes.size()));
  glBufferSubData(GL_PIXEL_UNPACK_BUFFER, 0, static_cast<GLsizeiptr>(bytes.size()), bytes.data());
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  ASSERT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));

  presenter.upload_from_pixel_buffer();
  GLint bound = -1;
  glGetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, &bound);
  EXPECT_EQ(bound, 0) << "the pixel buffer must not stay bound (host uploads would read it)";
  std::vector<std::uint8_t> texels(bytes.size());
  glBindTexture(GL_TEXTURE_2D, presenter.frame_texture());
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_UNSIGNED_BYTE, texels.data());
  glBindTexture(GL_TEXTURE_2D, 0);
  ASSERT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
  EXPECT_TRUE(texels == bytes) << "the texture differs from the pixel buffer's bytes";
  glFinish();
  EXPECT_EQ(presenter.upload_timer().take().size(), 1u) << "the upload's GL timer query";

  // A new size: a buffer of the new size.
  presenter.ensure_size(w + 3, h);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, presenter.pixel_buffer());
  glGetBufferParameteri64v(GL_PIXEL_UNPACK_BUFFER, GL_BUFFER_SIZE, &size);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  EXPECT_EQ(size, static_cast<GLint64>(w + 3) * h * 4);
}

// ---------------------------------------------------------------------------------------------
// The binary

struct Result {
  int rc = -1;
  std::string out, err;
};

// The binary under test: $CIRCLES_BIN, else a `circles` next to this test executable (binaries
// copied together to another machine), else the one this build made. A relative $CIRCLES_BIN is
// made absolute here: the tests run it from other working directories.
std::string circles_bin() {
  if (const char* env = std::getenv("CIRCLES_BIN"); env && *env) return fs::absolute(env).string();
  std::error_code ec;
  const fs::path sibling = fs::read_symlink("/proc/self/exe", ec).parent_path() / "circles";
  if (!ec && fs::exists(sibling)) return sibling.string();
  return CIRCLES_BIN;
}

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

class ViewerBinary : public ::testing::Test {
 protected:
  // On a GPU: see its definition below.
  void expect_interop_frame(const std::string& present, const std::vector<std::string>& stages);
  void expect_window_of_rgb(const Image& shot, int w, int h);

  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("circles_viewer_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // Runs `env_prefix circles args...` in the test's directory; `wrapper` goes before the binary
  // (e.g. xvfb-run). The display is removed unless keep_display.
  Result circles(const std::vector<std::string>& args, const std::string& env_prefix = "",
              const std::string& wrapper = "") const {
    std::string cmd = "cd " + quote(dir_.string()) + " && env -u DISPLAY -u WAYLAND_DISPLAY " + env_prefix + " " +
                      wrapper + " " + quote(circles_bin());
    for (const std::string& a : args) cmd += " " + quote(a);
    cmd += " > " + quote(path("stdout.txt")) + " 2> " + quote(path("stderr.txt"));
    const int status = std::system(cmd.c_str());
    Result r;
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    r.out = slurp(path("stdout.txt"));
    r.err = slurp(path("stderr.txt"));
    return r;
  }

  fs::path dir_;
};

std::string describe(const Result& r) { return "exit " + std::to_string(r.rc) + "\nstdout:\n" + r.out + "\nstderr:\n" + r.err; }

// The frame in a screenshot's scene area (columns kPanelWidth.., every row), centred 1:1 as the
// default view places it, against a rendered PNG: largest per-channel difference over RGB, in
// 1/255 steps.
int max_scene_area_difference(const Image& shot, const Image& frame) {
  const PixelRect area{kPanelWidth, 0, shot.width - kPanelWidth, shot.height};
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
void expect_panels_drawn(const Image& shot) {
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

bool gpu_missing() {
  for (const RendererInfo& r : renderer_registry())
    if (r.needs_gpu && unavailable_reason(r).empty()) return false;
  return true;
}

// `shot` is a w x h window with the panels drawn, and its scene area shows `circles render` of rgb
// (cpu-mt) at the largest square in the scene area.
void ViewerBinary::expect_window_of_rgb(const Image& shot, int w, int h) {
  ASSERT_EQ(shot.width, w);
  ASSERT_EQ(shot.height, h);
  expect_panels_drawn(shot);
  const int side = std::min(w - kPanelWidth, h);
  const std::string size = std::to_string(side) + "x" + std::to_string(side);
  const Result r = circles({"render", "rgb", "-r", "cpu-mt", "-s", size, "-o", path("render.png")});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_LE(max_scene_area_difference(shot, read_png(path("render.png"))), 1);
}

TEST_F(ViewerBinary, OffscreenScreenshotShowsPanelsAndTheFrameOneToOne) {
  const Result v = circles({"view", "--offscreen", "rgb", "-r", "cpu-mt", "--quit-after", "3", "-s", "640x360",
                         "--screenshot", path("shot.png")});
  ASSERT_EQ(v.rc, 0) << describe(v);
  // The scene area (280x360 here) shows `circles render` of the same scene and frame at 280x280.
  expect_window_of_rgb(read_png(path("shot.png")), 640, 360);
  EXPECT_TRUE(contains(v.err, "present: host copy")) << v.err;
  EXPECT_TRUE(contains(v.out, "timing summary: 3 frames")) << v.out;
  EXPECT_TRUE(contains(v.out, "FPS")) << v.out;
  // No CUDA device here: the notice is shown (and logged); with one, it is not.
  EXPECT_EQ(contains(v.err, "notice: No CUDA device"), gpu_missing()) << v.err;
}

// The default 1280x720 window shows every panel's main controls without scrolling (notice
// included, when there is no GPU), and the frame is the unit square, letterboxed: the bands
// beside it are the letterbox, not the scene's white background.
TEST_F(ViewerBinary, DefaultWindowFitsThePanelsAndShowsTheUnitSquare) {
  // Ten frames: by then the Timings panel lists every stage (two frames showed fewer, and hid a
  // column 42 pixels too tall without a GPU).
  const Result v = circles({"view", "--offscreen", "rand10k", "-r", "cpu-mt", "--quit-after", "10", "--screenshot",
                            path("shot.png")});
  ASSERT_EQ(v.rc, 0) << describe(v);
  EXPECT_TRUE(contains(v.out, "panels: everything fits without scrolling")) << v.out;
  EXPECT_TRUE(contains(v.err, "render size 720x720")) << v.err;
  // One frame cannot tell: ImGui sizes the column from its second.
  const Result one = circles({"view", "--offscreen", "rgb", "-r", "cpu-mt", "--quit-after", "1"});
  ASSERT_EQ(one.rc, 0) << describe(one);
  EXPECT_TRUE(contains(one.out, "panels: not measured")) << one.out;
  const Image shot = read_png(path("shot.png"));
  ASSERT_EQ(shot.width, 1280);
  for (int x : {kPanelWidth + 5, kPanelWidth + 95, 1185, 1275})
    for (int y : {5, 360, 715}) {
      const Float4 p = shot.at(x, y);
      EXPECT_LT(std::max({p.x, p.y, p.z}), 0.2f) << "not letterbox at " << x << "," << y;
    }
  const Result r = circles({"render", "rand10k", "-r", "cpu-mt", "-s", "720x720", "-o", path("render.png")});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_LE(max_scene_area_difference(shot, read_png(path("render.png"))), 1);
}

// --inspect does what a click on the pixel does: the Inspector panel opens with the pixel's
// circles, and the log line gives the walk's colour against the renderer's (they match).
TEST_F(ViewerBinary, InspectShowsThePixelsCirclesAndTheyMatchTheRenderer) {
  const Result v = circles({"view", "--offscreen", "rand10k", "-r", "cpu-mt", "--quit-after", "2", "-s", "800x600",
                            "--inspect", "300,200", "--screenshot", path("shot.png")});
  ASSERT_EQ(v.rc, 0) << describe(v);
  EXPECT_TRUE(contains(v.err, "inspect: pixel 300,200 of 440x440 at frame 0: tile 9,6 (32x32) holds")) << v.err;
  EXPECT_TRUE(contains(v.err, "cover the pixel")) << v.err;
  EXPECT_TRUE(contains(v.err, "cpu-mt")) << v.err;
  EXPECT_TRUE(contains(v.err, ": match (max diff 0)")) << v.err;
  const Result bad = circles({"view", "--offscreen", "rgb", "--quit-after", "1", "--inspect", "3"});
  EXPECT_EQ(bad.rc, 2) << describe(bad);
  EXPECT_TRUE(contains(bad.err, "expected I,J")) << bad.err;
  // Outside the frame: known once the window is up (the run fails, exit 1), or at once with a
  // fixed render size (a usage error).
  const Result outside = circles({"view", "--offscreen", "rgb", "-r", "cpu-mt", "--quit-after", "1", "-s", "800x600",
                                  "--inspect", "500,5"});
  EXPECT_EQ(outside.rc, 1) << describe(outside);
  EXPECT_TRUE(contains(outside.err, "inspect: pixel 500,5 is outside the 440x440 frame")) << outside.err;
  const Result fixed = circles({"view", "--offscreen", "rgb", "-r", "cpu-mt", "--quit-after", "1", "--render-size",
                                "64x48", "--inspect", "10,48"});
  EXPECT_EQ(fixed.rc, 2) << describe(fixed);
  EXPECT_TRUE(contains(fixed.err, "--inspect 10,48 is outside the 64x48 render size (pixels 0..63, 0..47)")) << fixed.err;
}

// A built-in scene whose circles would not fit the host's memory is refused before it is
// generated and before any window opens (exit 1), as `circles render` refuses it.
TEST_F(ViewerBinary, ABuiltInSceneTooBigForTheHostIsRefusedFirst) {
  const Result v = circles({"view", "--offscreen", "rand1M", "-r", "cpu-mt", "--quit-after", "1"},
                           "CIRCLES_MEMORY_LIMIT_MB=100");
  EXPECT_EQ(v.rc, 1) << describe(v);
  EXPECT_TRUE(contains(v.err, "scene rand1M (1000000 circles) needs about 239 MiB of memory; 100 MiB are available"))
      << v.err;
  const Result small = circles({"view", "--offscreen", "rgb", "-r", "cpu-mt", "--quit-after", "1"},
                               "CIRCLES_MEMORY_LIMIT_MB=100");
  EXPECT_EQ(small.rc, 0) << describe(small);
}

// A scene file is estimated once it is parsed, by the same model, and refused before any window
// opens (exit 1): 5,000 circles (1.2 MB by render's model, over 90% of a 1 MiB limit); its first
// 3,000 (0.75 MB) open.
TEST_F(ViewerBinary, ASceneFileTooBigForTheHostIsRefusedOnceRead) {
  test::save_first_circles("rand10k", 5000, path("big.scene"));
  test::save_first_circles("rand10k", 3000, path("small.scene"));
  const Result v = circles({"view", "--offscreen", path("big.scene"), "-r", "cpu-mt", "--quit-after", "1"},
                           "CIRCLES_MEMORY_LIMIT_MB=1");
  EXPECT_EQ(v.rc, 1) << describe(v);
  EXPECT_TRUE(contains(v.err, "scene " + path("big.scene") + " (5000 circles) needs about 2 MiB of memory; 1 MiB are available"))
      << v.err;
  const Result ok = circles({"view", "--offscreen", path("small.scene"), "-r", "cpu-mt", "--quit-after", "1"},
                            "CIRCLES_MEMORY_LIMIT_MB=1");
  EXPECT_EQ(ok.rc, 0) << describe(ok);
}

// --frame-stats names a lab reduction that takes floats (else exit 2); it needs a CUDA renderer's
// frame, and says so (exit 1) when it cannot check.
TEST_F(ViewerBinary, FrameStatsNeedAFloatReductionAndACudaFrame) {
  const Result bad = circles({"view", "--offscreen", "rgb", "--quit-after", "1", "--frame-stats", "scan-cub"});
  EXPECT_EQ(bad.rc, 2) << describe(bad);
  EXPECT_TRUE(contains(bad.err, "not a float reduction of the lab (")) << bad.err;
  EXPECT_TRUE(contains(bad.err, "reduce-shuffle")) << bad.err;
  const Result cpu = circles({"view", "--offscreen", "rgb", "-r", "cpu-mt", "--quit-after", "2", "--frame-stats",
                              "reduce-shuffle"});
  EXPECT_EQ(cpu.rc, 1) << describe(cpu);
  EXPECT_TRUE(contains(cpu.err, "frame stats: cannot check: ")) << cpu.err;
}

// --kernels and --transpose-view: bad values are usage errors (exit 2) naming what is accepted;
// without a GPU both say why they cannot run (exit 1), the frame is still drawn.
// --kernels opens its panel (anywhere, Mesa too, greyed without a GPU): the panel column of a
// screenshot differs from the same window without them over many rows (the opened panel's text:
// the reduction ladder's 13 rows alone are ~280 pixels tall).
TEST_F(ViewerBinary, LabPanelsOpenAndDrawInTheColumn) {
  const std::vector<std::string> base = {"view", "--offscreen", "rgb", "-r", "cpu-mt", "--quit-after", "3",
                                         "-s", "1280x1400"};
  std::vector<std::string> plain = base, lab = base;
  plain.insert(plain.end(), {"--screenshot", path("plain.png")});
  lab.insert(lab.end(), {"--kernels", "reduce", "--screenshot", path("lab.png")});
  const Result a = circles(plain);
  ASSERT_EQ(a.rc, 0) << describe(a);
  const Result b = circles(lab);
  ASSERT_TRUE(b.rc == 0 || b.rc == 1) << describe(b);  // 1 without a GPU: the lab is unavailable
  const Image pa = read_png(path("plain.png")), pb = read_png(path("lab.png"));
  ASSERT_EQ(pa.width, pb.width);
  ASSERT_EQ(pa.height, pb.height);
  int rows = 0;
  for (int j = 0; j < pa.height; ++j)
    for (int i = 0; i < kPanelWidth; ++i) {
      const Float4 &p = pa.at(i, j), &q = pb.at(i, j);
      if (p.x != q.x || p.y != q.y || p.z != q.z) {
        ++rows;
        break;
      }
    }
  EXPECT_GT(rows, 280) << "rows of the panel column that changed";
}

TEST_F(ViewerBinary, KernelsAndTransposeViewFlags) {
  const Result bad = circles({"view", "--offscreen", "rgb", "--quit-after", "1", "--kernels", "reduce:nope"});
  EXPECT_EQ(bad.rc, 2) << describe(bad);
  EXPECT_TRUE(contains(bad.err, "'nope' is not a reduce variant")) << bad.err;
  const Result size = circles({"view", "--offscreen", "rgb", "--quit-after", "1", "--kernels-size", "l2"});
  EXPECT_EQ(size.rc, 2) << describe(size);
  EXPECT_TRUE(contains(size.err, "--kernels-size needs --kernels")) << size.err;
  const Result t = circles({"view", "--offscreen", "rgb", "--quit-after", "1", "--transpose-view", "transpose-cpu-mt"});
  EXPECT_EQ(t.rc, 2) << describe(t);
  EXPECT_TRUE(contains(t.err, "not a device transpose of the lab (transpose-naive-read,")) << t.err;
  const Result ks = circles({"view", "--offscreen", "rgb", "--quit-after", "1", "--kernels", "reduce", "--kernels-size",
                             "big"});
  EXPECT_EQ(ks.rc, 2) << describe(ks);
  EXPECT_TRUE(contains(ks.err, "--kernels-size 'big': expected hbm (256 MiB inputs) or l2")) << ks.err;
  const Result cq = circles({"view", "rgb", "--counters", "frame"});  // refused before any window opens
  EXPECT_EQ(cq.rc, 2) << describe(cq);
  EXPECT_TRUE(contains(cq.err, "--counters needs --quit-after N")) << cq.err;
  const Result h = circles({"view", "--offscreen", "rgb", "--quit-after", "1", "--heat", "hot"});
  EXPECT_EQ(h.rc, 2) << describe(h);
  EXPECT_TRUE(contains(h.err, "--heat 'hot': expected circles (per tile), blends (per pixel) or time")) << h.err;
  const Result hc = circles({"view", "--offscreen", "rgb", "-r", "cpu-mt", "--quit-after", "1", "--heat", "blends"});
  EXPECT_EQ(hc.rc, 1) << describe(hc);
  EXPECT_TRUE(contains(hc.err, "heat: unavailable: the frame is drawn on the CPU")) << hc.err;
  const Result c = circles({"view", "--offscreen", "rgb", "--quit-after", "1", "--counters", "nope"});
  EXPECT_EQ(c.rc, 2) << describe(c);
  EXPECT_TRUE(contains(c.err, "--counters 'nope': expected frame, stage:NAME (a stage of the renderer")) << c.err;
  // A CPU renderer's frame has no kernels to count: said, exit 1.
  const Result f = circles({"view", "--offscreen", "rgb", "-r", "cpu-mt", "--quit-after", "1", "--counters", "frame"});
  EXPECT_EQ(f.rc, 1) << describe(f);
  EXPECT_TRUE(contains(f.err, "counters: --counters frame: not a target here (the frame is drawn on the CPU)")) << f.err;
  if (!gpu_unavailable_reason().empty()) {
    const Result k = circles({"view", "--offscreen", "rgb", "-r", "cpu-mt", "--quit-after", "2", "--kernels", "reduce",
                              "--kernels-size", "l2", "--transpose-view", "transpose-best", "--counters",
                              "reduce-shuffle"});
    EXPECT_EQ(k.rc, 1) << describe(k);
    EXPECT_TRUE(contains(k.err, "kernels: unavailable: ")) << k.err;
    EXPECT_TRUE(contains(k.err, "transpose view: cannot check: ")) << k.err;
    EXPECT_TRUE(contains(k.err, "counters: --counters reduce-shuffle: not a target here (the lab cannot run: "))
        << k.err;
  }
}

TEST_F(ViewerBinary, PlayingAnimatesOneFramePerDisplayedFrameTimesSpeed) {
  // 4 displayed frames at speed 2: frames 0, 2, 4, 6.
  const Result v = circles({"view", "--offscreen", "hypnosis", "-r", "cpu-mt", "--quit-after", "4", "--play", "--speed",
                         "2", "-s", "520x200", "--screenshot", path("shot.png")});
  ASSERT_EQ(v.rc, 0) << describe(v);
  EXPECT_TRUE(contains(v.err, "frame 6 at 160x160")) << v.err;
  const Result r = circles({"render", "hypnosis", "-r", "cpu-ref", "-s", "160x160", "--frames", "6", "-o",
                         path("render.png")});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_LE(max_scene_area_difference(read_png(path("shot.png")), read_png(path("render.png"))), 1);
}

TEST_F(ViewerBinary, ExportIsByteIdenticalToCirclesRender) {
  const Result v = circles({"view", "--offscreen", "fireworks", "-r", "cpu-mt", "--quit-after", "3", "--play", "-s",
                         "500x150", "--export", path("export.png")});
  ASSERT_EQ(v.rc, 0) << describe(v);
  const Result r = circles({"render", "fireworks", "-r", "cpu-mt", "-s", "140x140", "--frames", "2", "-o",
                         path("render.png")});
  ASSERT_EQ(r.rc, 0) << describe(r);
  const std::string a = slurp(path("export.png")), b = slurp(path("render.png"));
  ASSERT_FALSE(a.empty());
  EXPECT_TRUE(a == b) << "the exported PNG differs from `circles render`'s";
}

TEST_F(ViewerBinary, FixedRenderSizeIsLetterboxedAndASceneFileLoads) {
  ASSERT_EQ(circles({"scene", "save", "rgby", path("s.scene")}).rc, 0);
  const Result v = circles({"view", "--offscreen", path("s.scene"), "-r", "cpu-ref", "--quit-after", "2", "-s", "600x300",
                         "--render-size", "120x60", "--screenshot", path("shot.png")});
  ASSERT_EQ(v.rc, 0) << describe(v);
  EXPECT_TRUE(contains(v.err, "render size 120x60")) << v.err;
  // 240x300 area, 120x60 frame: scale 2, 240x120, bars of 90 rows above and below.
  const Image shot = read_png(path("shot.png"));
  const Float4 bar = shot.at(kPanelWidth + 5, 5), top_bar = shot.at(kPanelWidth + 5, 295);
  EXPECT_LT(bar.x, 0.2f);
  EXPECT_LT(top_bar.x, 0.2f);
  const Float4 inside = shot.at(kPanelWidth + 120, 150);
  EXPECT_FALSE(inside.x == bar.x && inside.y == bar.y && inside.z == bar.z);
}

TEST_F(ViewerBinary, CheckPassesAndTheDiffOverlayShowsInTheScreenshot) {
  const Result v = circles({"view", "--offscreen", "rand10k", "-r", "cpu-mt", "--quit-after", "2", "-s", "520x160",
                         "--check", "--diff-overlay", "--screenshot", path("shot.png")});
  ASSERT_EQ(v.rc, 0) << describe(v);
  EXPECT_TRUE(contains(v.out, "check: PASS frame 0 160x160 cpu-mt vs cpu-ref")) << v.out;
  // Identical frames: the difference image (replacing the frame) is black everywhere.
  const Image shot = read_png(path("shot.png"));
  for (int j = 0; j < 160; j += 7)
    for (int i = 0; i < 160; i += 7) {
      const Float4 p = shot.at(kPanelWidth + i, j);
      ASSERT_TRUE(p.x == 0.f && p.y == 0.f && p.z == 0.f) << "pixel " << i << "," << j;
    }
}

TEST_F(ViewerBinary, ForcedNoInteropPathStillMatches) {
  for (const bool by_env : {false, true}) {
    SCOPED_TRACE(by_env ? "CIRCLES_FORCE_NO_INTEROP=1" : "--no-interop");
    std::vector<std::string> args = {"view", "--offscreen", "rgby", "--quit-after", "2", "-s", "500x120",
                                     "--screenshot", path("shot.png")};
    if (!by_env) args.push_back("--no-interop");
    const Result v = circles(args, by_env ? "CIRCLES_FORCE_NO_INTEROP=1" : "");
    ASSERT_EQ(v.rc, 0) << describe(v);
    EXPECT_TRUE(contains(v.err, "notice: CUDA-GL interop disabled")) << v.err;
    EXPECT_TRUE(contains(v.err, "present: host copy")) << v.err;
    EXPECT_FALSE(contains(v.err, "present: cuda-gl interop")) << v.err;
    const Result r = circles({"render", "rgby", "-s", "120x120", "-o", path("render.png")});
    ASSERT_EQ(r.rc, 0) << describe(r);
    EXPECT_LE(max_scene_area_difference(read_png(path("shot.png")), read_png(path("render.png"))), 1);
  }
}

TEST_F(ViewerBinary, PresentPathIsValidatedAndUnusedWithoutACudaRenderer) {
  for (const char* bad : {"bogus", ""}) {
    SCOPED_TRACE(std::string("--present '") + bad + "'");
    const Result v = circles({"view", "--offscreen", "rgb", "--quit-after", "1", "--present", bad});
    EXPECT_EQ(v.rc, 2) << describe(v);
    EXPECT_TRUE(contains(v.err, *bad ? "--present must be 'surface' or 'pbo'" : "--present is empty: give a value"))
        << describe(v);
    EXPECT_FALSE(contains(v.err, "viewer: offscreen")) << "validated too late: " << describe(v);
  }
  // A CPU renderer has no interop: --present pbo is accepted and unused (the host copy).
  const Result v = circles({"view", "--offscreen", "rgb", "-r", "cpu-mt", "--quit-after", "2", "-s", "500x120",
                            "--present", "pbo", "--screenshot", path("shot.png")});
  ASSERT_EQ(v.rc, 0) << describe(v);
  EXPECT_TRUE(contains(v.err, "present: host copy")) << v.err;
  const Result r = circles({"render", "rgb", "-r", "cpu-mt", "-s", "120x120", "-o", path("render.png")});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_LE(max_scene_area_difference(read_png(path("shot.png")), read_png(path("render.png"))), 1);
}

TEST_F(ViewerBinary, NoDisplayIsAClearErrorNotACrash) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"view", "rgb"}, std::vector<std::string>{}}) {
    const Result v = circles(args);
    // 1, not 2: the command line is fine, the machine has no display (run_viewer's NoDisplayError).
    EXPECT_EQ(v.rc, 1) << describe(v);
    EXPECT_TRUE(contains(v.err, "circles render")) << v.err;
    EXPECT_TRUE(contains(v.err, "--offscreen")) << v.err;
  }
}

TEST_F(ViewerBinary, BadFlagsFailClearlyBeforeOpeningAnything) {
  struct Case {
    std::vector<std::string> args;
    const char* message;
  };
  const std::vector<Case> cases = {
      {{"view", "-s", "abc"}, "bad size 'abc'"},
      {{"view", "--offscreen", "--quit-after", "2", "-s", "100x100"}, "too small"},
      {{"view", "--offscreen", "--quit-after", "2", "--render-size", "0x5"}, "bad size"},
      {{"view", "no-such-scene"}, "no-such-scene"},
      {{"view", "-r", "no-such-renderer"}, "unknown renderer"},
      {{"view", "--offscreen"}, "--offscreen needs --quit-after"},
      {{"view", "--screenshot", "x.png"}, "--screenshot needs --quit-after"},
      {{"view", "--quit-after", "2", "--diff-overlay"}, "--diff-overlay needs --check"},
      {{"view", "--quit-after", "0"}, "--quit-after"},
      {{"view", "--vsync", "maybe"}, "--vsync must be 'on' or 'off'"},
      {{"view", "--offscreen", "--quit-after", "2", "--vsync", "on"}, "window only"},
      {{"view", "--quit-after", "2", "--screenshot", "no/such/dir/x.png"}, "does not exist"},
      {{"view", "--quit-after", "2", "--export", ::testing::TempDir()}, "is a directory, not a file"},
      {{"view", "--quit-after", "2", "--screenshot", ::testing::TempDir()}, "is a directory, not a file"},
      {{"view", "--quit-after", "2", "--screenshot", "same.png", "--export", "./same.png"}, "name the same file"},
      {{"view", "--speed", "99"}, "--speed"},
  };
  for (const Case& c : cases) {
    std::string joined;
    for (const std::string& a : c.args) joined += " " + a;
    SCOPED_TRACE(joined);
    const Result v = circles(c.args);
    EXPECT_EQ(v.rc, 2) << describe(v);  // a command-line mistake
    EXPECT_TRUE(contains(v.err, c.message)) << describe(v);
    EXPECT_FALSE(contains(v.err, "cannot open a window")) << "validated too late: " << describe(v);
  }
  // An --export whose write fails (a full device) fails the run, as `circles render -o` does.
  std::error_code ec;
  if (fs::is_character_file("/dev/full", ec)) {
    const Result full = circles({"view", "--offscreen", "rgb", "--quit-after", "1", "--export", "/dev/full"});
    EXPECT_EQ(full.rc, 1) << describe(full);
    EXPECT_TRUE(contains(full.err, "cannot write PNG '/dev/full'")) << describe(full);
  }
  // An unreadable scene file is a SceneError with file:line:column.
  std::ofstream(path("bad.scene")) << "circles-scene 1\ncount 2\n0.5 0.5 0 0.1 1 0 0 1\n";
  const Result bad = circles({"view", "--offscreen", "--quit-after", "1", path("bad.scene")});
  EXPECT_EQ(bad.rc, 1) << describe(bad);
  EXPECT_TRUE(contains(bad.err, "bad.scene:")) << describe(bad);
}

TEST_F(ViewerBinary, HelpDescribesTheViewer) {
  const Result h = circles({"view", "--help"});
  ASSERT_EQ(h.rc, 0) << describe(h);
  for (const char* flag : {"--offscreen", "--quit-after", "--frames", "--screenshot", "--vsync", "--no-interop", "--present", "--play",
                           "-s"})
    EXPECT_TRUE(contains(h.out, flag)) << flag;
  const Result top = circles({"--help"});
  EXPECT_TRUE(contains(top.out, "With no arguments, circles opens the viewer")) << top.out;
}

// A real window under Xvfb (GLFW on X11, GLX), when xvfb-run is installed.
TEST_F(ViewerBinary, WindowUnderXvfb) {
  if (std::system("command -v xvfb-run > /dev/null 2>&1") != 0) GTEST_SKIP() << "xvfb-run is not installed";
  const Result v = circles({"view", "rgb", "-r", "cpu-mt", "--quit-after", "5", "--screenshot", path("win.png")}, "",
                        "xvfb-run -a -s '-screen 0 1280x1024x24'");
  ASSERT_EQ(v.rc, 0) << describe(v);
  EXPECT_TRUE(contains(v.err, "window (GLFW")) << v.err;
  expect_window_of_rgb(read_png(path("win.png")), 1280, 720);
}

// ---------------------------------------------------------------------------------------------
// On a GPU: the CUDA renderer through CUDA-GL interop (EGL device platform). Skips without one;
// fails instead when CIRCLES_REQUIRE_GPU=1.

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

bool gpu_required() {
  const char* v = std::getenv("CIRCLES_REQUIRE_GPU");
  return v && std::string(v) == "1";
}

#define REQUIRE_CUDA_TILE_SCAN()                                                             \
  do {                                                                                       \
    const RendererInfo* info_ = find_renderer("cuda-tile-scan");                             \
    const std::string why_ = info_ ? unavailable_reason(*info_) : "not in the registry";     \
    if (!why_.empty()) {                                                                     \
      if (gpu_required()) FAIL() << "CIRCLES_REQUIRE_GPU=1 but cuda-tile-scan: " << why_;    \
      GTEST_SKIP() << "cuda-tile-scan: " << why_;                                            \
    }                                                                                        \
  } while (0)

// The CUDA renderer offscreen through interop on `present` ("surface" or "pbo"): that path and no
// other is used, --check passes, and the scene area equals `circles render` exactly.
void ViewerBinary::expect_interop_frame(const std::string& present, const std::vector<std::string>& stages) {
  ViewerBinary& t = *this;
  const Result v = t.circles({"view", "--offscreen", "rand10k", "-r", "cuda-tile-scan", "--quit-after", "5", "-s",
                              "1000x400", "--present", present, "--screenshot", t.path("shot.png"), "--check"});
  ASSERT_EQ(v.rc, 0) << describe(v);
  EXPECT_TRUE(contains(v.err, "EGL device platform")) << v.err;
  EXPECT_TRUE(contains(v.err, "present: cuda-gl interop (" + present + ")")) << v.err;
  EXPECT_EQ(count_of(v.err, "present: "), 1u) << v.err;  // no switch to another path
  for (const std::string& stage : stages) EXPECT_TRUE(contains(v.out, stage)) << v.out;
  EXPECT_TRUE(contains(v.out, "check: PASS")) << v.out;
  const Result r = t.circles({"render", "rand10k", "-r", "cuda-tile-scan", "-s", "400x400", "-o", t.path("render.png")});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_EQ(max_scene_area_difference(read_png(t.path("shot.png")), read_png(t.path("render.png"))), 0);
}

TEST_F(ViewerBinary, GpuOffscreenUsesInteropAndMatchesRender) {
  REQUIRE_CUDA_TILE_SCAN();
  expect_interop_frame("surface", {"interop: map", "interop: convert"});
}

TEST_F(ViewerBinary, GpuOffscreenPboInteropMatchesRender) {
  REQUIRE_CUDA_TILE_SCAN();
  expect_interop_frame("pbo", {"interop: map", "interop: convert", "gl: pbo upload"});
}

// The inspector against a CUDA renderer's pixel (read back from the device): the CPU walk agrees.
TEST_F(ViewerBinary, GpuInspectMatchesTheCudaRenderersPixel) {
  REQUIRE_CUDA_TILE_SCAN();
  for (const char* renderer : {"cuda-tile-scan", "cuda-tile-binned"}) {
    const Result v = circles({"view", "--offscreen", "snow", "-r", renderer, "--quit-after", "3", "--play", "-s",
                              "800x600", "--inspect", "123,321"});
    ASSERT_EQ(v.rc, 0) << describe(v);
    EXPECT_TRUE(contains(v.err, "inspect: pixel 123,321 of 440x440")) << v.err;
    EXPECT_TRUE(contains(v.err, std::string(renderer) + " ")) << v.err;
    EXPECT_TRUE(contains(v.err, ": match (max diff")) << v.err;
  }
}

// cuda-tile-binned's early exit in the viewer: the frame passes --check against cpu-ref at the
// default tolerance (its colours are within 0.5/255), on a scene where it stops early.
TEST_F(ViewerBinary, GpuEarlyExitFramePassesTheCheck) {
  REQUIRE_CUDA_TILE_SCAN();
  const Result v = circles({"view", "--offscreen", "rand10k", "-r", "cuda-tile-binned", "--early-exit", "--quit-after",
                            "2", "-s", "800x600", "--check"});
  ASSERT_EQ(v.rc, 0) << describe(v);
  EXPECT_TRUE(contains(v.out, "check: PASS")) << v.out;
}

// The lab's reduction over every frame of a CUDA renderer: its GPU time is a stage of the
// summary, and the final check against the CPU's sums of the same frame passes.
TEST_F(ViewerBinary, GpuFrameStatsRunEveryFrameAndMatchTheCpu) {
  REQUIRE_CUDA_TILE_SCAN();
  const Result v = circles({"view", "--offscreen", "snow", "-r", "cuda-tile-binned", "--quit-after", "6", "--play",
                            "-s", "800x600", "--frame-stats", "reduce-shuffle", "--check"});
  ASSERT_EQ(v.rc, 0) << describe(v);
  EXPECT_TRUE(contains(v.err, "frame stats: reduce-shuffle (match)")) << v.err;
  EXPECT_TRUE(contains(v.out, "lab: reduce-shuffle")) << v.out;
  // --check: the difference statistics also come from the lab on the GPU, and agree.
  EXPECT_TRUE(contains(v.out, "check: PASS")) << v.out;
  EXPECT_TRUE(contains(v.out, "check: GPU (reduce-shuffle + max kernel, ")) << v.out;
  EXPECT_TRUE(contains(v.out, ": match the CPU's")) << v.out;
}

// The Kernels panel running the reduction ladder every frame on an L2-sized input behind a CUDA
// renderer's frame: every variant checked ok and timed, the round a stage of the summary.
TEST_F(ViewerBinary, GpuKernelsPanelRunsTheReductionLadderEveryFrame) {
  REQUIRE_CUDA_TILE_SCAN();
  const Result v = circles({"view", "--offscreen", "rand10k", "-r", "cuda-tile-binned", "--quit-after", "12", "--play",
                            "-s", "800x600", "--kernels", "reduce", "--kernels-size", "l2"});
  ASSERT_EQ(v.rc, 0) << describe(v);
  EXPECT_TRUE(contains(v.err, "kernels: reduce-sum, input 1048576 i32 (4 MiB)")) << v.err;
  EXPECT_TRUE(contains(v.err, "kernels: reduce-shuffle block 256 ok, ")) << v.err;
  EXPECT_TRUE(contains(v.err, "kernels: reduce-cub ok, ")) << v.err;
  EXPECT_FALSE(contains(v.err, "WRONG")) << v.err;
  EXPECT_TRUE(contains(v.out, "lab: kernels")) << v.out;
  // A CPU renderer's frame: the lab runs on its own stream.
  const Result c = circles({"view", "--offscreen", "rgb", "-r", "cpu-mt", "--quit-after", "3", "--kernels",
                            "scan:scan-cub,scan-lookback", "--kernels-size", "l2"});
  ASSERT_EQ(c.rc, 0) << describe(c);
  EXPECT_TRUE(contains(c.err, "kernels: scan-lookback ok, ")) << c.err;
}

// The Counters panel: the hardware counters of a lab variant (one run on the Kernels panel's
// input) and of the renderer's whole frame, read in-process after the last frame. reduce-shuffle
// reads its 4 MiB input (the L2 may hold part of it: at most the input) and runs full warps.
TEST_F(ViewerBinary, GpuCountersOfALabVariantAndOfTheFrame) {
  REQUIRE_CUDA_TILE_SCAN();
  const Result v = circles({"view", "--offscreen", "rand10k", "-r", "cuda-tile-binned", "--quit-after", "4", "-s",
                            "800x600", "--kernels", "reduce:reduce-shuffle", "--kernels-size", "l2", "--counters",
                            "reduce-shuffle"});
  if (contains(v.err, "counters: cannot measure: ") && std::getenv("CIRCLES_REQUIRE_COUNTERS") == nullptr)
    GTEST_SKIP() << "counters cannot be read here: " << v.err;
  ASSERT_EQ(v.rc, 0) << describe(v);
  EXPECT_TRUE(contains(v.err, "counters: lab: reduce-shuffle (1 pass, ")) << v.err;
  EXPECT_TRUE(contains(v.err, "threads per warp instruction 3")) << v.err;  // 30.xx-32.00
  const Result f = circles({"view", "--offscreen", "rand10k", "-r", "cuda-tile-binned", "--quit-after", "2", "-s",
                            "800x600", "--counters", "frame"});
  ASSERT_EQ(f.rc, 0) << describe(f);
  EXPECT_TRUE(contains(f.err, "counters: frame: cuda-tile-binned (1 pass, ")) << f.err;
  // One stage: only its kernels. The scatter (binning by counting) writes the pairs' ids: no
  // shading; the shade stage executes far more instructions than the scatter.
  auto instructions = [](const std::string& err) {
    const std::size_t at = err.find("warp instructions ");
    return at == std::string::npos ? -1.0 : std::atof(err.c_str() + at + 18);
  };
  // rand100k: enough circles that cuda-tile-binned bins them (rand10k it walks directly).
  const Result scatter = circles({"view", "--offscreen", "rand100k", "-r", "cuda-tile-binned", "--quit-after", "8", "-s",
                               "800x600", "--counters", "stage:scatter"});
  ASSERT_EQ(scatter.rc, 0) << describe(scatter);
  EXPECT_TRUE(contains(scatter.err, "counters: stage: cuda-tile-binned scatter (1 pass, ")) << scatter.err;
  const Result shade = circles({"view", "--offscreen", "rand100k", "-r", "cuda-tile-binned", "--quit-after", "8", "-s",
                                "800x600", "--counters", "stage:clear+shade"});
  const Result f100k = circles({"view", "--offscreen", "rand100k", "-r", "cuda-tile-binned", "--quit-after", "2", "-s",
                                "800x600", "--counters", "frame"});
  ASSERT_EQ(f100k.rc, 0) << describe(f100k);
  ASSERT_EQ(shade.rc, 0) << describe(shade);
  const double frame_inst = instructions(f100k.err), scatter_inst = instructions(scatter.err),
               shade_inst = instructions(shade.err);
  EXPECT_GT(scatter_inst, 0);
  EXPECT_GT(shade_inst, 4 * scatter_inst);
  EXPECT_LT(scatter_inst + shade_inst, frame_inst);  // the frame holds both and more
  const Result none = circles({"view", "--offscreen", "rand10k", "-r", "cuda-tile-binned", "--quit-after", "8", "-s",
                               "800x600", "--counters", "stage:nope"});
  EXPECT_EQ(none.rc, 1) << describe(none);
  EXPECT_TRUE(contains(none.err, "not a target here (no such stage)")) << none.err;
}

// The heat maps over a CUDA renderer's frame: each mode logs its range; biglittle's blends are
// uneven (a few big circles cover everything, the little ones pile up in one corner).
TEST_F(ViewerBinary, GpuHeatMapsShowTheWorkPerTileAndPixel) {
  REQUIRE_CUDA_TILE_SCAN();
  for (const char* mode : {"circles", "blends", "time"}) {
    const Result v = circles({"view", "--offscreen", "biglittle", "-r", "cuda-tile-binned", "--quit-after", "3", "-s",
                              "800x600", "--heat", mode});
    ASSERT_EQ(v.rc, 0) << describe(v);
    EXPECT_TRUE(contains(v.err, "heat: ")) << v.err;
    EXPECT_TRUE(contains(v.err, std::string(mode) == "circles" ? "circles per 16x16 tile"
                                : std::string(mode) == "blends" ? "blends per pixel"
                                                                : "shade cycles per 32x32 tile"))
        << v.err;
    EXPECT_FALSE(contains(v.err, "max/mean 0.00")) << v.err;
  }
}

// The transpose view: the lab's transpose over a CUDA renderer's frame, shown in its place, is
// the frame mirrored along its diagonal, exactly (the check and the screenshot).
TEST_F(ViewerBinary, GpuTransposeViewShowsTheFrameMirrored) {
  REQUIRE_CUDA_TILE_SCAN();
  const Result v = circles({"view", "--offscreen", "rand10k", "-r", "cuda-tile-binned", "--quit-after", "3", "-s",
                            "800x600", "--transpose-view", "transpose-shared32-padded", "--screenshot", path("shot.png")});
  ASSERT_EQ(v.rc, 0) << describe(v);
  EXPECT_TRUE(contains(v.err, "transpose view: transpose-shared32-padded: 440x440 mirror image equals the CPU's (0 of"))
      << v.err;
  EXPECT_TRUE(contains(v.out, "lab: transpose-shared32-padded")) << v.out;
  const Result r = circles({"render", "rand10k", "-r", "cuda-tile-binned", "-s", "440x440", "-o", path("render.png")});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_EQ(max_scene_area_difference(read_png(path("shot.png")), lab::transpose_cpu(read_png(path("render.png")))), 0);
}

TEST_F(ViewerBinary, GpuForcedNoInteropUsesTheHostCopy) {
  REQUIRE_CUDA_TILE_SCAN();
  const Result v = circles({"view", "--offscreen", "rand10k", "-r", "cuda-tile-scan", "--quit-after", "3", "-s", "1000x400",
                         "--no-interop", "--screenshot", path("shot.png")});
  ASSERT_EQ(v.rc, 0) << describe(v);
  EXPECT_TRUE(contains(v.err, "present: host copy")) << v.err;
  EXPECT_FALSE(contains(v.err, "present: cuda-gl interop")) << v.err;
  const Result r = circles({"render", "rand10k", "-r", "cuda-tile-scan", "-s", "400x400", "-o", path("render.png")});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_EQ(max_scene_area_difference(read_png(path("shot.png")), read_png(path("render.png"))), 0);
}

}  // namespace
}  // namespace circles
