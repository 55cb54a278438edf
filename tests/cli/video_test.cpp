// Video out (app/cli/video_out.h) through the real ffmpeg: a render to .mp4 and .webm decodes to
// as many frames as were drawn, each within a PSNR bound of the PNG render of that frame; what
// the encoder cannot take is refused before any work, and a failed encode leaves no file.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "app/cli/cli.h"
#include "render/image.h"
#include "render/png.h"
#include "test_util.h"

namespace circles {
namespace {

namespace fs = std::filesystem;

bool have(const char* tool) {
  return std::system((std::string("command -v ") + tool + " > /dev/null 2>&1").c_str()) == 0;
}

std::string run(const std::string& cmd) {
  std::string out;
  std::FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[65536];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ::pclose(p);
  return out;
}

int cli(std::vector<std::string> args) {
  args.insert(args.begin(), "circles");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  return run_cli(static_cast<int>(argv.size()), argv.data());
}

// PSNR of the RGB channels of two top-row-first RGBA frames.
double psnr(const std::uint8_t* a, const std::uint8_t* b, std::size_t pixels) {
  double se = 0;
  for (std::size_t k = 0; k < pixels; ++k)
    for (int c = 0; c < 3; ++c) {
      const double d = static_cast<double>(a[4 * k + c]) - b[4 * k + c];
      se += d * d;
    }
  const double mse = se / (3.0 * pixels);
  return mse == 0 ? 99.0 : 10.0 * std::log10(255.0 * 255.0 / mse);
}

class VideoOut : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have("ffmpeg") || !have("ffprobe")) SKIP_EXPECTED("no ffmpeg and ffprobe here (scripts/install-deps.sh installs them)");
    dir_ = fs::path(::testing::TempDir()) / ("video_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(VideoOut, EveryFrameIsInTheVideoAndDecodesCloseToItsPng) {
  const int w = 96, h = 64, frames = 12;
  ASSERT_EQ(cli({"render", "snow", "--frames", "0:12", "-s", "96x64", "-r", "cpu-mt", "-o", path("f%04d.png")}), 0);
  for (const std::string ext : {"mp4", "webm"}) {
    SCOPED_TRACE(ext);
    const std::string video = path("snow." + ext);
    ASSERT_EQ(cli({"render", "snow", "--frames", "0:12", "-s", "96x64", "-r", "cpu-mt", "--fps", "24", "-o", video}), 0);
    const std::string probe = run("ffprobe -v error -count_frames -select_streams v:0 -show_entries "
                                  "stream=nb_read_frames,width,height,pix_fmt -of default=nw=1 '" + video + "'");
    EXPECT_NE(probe.find("nb_read_frames=12"), std::string::npos) << probe;
    EXPECT_NE(probe.find("width=96"), std::string::npos) << probe;
    EXPECT_NE(probe.find("pix_fmt=yuv420p"), std::string::npos) << probe;
    const std::string raw = run("ffmpeg -v error -i '" + video + "' -f rawvideo -pix_fmt rgba -");
    const std::size_t frame_bytes = static_cast<std::size_t>(w) * h * 4;
    ASSERT_EQ(raw.size(), frame_bytes * frames);
    double worst = 99;
    for (int f = 0; f < frames; ++f) {
      char name[32];
      std::snprintf(name, sizeof name, "f%04d.png", f);
      const std::vector<std::uint8_t> png = to_rgba8(read_png(path(name)));
      const double p = psnr(reinterpret_cast<const std::uint8_t*>(raw.data()) + f * frame_bytes, png.data(),
                            static_cast<std::size_t>(w) * h);
      worst = std::min(worst, p);
    }
    std::printf("[ video    ] %s: worst frame PSNR %.1f dB\n", ext.c_str(), worst);
    EXPECT_GE(worst, 30.0);  // yuv420p halves the chroma: small circles' colour edges cost most
  }
}

TEST_F(VideoOut, WhatTheEncoderCannotTakeIsRefusedFirstAndAFailureLeavesNoFile) {
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(cli({"render", "snow", "--frames", "0:4", "-s", "95x64", "-o", path("odd.mp4")}), 2);
  EXPECT_EQ(cli({"render", "snow", "--frames", "0:4", "-s", "96x64", "--fps", "0", "-o", path("z.mp4")}), 2);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("needs an even width and height, not 95x64"), std::string::npos) << err;
  EXPECT_NE(err.find("--fps takes 1 to 240"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(path("odd.mp4")));
  EXPECT_FALSE(fs::exists(path("z.mp4")));
  // No ffmpeg on PATH: the render fails (exit 1), and neither the video nor a temporary is left.
  const char* old_path = std::getenv("PATH");
  const std::string saved = old_path ? old_path : "";
  ::setenv("PATH", dir_.c_str(), 1);
  ::testing::internal::CaptureStderr();
  const int rc = cli({"render", "rgb", "-s", "64x64", "-o", path("none.mp4")});
  const std::string err2 = ::testing::internal::GetCapturedStderr();
  ::setenv("PATH", saved.c_str(), 1);
  EXPECT_EQ(rc, 1) << err2;
  EXPECT_NE(err2.find("no ffmpeg program on PATH"), std::string::npos) << err2;
  for (const auto& e : fs::directory_iterator(dir_)) ADD_FAILURE() << "left behind: " << e.path();
}

}  // namespace
}  // namespace circles
