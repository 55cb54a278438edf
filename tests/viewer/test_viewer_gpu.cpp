// The viewer on a GPU: the presenter's GL side of the pbo path in-process, and the real `circles`
// binary's CUDA renderers through CUDA-GL interop (EGL device platform), the lab's panels and
// views, counters and heat maps over their frames. The binary's tests skip without a GPU; they
// fail instead when CIRCLES_REQUIRE_GPU=1.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "app/gl/gl_present.h"
#include "app/gl/gl_surface.h"
#include "app/viewer/viewer_layout.h"
#include "kernels/lab/frame_stats.h"
#include "render/png.h"
#include "viewer/viewer_test_util.h"

namespace circles {
namespace {

using namespace viewer_test;

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
// On a GPU: the CUDA renderers through CUDA-GL interop (EGL device platform). Skips without one
// ("[needs the GPU]"); fails instead when CIRCLES_REQUIRE_GPU=1. Every picture is compared with
// cpu-ref's render, to the bit. ViewerBinary::expect_interop_frame is in viewer_test_util.h.

TEST_F(ViewerBinary, GpuOffscreenUsesInteropAndMatchesRender) {
  REQUIRE_CUDA_RENDERERS();
  expect_interop_frame("surface", {"wait: interop map (GPU, for GL)", "interop: convert", "wait: GL done (host)",
                                   "wait: CUDA done (host)"});
}

TEST_F(ViewerBinary, GpuOffscreenPboInteropMatchesRender) {
  REQUIRE_CUDA_RENDERERS();
  expect_interop_frame("pbo", {"wait: interop map (GPU, for GL)", "interop: convert", "gl: pbo upload"});
}

// The external path: memory CUDA exports and GL imports once, no per-frame map; the same pixels.
TEST_F(ViewerBinary, GpuOffscreenExternalInteropMatchesRender) {
  REQUIRE_CUDA_RENDERERS();
  expect_interop_frame("external", {"interop: convert", "wait: render done (host)", "gl: upload (external)"});
}

// The Timings panel times the same stages as the benchmark: each stage of the render that
// `circles bench` reports for a scene and size is a line of the viewer's summary (offscreen, a
// 1920x1080 window, so a 1080x1080 frame, playing), sampled over the run: a small scene,
// a deep one and an animated one. The waits are lines of their own, never inside a stage. (How
// close the two medians are is printed, not asserted: times are the benchmark's business.)
TEST_F(ViewerBinary, GpuStageTimingsNameTheBenchmarksStages) {
  REQUIRE_CUDA_RENDERERS();
  for (const char* scene : {"rand10k", "rand1M", "snow"}) {
    SCOPED_TRACE(scene);
    const Result b = circles({"bench", "--scenes", scene, "--renderers", "cuda-tile-binned", "-s", "1080x1080",
                              "--repeat", "60", "--json", path("bench.json")});
    ASSERT_EQ(b.rc, 0) << describe(b);
    const nlohmann::json records = nlohmann::json::parse(test::slurp(path("bench.json")));
    const nlohmann::json* record = nullptr;  // the viewer's default: exact frames, tiles of 32
    for (const nlohmann::json& r : records)
      if (r["variant"] == "cuda-tile-binned/32" && r.value("mode", "exact") == "exact") record = &r;
    ASSERT_NE(record, nullptr) << records.dump(1);
    const nlohmann::json& stages = (*record)["stage_median_ms"];
    ASSERT_FALSE(stages.empty());
    const Result v = circles({"view", "--offscreen", scene, "-r", "cuda-tile-binned", "-s", "1920x1080", "--play",
                              "--quit-after", "300"});
    ASSERT_EQ(v.rc, 0) << describe(v);
    ASSERT_TRUE(contains(v.err, "render size 1080x1080")) << v.err;
    const std::map<std::string, SummaryLine> viewer = timing_summary(v.out);
    for (const auto& [stage, ms] : stages.items()) {
      const auto it = viewer.find("renderer: " + stage);
      ASSERT_NE(it, viewer.end()) << "no line for " << stage << "\n" << v.out;
      // A frame whose stage times equal the last frame's is not counted again (viewer_timings.cpp),
      // and a one-stage frame often does (CUDA event times come in steps of about a microsecond):
      // at least a tenth of the frames.
      EXPECT_GE(it->second.samples, 30) << stage << ": sampled on fewer than 30 of the 300 frames\n" << v.out;
      std::printf("[ timings  ] %s %s: viewer %.4f ms, bench %.4f ms\n", scene, stage.c_str(), it->second.median,
                  ms.get<double>());
    }
    for (const char* wait : {"wait: GL done (host)", "wait: CUDA done (host)"}) {
      const auto it = viewer.find(wait);
      ASSERT_NE(it, viewer.end()) << "no line for " << wait << "\n" << v.out;
      EXPECT_GE(it->second.samples, 150) << wait << "\n" << v.out;  // every frame (from the second)
    }
  }
}

// The timeline of a CUDA renderer: the render's and interop's stages in the CUDA lane, the GL
// draws in the GL lane, every frame, on one clock (each CUDA stage inside the run's span).
TEST_F(ViewerBinary, GpuTimelineHasTheCudaLane) {
  REQUIRE_CUDA_RENDERERS();
  const Result v = circles({"view", "--offscreen", "snow", "-r", "cuda-tile-binned", "--quit-after", "40", "--play",
                            "--present", "surface", "--timeline", path("timeline.json")});
  ASSERT_EQ(v.rc, 0) << describe(v);
  const nlohmann::json doc = nlohmann::json::parse(test::slurp(path("timeline.json")));
  std::size_t shade = 0, map = 0, present = 0, frames = 0;
  double end = 0;
  for (const nlohmann::json& s : doc["spans"]) {
    const std::string name = s["name"], lane = s["lane"];
    const double t0 = s["t0"], t1 = s["t1"];
    EXPECT_LE(t0, t1) << name;
    EXPECT_GE(t0, 0.0) << name;
    if (name == "frame") ++frames, end = std::max(end, t1);
    shade += lane == "cuda" && name == "renderer: clear+shade";
    map += lane == "cuda" && name.rfind("wait: interop map", 0) == 0;
    present += lane == "gl" && name == "gl: present";
  }
  EXPECT_EQ(frames, 40u);
  EXPECT_GE(shade, 30u);  // a few frames' events are still in flight at the end, or dropped
  EXPECT_GE(map, 30u);
  EXPECT_GE(present, 30u);
  for (const nlohmann::json& s : doc["spans"])
    if (s["lane"] == "cuda") {
      EXPECT_LE(s["t1"].get<double>(), end + 1.0) << s["name"];
    }

  // The external path's host waits are on the host lane, each inside the loop's step that waits
  // (GL's calls or the present's host side).
  const Result e = circles({"view", "--offscreen", "snow", "-r", "cuda-tile-binned", "--quit-after", "40", "--play",
                            "--present", "external", "--timeline", path("external.json")});
  ASSERT_EQ(e.rc, 0) << describe(e);
  const nlohmann::json ext = nlohmann::json::parse(test::slurp(path("external.json")));
  std::vector<std::pair<double, double>> draws, textures;
  for (const nlohmann::json& s : ext["spans"]) {
    if (s["name"] == "host: draw") draws.emplace_back(s["t0"], s["t1"]);
    if (s["name"] == "host: to texture") textures.emplace_back(s["t0"], s["t1"]);
  }
  auto inside = [](const std::vector<std::pair<double, double>>& outer, double t0, double t1) {
    return std::any_of(outer.begin(), outer.end(), [&](const auto& o) { return o.first <= t0 && t1 <= o.second; });
  };
  std::size_t waits = 0, fences = 0;
  for (const nlohmann::json& s : ext["spans"]) {
    const std::string name = s["name"];
    const double t0 = s["t0"], t1 = s["t1"];
    if (name == "wait: render done (host)") {
      ++waits;
      EXPECT_EQ(s["lane"], "host");
      EXPECT_TRUE(inside(draws, t0, t1) || inside(textures, t0, t1)) << "the render's wait at " << t0 << " is in no step";
    }
    if (name == "wait: interop fence (host, for GL)") {
      ++fences;
      EXPECT_TRUE(inside(draws, t0, t1) || inside(textures, t0, t1)) << "the fence wait at " << t0 << " is in no step";
    }
  }
  EXPECT_GE(waits, 38u);
  EXPECT_GE(fences, 38u);
}

// The inspector against a CUDA renderer's pixel (read back from the device): the CPU walk (cpu-ref's
// blend, in order) agrees to the bit, as every renderer's exact frame is cpu-ref's.
TEST_F(ViewerBinary, GpuInspectMatchesTheCudaRenderersPixel) {
  REQUIRE_CUDA_RENDERERS();
  for (const char* renderer : {"cuda-tile-scan", "cuda-tile-binned"}) {
    const Result v = circles({"view", "--offscreen", "snow", "-r", renderer, "--quit-after", "3", "--play", "-s",
                              "800x600", "--inspect", "123,321"});
    ASSERT_EQ(v.rc, 0) << describe(v);
    EXPECT_TRUE(contains(v.err, "inspect: pixel 123,321 of 440x440")) << v.err;
    EXPECT_TRUE(contains(v.err, std::string(renderer) + " ")) << v.err;
    EXPECT_TRUE(contains(v.err, ": match (max diff 0)")) << v.err;
  }
}

// cuda-tile-binned's early exit in the viewer, on a scene deep enough to take it (rand10k): the
// frame is drawn in early-exit mode and passes --check against cpu-ref by that mode's promise
// (every 8-bit value within one step).
TEST_F(ViewerBinary, GpuEarlyExitFramePassesTheCheck) {
  REQUIRE_CUDA_RENDERERS();
  const Result v = circles({"view", "--offscreen", "rand10k", "-r", "cuda-tile-binned", "--early-exit", "--quit-after",
                            "2", "-s", "800x600", "--check"});
  ASSERT_EQ(v.rc, 0) << describe(v);
  EXPECT_TRUE(contains(v.out, "check: PASS frame 0 440x440 cuda-tile-binned vs cpu-ref (early exit mode: ")) << v.out;
}

// The lab's reduction over every frame of a CUDA renderer: its GPU time is a stage of the
// summary, and the final check against the CPU's sums of the same frame passes.
TEST_F(ViewerBinary, GpuFrameStatsRunEveryFrameAndMatchTheCpu) {
  REQUIRE_CUDA_RENDERERS();
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
  REQUIRE_CUDA_RENDERERS();
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
  REQUIRE_CUDA_RENDERERS();
  const Result v = circles({"view", "--offscreen", "rand10k", "-r", "cuda-tile-binned", "--quit-after", "4", "-s",
                            "800x600", "--kernels", "reduce:reduce-shuffle", "--kernels-size", "l2", "--counters",
                            "reduce-shuffle"});
  // Counters can be refused on a GPU machine (profiling restricted to administrators): an expected
  // skip there, a failure with CIRCLES_REQUIRE_COUNTERS=1.
  if (contains(v.err, "counters: cannot measure: ") && !test::env_is_1("CIRCLES_REQUIRE_COUNTERS"))
    SKIP_EXPECTED("counters cannot be read here: " << v.err);
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
  REQUIRE_CUDA_RENDERERS();
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
  REQUIRE_CUDA_RENDERERS();
  const Result v = circles({"view", "--offscreen", "rand10k", "-r", "cuda-tile-binned", "--quit-after", "3", "-s",
                            "800x600", "--transpose-view", "transpose-shared32-padded", "--screenshot", path("shot.png")});
  ASSERT_EQ(v.rc, 0) << describe(v);
  EXPECT_TRUE(contains(v.err, "transpose view: transpose-shared32-padded: 440x440 mirror image equals the CPU's (0 of"))
      << v.err;
  EXPECT_TRUE(contains(v.out, "lab: transpose-shared32-padded")) << v.out;
  EXPECT_TRUE(scene_area_shows(read_png(path("shot.png")), lab::transpose_cpu(cpu_ref_render("rand10k", "440x440"))));
}

// The window path on NVIDIA's GL: a GLFW window under Xvfb whose GLX client is NVIDIA's
// (__GLX_VENDOR_LIBRARY_NAME=nvidia; Xvfb's own GLX runs on Mesa) presents the CUDA frame through
// interop on the external and surface paths, and shows cpu-ref's render to the bit (no compositor:
// the screenshot is the window's framebuffer). Skips without xvfb-run or NVIDIA's GLX library (an
// expected skip); fails instead when CIRCLES_REQUIRE_WINDOW=1.
TEST_F(ViewerBinary, GpuWindowOnNvidiaGlxUsesInteropAndMatchesRender) {
  REQUIRE_CUDA_RENDERERS();
  const bool must = test::env_is_1("CIRCLES_REQUIRE_WINDOW");
  for (const char* need : {"command -v xvfb-run", "ldconfig -p | grep -q libGLX_nvidia.so.0"})
    if (std::system((std::string(need) + " > /dev/null 2>&1").c_str()) != 0) {
      if (must) FAIL() << "CIRCLES_REQUIRE_WINDOW=1 but this fails: " << need;
      SKIP_EXPECTED("no window on NVIDIA's GLX here: " << need << " fails");
    }
  const Image frame = cpu_ref_render("rand10k", "720x720");
  for (const std::string present : {"external", "surface"}) {
    const std::string shot = path("window_" + present + ".png");
    const Result v = circles({"view", "rand10k", "-r", "cuda-tile-scan", "--quit-after", "5", "--vsync", "off",
                              "--present", present, "--screenshot", shot, "--check"},
                             "__GLX_VENDOR_LIBRARY_NAME=nvidia", "xvfb-run -a -s '-screen 0 1280x1024x24'");
    ASSERT_EQ(v.rc, 0) << describe(v);
    EXPECT_TRUE(contains(v.err, "window (GLFW")) << v.err;
    EXPECT_TRUE(contains(v.err, "NVIDIA Corporation")) << v.err;  // the GL vendor: NVIDIA's GLX, not Mesa
    EXPECT_TRUE(contains(v.err, "present: cuda-gl interop (" + present + ")")) << v.err;
    EXPECT_EQ(count_of(v.err, "present: "), 1u) << v.err;  // no switch to another path
    EXPECT_TRUE(contains(v.out, "check: PASS")) << v.out;
    const Image window = read_png(shot);
    ASSERT_EQ(window.width, 1280);
    ASSERT_EQ(window.height, 720);
    EXPECT_TRUE(scene_area_shows(window, frame)) << present;
  }
}

TEST_F(ViewerBinary, GpuForcedNoInteropUsesTheHostCopy) {
  REQUIRE_CUDA_RENDERERS();
  const Result v = circles({"view", "--offscreen", "rand10k", "-r", "cuda-tile-scan", "--quit-after", "3", "-s", "1000x400",
                         "--no-interop", "--screenshot", path("shot.png")});
  ASSERT_EQ(v.rc, 0) << describe(v);
  EXPECT_TRUE(contains(v.err, "present: host copy")) << v.err;
  EXPECT_FALSE(contains(v.err, "present: cuda-gl interop")) << v.err;
  EXPECT_TRUE(contains(v.out, "copy: read 8-bit")) << v.out;
  EXPECT_TRUE(scene_area_shows(read_png(path("shot.png")), cpu_ref_render("rand10k", "400x400")));
}

}  // namespace
}  // namespace circles
