// The `circles` command line. run_cli is main() minus process exit, so tests can call it.
#pragma once
#include <cstdint>
#include <string>

#include "render/modes.h"

namespace CLI {
class App;
class Validator;
}

namespace circles {

struct Image;
struct RendererSettings;
struct Scene;
// Adds --tile-size, --batch-size and --scan (checked later against the registry by resolve_settings).
void add_settings_options(CLI::App* cmd, RendererSettings* settings);

// Option checks shared by the commands: a seed is 0..2^64-1, digits only (CLI11 alone would
// clamp a larger one silently); a real number must be finite (NaN passes a range check).
CLI::Validator seed_check();
// What the exit codes mean, for every --help.
extern const char* const kExitCodes;
CLI::Validator finite_check();
// An animation frame: a whole number 0..kMaxFrame (2^62, the scene format's limit).
CLI::Validator frame_check();

int run_cli(int argc, const char* const* argv);

// Host memory this process may still use, in bytes: MemAvailable, lowered by a cgroup limit
// (containers) and by CIRCLES_MEMORY_LIMIT_MB when set; 0 when unknown.
double available_memory_bytes();
// Host memory a render of `pixels` pixels of a scene of `circles` circles takes, about: the
// float image, its copy, the 8-bit image and the PNG (40 bytes a pixel, measured), and the
// scene's copies (250 bytes a circle).
double render_memory_bytes(double pixels, double circles);
// Refuses work that needs (`need` bytes, about) more than 90% of available_memory_bytes():
// std::runtime_error "<what> needs about ... of memory; ... are available"; notes on stderr
// ("<prefix>: note: ...") what needs more than 2 GiB.
void check_host_memory(double need, const std::string& what, const char* prefix);
// load_scene (render/builtin_scenes.h) with the same check of the scene's circles (render's
// model, no pixels): a built-in's before it is generated, a file's once it is parsed (its reader
// bounds what parsing itself allocates); refused: "scene <source> (N circles) needs about ...".
Scene load_scene_within_memory(const std::string& source, std::uint64_t seed, const char* prefix);

// `circles check`'s verdict on one frame: prints "<label> vs cpu-ref: PASS|FAIL: <comparison>"
// (the float differences and the 8-bit values a PNG regression test would see) and, when it
// fails, writes their difference (x16) to diff_path. It passes when the frame keeps `mode`'s
// promise (render/modes.h), or, with no mode given, when no channel differs by more than
// `tolerance` (relative above 1); and, with `exact_bytes`, when no 8-bit value differs. Returns
// whether it passed.
bool check_frame(const Image& ref, const Image& test, float tolerance, const std::string& label,
                 const std::string& diff_path, bool exact_bytes = false, const Mode* mode = nullptr);

// "WxH" -> width, height (each 1..16384). Throws std::invalid_argument with a message.
void parse_size(const std::string& text, int* width, int* height);
// "A:B" (frames A..B-1) or "A" (just A) -> [first, last), frames up to kMaxFrame. Throws
// std::invalid_argument.
void parse_frames(const std::string& text, std::int64_t* first, std::int64_t* last);
// The PNG path for `frame` given -o's value: a printf pattern ("f%04d.png") is filled in; for
// several frames a plain name gets "-NNNN" before its extension.
std::string frame_path(const std::string& pattern, std::int64_t frame, bool several);

}  // namespace circles
