// libFuzzer target for the scene parser (render/scene_io.h): the bytes are a scene text.
//
// A SceneError is the parser's expected answer to bad input. Anything else is a finding: a crash,
// a sanitizer report, a hang, an exception of another type (it escapes this function, so
// libFuzzer and the replay driver report it), or a scene that does not survive
// format_scene -> parse_scene bit for bit (docs/FORMAT.md promises that round trip).
//
// Built two ways: with clang and -fsanitize=fuzzer (fuzz/CMakeLists.txt, CIRCLES_FUZZ=ON), and
// with any compiler plus fuzz/replay_main.cpp, which replays fuzz/corpus/ as the ctest
// `scene_fuzz_corpus` (tests/CMakeLists.txt), holding each input to the verdict this target
// reports (fuzz/fuzz_target.h).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_target.h"
#include "render/scene.h"
#include "render/scene_io.h"

namespace {

[[noreturn]] void finding(const char* what, const std::string& detail) {
  circles::fuzz::finding("scene_fuzz", what, detail);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // `data` holds exactly `size` bytes (no terminator), so a read past the text is caught by ASan.
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string name = "fuzz.scene";
  circles::fuzz::last_verdict = {};
  circles::Scene scene;
  try {
    scene = circles::parse_scene(text, name);
  } catch (const circles::SceneError& e) {
    // Expected for bad input; the message must still carry the file name.
    if (e.file() != name || std::string_view(e.what()).substr(0, name.size()) != name)
      finding("SceneError without the file name", e.what());
    circles::fuzz::last_verdict = {true, e.what()};
    return 0;
  }
  // Accepted: every value must be what the format allows, and survive a save/load round trip.
  if (scene.width < 1 || scene.width > 16384 || scene.height < 1 || scene.height > 16384)
    finding("accepted a size out of range", std::to_string(scene.width) + "x" + std::to_string(scene.height));
  for (const circles::Circle& c : scene.circles)
    if (!(c.radius > 0.f && c.radius <= 1e6f) || !(c.a >= 0.f && c.a <= 1.f))
      finding("accepted a circle out of range", std::to_string(c.radius) + " " + std::to_string(c.a));
  const std::string saved = circles::format_scene(scene);
  circles::Scene again;
  try {
    again = circles::parse_scene(saved, name);
  } catch (const circles::SceneError& e) {
    finding("format_scene wrote text that parse_scene refuses", std::string(e.what()) + "\n" + saved);
  }
  if (!circles::fuzz::same_scene(scene, again)) finding("format_scene -> parse_scene changed the scene", saved);
  return 0;
}
