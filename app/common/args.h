// Command-line arguments shared by the CLI and the viewer: sizes, frame ranges, output paths.
#pragma once
#include <cstdint>
#include <string>

namespace circles {

// "WxH" -> width, height (each 1..16384). Throws std::invalid_argument with a message.
void parse_size(const std::string& text, int* width, int* height);
// "A:B" (frames A..B-1) or "A" (just A) -> [first, last), frames up to kMaxFrame. Throws
// std::invalid_argument.
void parse_frames(const std::string& text, std::int64_t* first, std::int64_t* last);
// The PNG path for `frame` given -o's value: a printf pattern ("f%04d.png") is filled in; for
// several frames a plain name gets "-NNNN" before its extension.
std::string frame_path(const std::string& pattern, std::int64_t frame, bool several);

// What is wrong with `s` as a frame number (digits, at most `limit`), or "" when it is one.
std::string frame_number_error(const std::string& s, std::int64_t limit);

}  // namespace circles
