// Command-line arguments shared by the CLI and the viewer: sizes, frame ranges, output paths.
#pragma once
#include <cstdint>
#include <string>

namespace circles {

// The largest frame side: one process's image, and every renderer's exactness argument, stop
// here; `--mpi bands` goes to kMaxBandsSide, since no process holds more than its band.
constexpr int kMaxSide = 16384;
constexpr int kMaxBandsSide = 65536;
// "WxH" -> width, height (each 1..max_side). Throws std::invalid_argument with a message, which
// `beyond` (a phrase: where larger sizes go) ends where a side is over max_side.
void parse_size(const std::string& text, int* width, int* height, int max_side = kMaxSide,
                const std::string& beyond = "");
// "A:B" (frames A..B-1) or "A" (just A) -> [first, last), frames up to kMaxFrame. Throws
// std::invalid_argument.
void parse_frames(const std::string& text, std::int64_t* first, std::int64_t* last);
// The PNG path for `frame` given -o's value: a printf pattern ("f%04d.png") is filled in; for
// several frames a plain name gets "-NNNN" before its extension.
std::string frame_path(const std::string& pattern, std::int64_t frame, bool several);

// What is wrong with `s` as a frame number (digits, at most `limit`), or "" when it is one.
std::string frame_number_error(const std::string& s, std::int64_t limit);

}  // namespace circles
