// The viewer window driven by real X input events (xdotool through XTEST) under Xvfb: the export
// key, a drag (pan), the wheel (zoom), a click and Shift-hover (the inspector), and Esc. Skips
// where xvfb-run or xdotool is missing (an expected skip: the GPU machine); scripts/install-deps.sh
// installs both, so CI runs it.
//
// Every step waits for the viewer to show that it saw the step before the next one is sent, so
// the outcome is decided by the input, not by how fast frames come: the viewer reads the pointer
// once a frame (where it is at that moment) and its buttons and keys from the window's events, in
// order. A key pressed after an input event is read in the same frame as that event or a later
// one, so the export key's log line ('export: wrote', one frame after the key) says that what came
// before it was seen. Shift held over the frame inspects the pixel under the pointer ('inspect:
// pixel I,J'), which says where the view puts the frame. Waits have a 60-second deadline that only
// guards against a hang.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/viewer/viewer_layout.h"
#include "render/image.h"
#include "render/png.h"
#include "test_util.h"

namespace circles {
namespace {

namespace fs = std::filesystem;
using test::slurp;

// The window is 1280x720: the scene area is x 360..1279 (framebuffer y up, window y down), so the
// frame renders at 720x720 (the unit square), centred at x 460..1179 at the default view.
constexpr int kWindowW = 1280, kWindowH = 720, kFrame = 720;

// The pixel of the 720x720 frame under window point (x, y) (window y down) for the view `v`, as the
// viewer maps the pointer: "I,J of 720x720".
std::string pixel_under(const ViewState& v, int x, int y) {
  const PixelRect area = scene_area(kWindowW, kWindowH, 1.f);
  const Placement p = place_frame(area, kFrame, kFrame, v);
  const int i = static_cast<int>(std::floor((x - p.origin_x) / p.scale));
  const int j = static_cast<int>(std::floor((kWindowH - y - p.origin_y) / p.scale));
  return std::to_string(i) + "," + std::to_string(j) + " of 720x720";
}

class ViewerInput : public test::TempDirTest {
 protected:
  void SetUp() override {
    if (std::system("command -v xvfb-run > /dev/null 2>&1 && command -v xdotool > /dev/null 2>&1") != 0)
      SKIP_EXPECTED("xvfb-run or xdotool is not installed");
    TempDirTest::SetUp();
  }
  // Runs `viewer_args` in a window under Xvfb, then `input` (shell lines with xdotool; $w is the
  // window, and the functions below), and returns the viewer's exit status, or the script's own
  // (90 and up) where a step was not answered. Output goes to out.log and err.log.
  int run(const std::string& viewer_args, const std::string& input) {
    const std::string script = path("drive.sh");
    std::ofstream(script)
        << "set -u\ncd '" << dir_.string() << "'\n"
        << "'" << test::circles_bin() << "' view " << viewer_args << " > out.log 2> err.log &\n"
        << "pid=$!\n"
        // fail CODE: stop the viewer and exit with CODE
        << "fail() { kill $pid 2>/dev/null; exit \"$1\"; }\n"
        << "w=$(timeout 60 xdotool search --sync --onlyvisible --name 'circles view' | head -n 1)\n"
        << "[ -n \"$w\" ] || fail 90\n"
        // No window manager: keyboard focus follows the pointer (PointerRoot) or an explicit
        // XSetInputFocus; do both.
        << "xdotool mousemove --window $w 700 300\n"
        << "xdotool windowfocus $w\n"
        // count TEXT: how many lines of err.log hold TEXT
        << "count() { local n; n=$(grep -c -- \"$1\" err.log 2>/dev/null); echo \"${n:-0}\"; }\n"
        // wait_for TEXT N: until err.log holds N lines with TEXT (false if the viewer exits or 60 s pass)
        << "wait_for() { local k; for k in $(seq 1200); do [ \"$(count \"$1\")\" -ge \"$2\" ] && return 0; "
           "kill -0 $pid 2>/dev/null || return 1; sleep 0.05; done; return 1; }\n"
        // press_until KEY TEXT: press KEY until err.log holds one more line with TEXT (keys sent
        // before the window has the keyboard are lost: pressed again each second, for 60 s)
        << "press_until() { local want=$(( $(count \"$2\") + 1 )) n k; for n in $(seq 60); do "
           "xdotool key --clearmodifiers \"$1\"; for k in $(seq 20); do [ \"$(count \"$2\")\" -ge $want ] && return 0; "
           "kill -0 $pid 2>/dev/null || return 1; sleep 0.05; done; done; return 1; }\n"
        // tap KEY TEXT: once the window has the keyboard, press KEY once (no --clearmodifiers: it
        // would lift a held button) and wait for one more line with TEXT
        << "tap() { local want=$(( $(count \"$2\") + 1 )); xdotool key \"$1\"; wait_for \"$2\" $want; }\n"
        // seen: the export key's answer, so every input sent before it was seen
        << "seen() { tap s 'export: wrote'; }\n"
        // press_until_exit KEY: press KEY until the viewer has exited (60 s)
        << "press_until_exit() { local n k; for n in $(seq 60); do xdotool windowfocus $w 2>/dev/null; "
           "xdotool key --clearmodifiers \"$1\" 2>/dev/null; for k in $(seq 20); do kill -0 $pid 2>/dev/null || return 0; "
           "sleep 0.05; done; done; return 1; }\n"
        // wait_exit: until the viewer has exited (60 s)
        << "wait_exit() { local k; for k in $(seq 1200); do kill -0 $pid 2>/dev/null || return 0; sleep 0.05; done; "
           "return 1; }\n"
        << input << "\n"
        << "wait $pid\n";
    const std::string cmd = "timeout 280 xvfb-run -a -s '-screen 0 1280x1024x24' bash '" + script + "'";
    const int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string log(const char* name) const { return slurp(dir_ / name); }
  // The pixels the viewer inspected, in order: "I,J of WxH" from each 'inspect: pixel' line.
  std::vector<std::string> inspected() const {
    std::vector<std::string> pixels;
    std::istringstream in(log("err.log"));
    const std::string mark = "inspect: pixel ";
    for (std::string line; std::getline(in, line);) {
      const std::size_t at = line.find(mark);
      if (at == std::string::npos) continue;
      const std::size_t from = at + mark.size(), to = line.find(" at frame", from);
      pixels.push_back(line.substr(from, to == std::string::npos ? std::string::npos : to - from));
    }
    return pixels;
  }
  // The frames the viewer showed, from its timing summary (-1 without one).
  long frames_shown() const {
    const std::string out = log("out.log");
    const std::size_t at = out.find("timing summary: ");
    return at == std::string::npos ? -1 : std::atol(out.c_str() + at + 16);
  }
  // cpu-ref's render of `scene` at 720x720, as PNG bytes ("" where the render fails).
  std::string cpu_ref_png(const std::string& scene) const {
    const std::string ref = path("ref.png");
    const std::string cmd = "'" + test::circles_bin() + "' render " + scene + " -r cpu-ref -s 720x720 -o '" + ref +
                            "' 2> /dev/null";
    return std::system(cmd.c_str()) == 0 ? slurp(ref) : std::string();
  }
};

const char* const kCodes =
    " (90: no window; 91: the window never took the keyboard; 92: a key was not answered; 93: no "
    "inspection; 94: Escape did not quit)\n";

TEST_F(ViewerInput, ExportKeyDragAndWheel) {
  // Export (S), then a drag from 800,360 to 1000,460 with each step seen before the next: the
  // button down with the pointer still at 800,360, the pointer at 1000,460 with the button still
  // down, the button up with the pointer still there. Then one notch of the wheel at 820,360.
  const int rc = run("rgb -r cpu-mt --vsync off --quit-after 100000",
                     "press_until s 'export: wrote' || fail 91\n"
                     "xdotool mousemove --window $w 800 360 mousedown 1\nseen || fail 92\n"
                     "xdotool mousemove --window $w 1000 460\nseen || fail 92\n"
                     "xdotool mouseup 1\nseen || fail 92\n"
                     // where the drag left the view: the pixel under 820,360
                     "xdotool mousemove --window $w 820 360 keydown shift\nwait_for 'inspect: pixel' 1 || fail 93\n"
                     "xdotool keyup shift\nseen || fail 92\n"
                     "xdotool click 4\nseen || fail 92\n"
                     // where the zoom left it: the pixel under 920,360
                     "xdotool mousemove --window $w 920 360 keydown shift\nwait_for 'inspect: pixel' 2 || fail 93\n"
                     "xdotool keyup shift\n"
                     "press_until_exit Escape || fail 94\n");
  ASSERT_EQ(rc, 0) << kCodes << log("err.log");

  // The export equals cpu-ref's `circles render` of the same scene and size, byte for byte.
  const std::string err = log("err.log");
  EXPECT_NE(err.find("export: wrote circles-view.png: frame 0, 720x720, cpu-mt"), std::string::npos) << err;
  const std::string ref = cpu_ref_png("rgb");
  ASSERT_FALSE(ref.empty()) << "circles render failed";
  EXPECT_EQ(slurp(dir_ / "circles-view.png"), ref);

  // The drag panned the view by the pointer's move (200 right, 100 down), and the wheel zoomed it
  // by 1.15 about the pointer.
  ViewState view;
  view.pan_x = 200;
  view.pan_y = -100;  // framebuffer y is up
  const std::string dragged = pixel_under(view, 820, 360);
  zoom_about(&view, scene_area(kWindowW, kWindowH, 1.f), kFrame, kFrame, 820, kWindowH - 360, 1.15);
  const std::string zoomed = pixel_under(view, 920, 360);
  EXPECT_EQ(dragged, "160,460 of 720x720");
  EXPECT_NE(zoomed, pixel_under(ViewState{1.0, 200, -100}, 920, 360)) << "the zoom moves that pixel";
  EXPECT_EQ(inspected(), (std::vector<std::string>{dragged, zoomed})) << err;
}

TEST_F(ViewerInput, AQuickTapIsNotLostBetweenSlowFrames) {
  // snow playing through cpu-ref at 720x720: frames far longer than a tap. Once the window has the
  // keyboard (the export key answered), one quick tap of Escape (press and release a few
  // milliseconds apart, within one frame) must quit: the press is an event, not a state polled
  // once a frame. The viewer would run 100000 frames: it stops only because the tap was seen.
  const int rc = run("snow -r cpu-ref --vsync off --quit-after 100000 --play",
                     "press_until s 'export: wrote' || fail 91\n"
                     "xdotool key --clearmodifiers --delay 5 Escape\n"
                     "wait_exit || fail 94\n");
  EXPECT_EQ(rc, 0) << kCodes << log("err.log");
  const long frames = frames_shown();
  EXPECT_GT(frames, 0) << log("out.log");
  EXPECT_LT(frames, 100000) << log("out.log");
}

TEST_F(ViewerInput, ADragStartedRightAfterALargeMoveDoesNotJump) {
  // The pointer rests on the frame at 500,40 (seen: Shift held there inspects the pixel under it),
  // then jumps across the scene area and the button goes down at once (one frame sees both), and
  // comes up without moving: nothing was dragged, so the view stays 1:1 at the origin, which the
  // pixel under 820,360 shows.
  const int rc = run("rand10k -r cpu-mt --vsync off --quit-after 100000",
                     "press_until s 'export: wrote' || fail 91\n"
                     "xdotool mousemove --window $w 500 40 keydown shift\nwait_for 'inspect: pixel' 1 || fail 93\n"
                     "xdotool keyup shift\nseen || fail 92\n"
                     "xdotool mousemove --window $w 1250 700 mousedown 1\nseen || fail 92\n"
                     "xdotool mouseup 1\nseen || fail 92\n"
                     "xdotool mousemove --window $w 820 360 keydown shift\nwait_for 'inspect: pixel' 2 || fail 93\n"
                     "xdotool keyup shift\n"
                     "press_until_exit Escape || fail 94\n");
  // 93 here: the frame is no longer under 820,360 (the view jumped).
  ASSERT_EQ(rc, 0) << kCodes << log("err.log");
  EXPECT_EQ(inspected(), (std::vector<std::string>{pixel_under(ViewState{}, 500, 40), "360,360 of 720x720"}))
      << "the view moved\n" << log("err.log");
}

// A click that does not drag inspects the pixel under it (the view does not move); Shift held
// while hovering inspects the pixel under the cursor.
TEST_F(ViewerInput, ClickAndShiftHoverInspectAPixel) {
  // Frame 720x720 centred at x 460..1179; window y 360 is frame row 720 - 360 = 360.
  const int rc = run("rgb -r cpu-mt --vsync off --quit-after 100000",
                     "press_until s 'export: wrote' || fail 91\n"
                     "xdotool mousemove --window $w 820 360 click 1\nwait_for 'inspect: pixel' 1 || fail 93\n"
                     "xdotool mousemove --window $w 500 100 keydown shift\nwait_for 'inspect: pixel' 2 || fail 93\n"
                     "xdotool keyup shift\n"
                     "press_until_exit Escape || fail 94\n");
  ASSERT_EQ(rc, 0) << kCodes << log("err.log");
  const std::string err = log("err.log");
  EXPECT_EQ(inspected(), (std::vector<std::string>{"360,360 of 720x720", "40,620 of 720x720"})) << err;
  EXPECT_NE(err.find("inspect: pixel 360,360 of 720x720 at frame 0: "), std::string::npos) << err;
  EXPECT_EQ(err.find("DIFFER"), std::string::npos) << err;
  EXPECT_NE(err.find(": match (max diff 0)"), std::string::npos) << err;
}

TEST_F(ViewerInput, EscapeQuits) {
  const int rc = run("rgb -r cpu-mt --vsync off --quit-after 100000", "press_until_exit Escape || fail 94\n");
  EXPECT_EQ(rc, 0) << kCodes << log("err.log");
  const long frames = frames_shown();
  EXPECT_GT(frames, 0) << log("out.log");
  EXPECT_LT(frames, 100000) << log("out.log");  // stopped long before the end
}

}  // namespace
}  // namespace circles
