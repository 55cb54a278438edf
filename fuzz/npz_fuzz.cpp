// libFuzzer target for the binary scene reader (render/scene_npz.h on render/npy.h): the bytes
// are a whole file, read in memory by load_scene_npz_bytes. Bytes that begin with .npy's magic
// ("\x93NUMPY") are read as a bare .npy of circles (named fuzz.npy), any others as a .npz (named
// fuzz.npz).
//
// An NpyError naming the file is the reader's expected answer to bad input (the scene reader
// turns the array checks' ArrayError into one). Anything else is a finding: a crash, a sanitizer
// report, a hang, an exception of another type (it escapes this function, so libFuzzer and the
// replay driver report it), an accepted value outside docs/FORMAT.md's limits, or a scene that
// does not survive save_scene_npz -> load_scene_npz bit for bit (velocities zero where the scene
// has none, as the format keeps them), that saves to other bytes once loaded again, or that
// does not read back the same from its scene text (format_scene -> parse_scene).
//
// Built two ways: with clang and -fsanitize=fuzzer (fuzz/CMakeLists.txt, CIRCLES_FUZZ=ON), and
// with any compiler plus fuzz/replay_main.cpp, which replays fuzz/corpus-npz/ as the ctest
// `npz_fuzz_corpus` (tests/CMakeLists.txt), holding each input to the verdict this target reports
// (fuzz/fuzz_target.h).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "fuzz/fuzz_target.h"
#include "render/npy.h"
#include "render/scene.h"
#include "render/scene_io.h"
#include "render/scene_npz.h"

namespace {

[[noreturn]] void finding(const char* what, const std::string& detail) {
  circles::fuzz::finding("npz_fuzz", what, detail);
}

// The reader's refusal must name the file: "NAME: error: ..." or "NAME: key 'KEY': error: ...".
void check_refusal(const circles::NpyError& e, const std::string& name) {
  const std::string_view what = e.what();
  if (e.file() != name || what.substr(0, name.size() + 2) != name + ": ")
    finding("NpyError without the file name", e.what());
}

bool within(float v, float lo, float hi) { return v >= lo && v <= hi; }  // false for NaN

// Every value of an accepted scene must be one docs/FORMAT.md allows.
void check_limits(const circles::Scene& s) {
  if (s.width < 1 || s.width > 16384 || s.height < 1 || s.height > 16384)
    finding("accepted a size out of range", std::to_string(s.width) + "x" + std::to_string(s.height));
  if (s.frame < 0 || s.frame > circles::kMaxFrame) finding("accepted a frame out of range", std::to_string(s.frame));
  for (const circles::Float4* c : {&s.background.top, &s.background.bottom})
    if (!within(c->x, 0.f, 1.f) || !within(c->y, 0.f, 1.f) || !within(c->z, 0.f, 1.f) || !within(c->w, 0.f, 1.f))
      finding("accepted a background channel out of range",
              std::to_string(c->x) + " " + std::to_string(c->y) + " " + std::to_string(c->z) + " " + std::to_string(c->w));
  for (std::size_t i = 0; i < s.circles.size(); ++i) {
    const circles::Circle& c = s.circles[i];
    const bool ok = within(c.x, -1e6f, 1e6f) && within(c.y, -1e6f, 1e6f) && within(c.z, -1e6f, 1e6f) &&
                    c.radius > 0.f && c.radius <= 1e6f && within(c.r, 0.f, 1e6f) && within(c.g, 0.f, 1e6f) &&
                    within(c.b, 0.f, 1e6f) && within(c.a, 0.f, 1.f) && within(c.vx, -1e6f, 1e6f) &&
                    within(c.vy, -1e6f, 1e6f);
    if (!ok) finding("accepted a circle out of range", "circle " + std::to_string(i));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // `data` holds exactly `size` bytes, so a read past the file is caught by ASan; the scene's
  // circles may be a view of them (no owner: they outlive the scene here).
  const bool npy = size >= 6 && std::memcmp(data, "\x93NUMPY", 6) == 0;
  const std::string name = npy ? "fuzz.npy" : "fuzz.npz";
  circles::fuzz::last_verdict = {};
  circles::Scene scene;
  try {
    scene = circles::load_scene_npz_bytes(data, size, name);
  } catch (const circles::NpyError& e) {
    check_refusal(e, name);
    circles::fuzz::last_verdict = {true, e.what()};
    return 0;
  }
  if (scene.name != name) finding("the scene is not named after the file", scene.name);
  check_limits(scene);

  // Accepted: saved and loaded again it must be the same scene, to the bit, read in place.
  const std::string saved = circles::save_scene_npz_bytes(scene);
  const std::string again_name = "fuzz-saved.npz";
  circles::Scene again;
  try {
    again = circles::load_scene_npz_bytes(saved.data(), saved.size(), again_name);
  } catch (const circles::NpyError& e) {
    finding("save_scene_npz wrote bytes that load_scene_npz refuses", e.what());
  }
  circles::Scene expected = scene;
  if (!expected.has_velocity && !expected.circles.empty())
    for (circles::Circle& c : expected.circles.edit()) c.vx = c.vy = 0.f;
  if (!circles::fuzz::same_scene(expected, again))
    finding("save_scene_npz -> load_scene_npz changed the scene", std::to_string(saved.size()) + " bytes saved");
  if (!again.circles.empty() && !again.circles.is_view())
    finding("the saved circles were not read in place", std::to_string(again.circles.size()) + " circles");
  if (circles::save_scene_npz_bytes(again) != saved)
    finding("saving the loaded scene again gave other bytes", std::to_string(saved.size()) + " bytes saved");

  // And as scene text (`circles scene save x.npz y.scene`): the same scene again.
  const std::string text = circles::format_scene(scene);
  circles::Scene from_text;
  try {
    from_text = circles::parse_scene(text, "fuzz-saved.scene");
  } catch (const circles::SceneError& e) {
    finding("format_scene wrote text that parse_scene refuses", std::string(e.what()) + "\n" + text);
  }
  // Scene text says a scene has velocities only by 10-field circle lines: with no circles, none.
  circles::Scene expected_text = expected;
  if (expected_text.circles.empty()) expected_text.has_velocity = false;
  if (!circles::fuzz::same_scene(expected_text, from_text))
    finding("format_scene -> parse_scene changed the scene", text);
  return 0;
}
