// The viewer window driven by real X input events (xdotool through XTEST) under Xvfb: the export
// key, a drag (pan), the wheel (zoom) and Esc. Skips where xvfb-run or xdotool is missing (the
// GPU machine); scripts/install-deps.sh installs both, so CI runs it.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "render/image.h"
#include "render/png.h"
#include "test_util.h"

namespace circles {
namespace {

namespace fs = std::filesystem;
using test::slurp;

class ViewerInput : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::system("command -v xvfb-run > /dev/null 2>&1 && command -v xdotool > /dev/null 2>&1") != 0)
      GTEST_SKIP() << "xvfb-run or xdotool is not installed";
    dir_ = fs::path(::testing::TempDir()) /
           ("circles_input_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  // Runs `viewer_args` in a window under Xvfb, then `input` (xdotool commands; $w is the
  // window), waits for the viewer and returns its exit status. Output goes to out.log/err.log.
  int run(const std::string& viewer_args, const std::string& input) {
    const std::string script = (dir_ / "drive.sh").string();
    std::ofstream(script) << "set -u\ncd '" << dir_.string() << "'\n"
                          << "'" << CIRCLES_BIN << "' view " << viewer_args << " > out.log 2> err.log &\n"
                          << "pid=$!\n"
                          << "w=$(timeout 30 xdotool search --sync --onlyvisible --name 'circles view' | head -n 1)\n"
                          << "[ -n \"$w\" ] || { kill $pid; exit 90; }\n"
                          // No window manager: keyboard focus follows the pointer (PointerRoot)
                          // or an explicit XSetInputFocus; do both.
                          << "xdotool mousemove --window $w 700 300\n"
                          << "xdotool windowfocus $w\n"
                          // press KEY until the viewer's stderr shows TEXT (keys sent before the
                          // window takes focus are lost), at most 40 tries
                          << "press_until() { for n in $(seq 40); do xdotool key --clearmodifiers \"$1\"; sleep 0.25; "
                             "grep -q \"$2\" err.log && return 0; done; return 1; }\n"
                          // press KEY until the viewer has exited
                          << "press_until_exit() { for n in $(seq 40); do kill -0 $pid 2>/dev/null || return 0; "
                             "xdotool windowfocus $w 2>/dev/null; xdotool key --clearmodifiers \"$1\" 2>/dev/null; sleep 0.25; done; return 1; }\n"
                          << input << "\n"
                          << "wait $pid\n";
    const std::string cmd = "timeout 90 xvfb-run -a -s '-screen 0 1280x1024x24' bash '" + script + "'";
    const int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string log(const char* name) const { return slurp(dir_ / name); }
  // Pixels of the 1280x720 screenshot's scene area (x 360..1279) that differ from the PNG `ref`
  // (720x720) shown 1:1 where the default view puts it, centred at x 460 (-1 if the screenshot
  // is not 1280x720).
  long scene_area_differing(const std::string& ref) const {
    const Image shot = read_png((dir_ / "shot.png").string());
    const Image frame = read_png(ref);
    if (shot.width != 1280 || shot.height != 720) return -1;
    long differing = 0;
    for (int j = 0; j < frame.height; ++j)
      for (int i = 0; i < frame.width; ++i) {
        const Float4& a = shot.at(460 + i, j);
        const Float4& b = frame.at(i, j);
        differing += a.x != b.x || a.y != b.y || a.z != b.z;
      }
    return differing;
  }
  fs::path dir_;
};

TEST_F(ViewerInput, ExportKeyDragAndWheel) {
  // 1280x720 window: the scene area is x 360..1279, so the frame renders at 720x720 (the unit
  // square), centred at x 460..1179.
  const int rc = run("rgb -r cpu-mt --vsync off --quit-after 400 --screenshot shot.png",
                     "press_until s 'export: ' || exit 91\n"
                     "xdotool mousemove --window $w 800 360 mousedown 1 mousemove --window $w 900 420 "
                     "mousemove --window $w 1000 460 mouseup 1\n"
                     "xdotool mousemove --window $w 820 360 click 4 click 4\n");
  ASSERT_EQ(rc, 0) << log("err.log");
  const std::string err = log("err.log");
  EXPECT_NE(err.find("export: "), std::string::npos) << err;
  ASSERT_TRUE(fs::exists(dir_ / "circles-view.png")) << err;

  // The export equals `circles render` of the same scene, size and renderer, byte for byte.
  const std::string ref = (dir_ / "ref.png").string();
  ASSERT_EQ(std::system(("'" + std::string(CIRCLES_BIN) + "' render rgb -r cpu-mt -s 720x720 -o '" + ref +
                         "' 2> /dev/null").c_str()),
            0);
  EXPECT_EQ(slurp(dir_ / "circles-view.png"), slurp(ref));

  // After the drag and the wheel, the scene area no longer shows the frame 1:1 at the origin.
  EXPECT_GT(scene_area_differing(ref), 720 * 720 / 20) << "the view did not move or zoom";
}

TEST_F(ViewerInput, AQuickTapIsNotLostBetweenSlowFrames) {
  // snow playing through cpu-ref at 720x720: a few frames per second. Once the window has the
  // keyboard (the export key answered), one quick tap of Escape (press and release a few
  // milliseconds apart, between two frames) must quit: the press is an event, not a state.
  const int rc = run("snow -r cpu-ref --vsync off --quit-after 100000 --play",
                     "press_until s 'export: ' || exit 91\n"
                     "xdotool key --clearmodifiers --delay 5 Escape\n"
                     "for n in $(seq 40); do kill -0 $pid 2>/dev/null || break; sleep 0.25; done\n"
                     "kill -0 $pid 2>/dev/null && { kill $pid; exit 93; }\n");
  EXPECT_EQ(rc, 0) << "the tap was lost (93) or the window never took the keyboard (91)\n" << log("err.log");
  const std::string out = log("out.log");
  const std::size_t at = out.find("timing summary: ");
  ASSERT_NE(at, std::string::npos) << out;
  // It really was slow: each frame took far longer than the tap (5 ms from press to release).
  const std::size_t fps = out.find("FPS (1000 / median frame)");
  ASSERT_NE(fps, std::string::npos) << out;
  EXPECT_LT(std::atof(out.c_str() + fps + 26), 30.0) << out;  // about 7 here
}

TEST_F(ViewerInput, ADragStartedRightAfterALargeMoveDoesNotJump) {
  // The pointer jumps across the scene area and the button goes down at once (one frame sees
  // both), then comes up without moving: nothing was dragged, so the view stays 1:1 at the origin.
  const int rc = run("rand10k -r cpu-mt --vsync off --quit-after 150 --screenshot shot.png",
                     "press_until s 'export: ' || exit 91\n"
                     "xdotool mousemove --window $w 400 40\nsleep 0.3\n"
                     "xdotool mousemove --window $w 1250 700 mousedown 1\nsleep 0.3\nxdotool mouseup 1\n");
  ASSERT_EQ(rc, 0) << log("err.log");
  const std::string ref = (dir_ / "ref.png").string();
  ASSERT_EQ(std::system(("'" + std::string(CIRCLES_BIN) + "' render rand10k -r cpu-mt -s 720x720 -o '" + ref +
                         "' 2> /dev/null").c_str()),
            0);
  EXPECT_EQ(scene_area_differing(ref), 0) << "the view moved";
}

// A click that does not drag inspects the pixel under it (the view does not move); Shift held
// while hovering inspects the pixel under the cursor.
TEST_F(ViewerInput, ClickAndShiftHoverInspectAPixel) {
  // Frame 720x720 centred at x 460..1179; window y 360 is frame row 720 - 360 = 360.
  const int rc = run("rgb -r cpu-mt --vsync off --quit-after 100000",
                     "press_until s 'export: ' || exit 91\n"
                     "xdotool mousemove --window $w 820 360 click 1\n"
                     "for n in $(seq 40); do grep -q 'inspect: pixel' err.log && break; sleep 0.25; done\n"
                     "xdotool keydown shift mousemove --window $w 500 100\n"
                     "for n in $(seq 40); do grep -q 'inspect: pixel 40,' err.log && break; sleep 0.25; done\n"
                     "xdotool keyup shift\n"
                     "press_until_exit Escape || exit 92\n");
  ASSERT_EQ(rc, 0) << log("err.log");
  const std::string err = log("err.log");
  EXPECT_NE(err.find("inspect: pixel 360,360 of 720x720"), std::string::npos) << err;
  EXPECT_NE(err.find(": match (max diff 0)"), std::string::npos) << err;
  EXPECT_NE(err.find("inspect: pixel 40,"), std::string::npos) << err;
}

TEST_F(ViewerInput, EscapeQuits) {
  const int rc = run("rgb -r cpu-mt --vsync off --quit-after 100000", "press_until_exit Escape || exit 92\n");
  EXPECT_EQ(rc, 0) << log("err.log");
  const std::string out = log("out.log");
  const std::size_t at = out.find("timing summary: ");
  ASSERT_NE(at, std::string::npos) << out;
  EXPECT_LT(std::atol(out.c_str() + at + 16), 100000) << out;  // stopped long before the end
}

}  // namespace
}  // namespace circles
