// The `circles` command line. run_cli is main() minus process exit, so tests can call it.
#pragma once
#include <cstdint>
#include <string>

namespace CLI {
class App;
class Validator;
}

namespace circles {

struct RendererSettings;
// Adds --tile-size and --batch-size (checked later against the registry by resolve_settings).
void add_settings_options(CLI::App* cmd, RendererSettings* settings);

// Option checks shared by the commands: a seed is 0..2^64-1, digits only (CLI11 alone would
// clamp a larger one silently); a real number must be finite (NaN passes a range check).
CLI::Validator seed_check();
// What the exit codes mean, for every --help.
extern const char* const kExitCodes;
CLI::Validator finite_check();

int run_cli(int argc, const char* const* argv);

// "WxH" -> width, height (each 1..16384). Throws std::invalid_argument with a message.
void parse_size(const std::string& text, int* width, int* height);
// "A:B" (frames A..B-1) or "A" (just A) -> [first, last). Throws std::invalid_argument.
void parse_frames(const std::string& text, std::int64_t* first, std::int64_t* last);
// The PNG path for `frame` given -o's value: a printf pattern ("f%04d.png") is filled in; for
// several frames a plain name gets "-NNNN" before its extension.
std::string frame_path(const std::string& pattern, std::int64_t frame, bool several);

}  // namespace circles
