// The `circles` command line. run_cli is main() minus process exit, so tests can call it. It
// runs the viewer (`circles view`); what both need lives below both, in app/common/.
#pragma once
#include <cstdint>
#include <string>

#include "app/common/args.h"         // shared with the viewer: sizes, frames, paths
#include "app/common/host_memory.h"  // and the host-memory checks
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

// `circles check`'s verdict on one frame: prints "<label> vs cpu-ref: PASS|FAIL: <comparison>"
// (the float differences and the 8-bit values a PNG regression test would see) and, when it
// fails, writes their difference (x16) to diff_path. It passes when the frame keeps `mode`'s
// promise (render/modes.h), or, with no mode given, when no channel differs by more than
// `tolerance` (relative above 1); and, with `exact_bytes`, when no 8-bit value differs. Returns
// whether it passed.
bool check_frame(const Image& ref, const Image& test, float tolerance, const std::string& label,
                 const std::string& diff_path, bool exact_bytes = false, const Mode* mode = nullptr);

}  // namespace circles
