// The real `circles` binary's viewer without a GPU: offscreen (EGL: Mesa surfaceless here,
// NVIDIA's device platform on a GPU machine), each screenshot's scene area and each export against
// cpu-ref's `circles render` byte for byte, without a display, with bad flags, and in a window
// under Xvfb. Its GPU tests are in test_viewer_gpu.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include "app/common/lab_registry.h"
#include "app/common/registry.h"
#include "app/viewer/viewer_layout.h"
#include "render/png.h"
#include "test_util.h"
#include "viewer/viewer_test_util.h"

namespace circles {
namespace {

using namespace viewer_test;

namespace fs = std::filesystem;
using test::slurp;

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
  ASSERT_EQ(shot.height, 720);
  // The 920x720 scene area: cpu-ref's 720x720 frame in the middle, to the bit, and 100-pixel bands
  // of one dark letterbox colour on either side.
  EXPECT_TRUE(scene_area_shows(shot, cpu_ref_render("rand10k", "720x720")));
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
  const std::string lab_why = lab_unavailable_reason();
  EXPECT_TRUE(contains(cpu.err, "frame stats: cannot check: " +
                                    (lab_why.empty() ? "the frame is in host memory: pick a CUDA renderer" : lab_why)))
      << cpu.err;
}

// --kernels opens its panel (anywhere, Mesa too, greyed without a GPU): the panel column of a
// screenshot differs from the same window without it over many rows (the opened panel's text: the
// reduction ladder's 13 rows alone are ~280 pixels tall). With a GPU the ladder runs behind the CPU
// renderer's frame and every variant is checked ok (exit 0); without one the lab is unavailable,
// said with the reason (exit 1), and the frame is still drawn.
TEST_F(ViewerBinary, LabPanelsOpenAndDrawInTheColumn) {
  const std::vector<std::string> base = {"view", "--offscreen", "rgb", "-r", "cpu-mt", "--quit-after", "3",
                                         "-s", "1280x1400"};
  std::vector<std::string> plain = base, lab = base;
  plain.insert(plain.end(), {"--screenshot", path("plain.png")});
  lab.insert(lab.end(), {"--kernels", "reduce", "--screenshot", path("lab.png")});
  const Result a = circles(plain);
  ASSERT_EQ(a.rc, 0) << describe(a);
  const Result b = circles(lab);
  if (const std::string lab_why = lab_unavailable_reason(); lab_why.empty()) {
    EXPECT_EQ(b.rc, 0) << describe(b);
    EXPECT_TRUE(contains(b.err, "kernels: reduce-sum, input ")) << b.err;
    EXPECT_TRUE(contains(b.err, "kernels: reduce-cub ok, ")) << b.err;
    EXPECT_FALSE(contains(b.err, "WRONG")) << b.err;
    EXPECT_FALSE(contains(b.err, " not run, ")) << b.err;
  } else {
    EXPECT_EQ(b.rc, 1) << describe(b);
    EXPECT_TRUE(contains(b.err, "kernels: unavailable: " + lab_why)) << b.err;
  }
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

// The lab's flags, the heat map's and the counters': bad values are usage errors (exit 2) naming
// what is accepted; what a CPU renderer's frame cannot have is said (exit 1).
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
}

// Without a GPU the lab cannot run: --kernels, --transpose-view and --counters on a lab variant
// each say so with the reason (exit 1), and the frame is still drawn. (With a GPU they run:
// test_viewer_gpu.cpp.)
TEST_F(ViewerBinary, WithoutAGpuTheLabFlagsSayWhy) {
  const std::string lab_why = lab_unavailable_reason();
  if (lab_why.empty()) SKIP_EXPECTED("the lab runs here: this is the no-GPU path");
  const Result k = circles({"view", "--offscreen", "rgb", "-r", "cpu-mt", "--quit-after", "2", "--kernels", "reduce",
                            "--kernels-size", "l2", "--transpose-view", "transpose-best", "--counters",
                            "reduce-shuffle", "--screenshot", path("shot.png")});
  EXPECT_EQ(k.rc, 1) << describe(k);
  EXPECT_TRUE(contains(k.err, "kernels: unavailable: " + lab_why)) << k.err;
  EXPECT_TRUE(contains(k.err, "transpose view: cannot check: " + lab_why)) << k.err;
  EXPECT_TRUE(contains(k.err, "counters: --counters reduce-shuffle: not a target here (the lab cannot run: " + lab_why))
      << k.err;
  // The default 1280x720 window: a 720x720 frame.
  EXPECT_TRUE(scene_area_shows(read_png(path("shot.png")), cpu_ref_render("rgb", "720x720")));
}

TEST_F(ViewerBinary, PlayingAnimatesOneFramePerDisplayedFrameTimesSpeed) {
  // 4 displayed frames at speed 2: frames 0, 2, 4, 6.
  const Result v = circles({"view", "--offscreen", "hypnosis", "-r", "cpu-mt", "--quit-after", "4", "--play", "--speed",
                         "2", "-s", "520x200", "--screenshot", path("shot.png")});
  ASSERT_EQ(v.rc, 0) << describe(v);
  EXPECT_TRUE(contains(v.err, "frame 6 at 160x160")) << v.err;
  EXPECT_TRUE(scene_area_shows(read_png(path("shot.png")), cpu_ref_render("hypnosis", "160x160", "render.png", {"--frames", "6"})));
}

// The export is cpu-ref's PNG of the same scene, size and frame, byte for byte.
TEST_F(ViewerBinary, ExportIsByteIdenticalToCirclesRender) {
  const Result v = circles({"view", "--offscreen", "fireworks", "-r", "cpu-mt", "--quit-after", "3", "--play", "-s",
                         "500x150", "--export", path("export.png")});
  ASSERT_EQ(v.rc, 0) << describe(v);
  EXPECT_TRUE(contains(v.err, "export: wrote " + path("export.png") + ": frame 2, 140x140, cpu-mt")) << v.err;
  const Result r = circles({"render", "fireworks", "-r", "cpu-ref", "-s", "140x140", "--frames", "2", "-o",
                         path("render.png")});
  ASSERT_EQ(r.rc, 0) << describe(r);
  const std::string a = slurp(path("export.png")), b = slurp(path("render.png"));
  ASSERT_FALSE(a.empty());
  EXPECT_TRUE(a == b) << "the exported PNG differs from cpu-ref's `circles render`";
}

TEST_F(ViewerBinary, FixedRenderSizeIsLetterboxedAndASceneFileLoads) {
  ASSERT_EQ(circles({"scene", "save", "rgby", path("s.scene")}).rc, 0);
  const Result v = circles({"view", "--offscreen", path("s.scene"), "-r", "cpu-ref", "--quit-after", "2", "-s", "600x300",
                         "--render-size", "120x60", "--screenshot", path("shot.png")});
  ASSERT_EQ(v.rc, 0) << describe(v);
  EXPECT_TRUE(contains(v.err, "render size 120x60")) << v.err;
  // 240x300 area, 120x60 frame: scale 2, each texel a 2x2 block of cpu-ref's render of the file,
  // 240x120, and letterbox bars of 90 rows above and below.
  EXPECT_TRUE(scene_area_shows(read_png(path("shot.png")), cpu_ref_render(path("s.scene"), "120x60"), kPanelWidth, 2));
}

TEST_F(ViewerBinary, ABinaryNpzSceneLoads) {
  // Shown as the same scene's text file is drawn.
  ASSERT_EQ(circles({"scene", "save", "rgby", path("s.npz")}).rc, 0);
  ASSERT_EQ(circles({"scene", "save", "rgby", path("s.scene")}).rc, 0);
  const Result v = circles({"view", "--offscreen", path("s.npz"), "-r", "cpu-ref", "--quit-after", "2", "-s", "600x300",
                         "--render-size", "120x60", "--screenshot", path("shot.png")});
  ASSERT_EQ(v.rc, 0) << describe(v);
  EXPECT_TRUE(scene_area_shows(read_png(path("shot.png")), cpu_ref_render(path("s.scene"), "120x60"), kPanelWidth, 2));
}

TEST_F(ViewerBinary, CheckPassesAndTheDiffOverlayShowsInTheScreenshot) {
  const Result v = circles({"view", "--offscreen", "rand10k", "-r", "cpu-mt", "--quit-after", "2", "-s", "520x160",
                         "--check", "--diff-overlay", "--screenshot", path("shot.png")});
  ASSERT_EQ(v.rc, 0) << describe(v);
  EXPECT_TRUE(contains(v.out, "check: PASS frame 0 160x160 cpu-mt vs cpu-ref")) << v.out;
  // Identical frames: the difference image, replacing the frame, is black at every pixel of the
  // 160x160 scene area, where the frame itself is not black.
  EXPECT_TRUE(scene_area_shows(read_png(path("shot.png")), Image(160, 160)));
  const Image frame = cpu_ref_render("rand10k", "160x160");
  std::int64_t black = 0;
  for (int j = 0; j < frame.height; ++j)
    for (int i = 0; i < frame.width; ++i) black += rgb8(frame, i, j) == std::array<std::uint8_t, 3>{0, 0, 0};
  EXPECT_LT(black, 160 * 160 / 2) << "the frame is mostly black: the overlay cannot be told from it";
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
    EXPECT_TRUE(scene_area_shows(read_png(path("shot.png")), cpu_ref_render("rgby", "120x120")));
  }
}

TEST_F(ViewerBinary, PresentPathIsValidatedAndUnusedWithoutACudaRenderer) {
  for (const char* bad : {"bogus", ""}) {
    SCOPED_TRACE(std::string("--present '") + bad + "'");
    const Result v = circles({"view", "--offscreen", "rgb", "--quit-after", "1", "--present", bad});
    EXPECT_EQ(v.rc, 2) << describe(v);
    EXPECT_TRUE(contains(v.err, *bad ? "--present must be 'surface', 'pbo' or 'external'" : "--present is empty: give a value"))
        << describe(v);
    EXPECT_FALSE(contains(v.err, "viewer: offscreen")) << "validated too late: " << describe(v);
  }
  // A CPU renderer has no interop: --present pbo is accepted and unused (the host copy).
  const Result v = circles({"view", "--offscreen", "rgb", "-r", "cpu-mt", "--quit-after", "2", "-s", "500x120",
                            "--present", "pbo", "--screenshot", path("shot.png")});
  ASSERT_EQ(v.rc, 0) << describe(v);
  EXPECT_TRUE(contains(v.err, "present: host copy")) << v.err;
  EXPECT_TRUE(scene_area_shows(read_png(path("shot.png")), cpu_ref_render("rgb", "120x120")));
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
      {{"view", "--rung", "no-such-rung"}, "no rung 'no-such-rung' (rungs: naive, tile-scan"},
      {{"view", "--rung", "tiny", "-r", "cpu-ref"}, "give --rung or -r, not both"},
      {{"view", "--rung", "tiny", "--tile-size", "16"}, "give --rung or settings options, not both"},
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
  // An unreadable scene file is a SceneError with file:line:column.
  std::ofstream(path("bad.scene")) << "circles-scene 1\ncount 2\n0.5 0.5 0 0.1 1 0 0 1\n";
  const Result bad = circles({"view", "--offscreen", "--quit-after", "1", path("bad.scene")});
  EXPECT_EQ(bad.rc, 1) << describe(bad);
  EXPECT_TRUE(contains(bad.err, "bad.scene:")) << describe(bad);
}

// An --export whose write fails (a full device) fails the run, as `circles render -o` does.
TEST_F(ViewerBinary, AnExportThatCannotBeWrittenFailsTheRun) {
  std::error_code ec;
  if (!fs::is_character_file("/dev/full", ec)) SKIP_EXPECTED("no /dev/full here to fail a write");
  const Result full = circles({"view", "--offscreen", "rgb", "--quit-after", "1", "--export", "/dev/full"});
  EXPECT_EQ(full.rc, 1) << describe(full);
  EXPECT_TRUE(contains(full.err, "cannot write PNG '/dev/full'")) << describe(full);
}

TEST_F(ViewerBinary, HelpDescribesTheViewer) {
  const Result h = circles({"view", "--help"});
  ASSERT_EQ(h.rc, 0) << describe(h);
  for (const char* flag : {"--offscreen", "--quit-after", "--frames", "--screenshot", "--vsync", "--no-interop", "--present", "--play",
                           "-s"})
    EXPECT_TRUE(contains(h.out, flag)) << flag;
  const Result top = circles({"--help"});
  EXPECT_EQ(top.rc, 0) << describe(top);
  EXPECT_TRUE(contains(top.out, "With no arguments, circles opens the viewer")) << top.out;
}

// A real window under Xvfb (GLFW on X11, GLX), when xvfb-run is installed.
TEST_F(ViewerBinary, WindowUnderXvfb) {
  if (std::system("command -v xvfb-run > /dev/null 2>&1") != 0) SKIP_EXPECTED("xvfb-run is not installed");
  const Result v = circles({"view", "rgb", "-r", "cpu-mt", "--quit-after", "5", "--screenshot", path("win.png")}, "",
                        "xvfb-run -a -s '-screen 0 1280x1024x24'");
  ASSERT_EQ(v.rc, 0) << describe(v);
  EXPECT_TRUE(contains(v.err, "window (GLFW")) << v.err;
  expect_window_of_rgb(read_png(path("win.png")), 1280, 720);
}

}  // namespace
}  // namespace circles
