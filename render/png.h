// PNG files: written by our own encoder (8-bit RGBA, each row filtered as it comes, zlib's deflate
// over the rows in order, IDAT chunks of a fixed size), read through stb_image. A whole image
// (write_png) and one arriving row by row (PngWriter: the bands of an MPI render, docs/SCALE.md)
// take the same path, so the same pixels give the same bytes however they arrived.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "render/image.h"

namespace circles {

// Writes `img` as an 8-bit RGBA PNG (to_byte per channel, top row first), atomically
// (render/output_file.h). Throws std::runtime_error naming the path on failure.
void write_png(const std::string& path, const Image& img);
// Reads an 8-bit PNG into an Image (values v/255, row 0 = bottom). Throws on failure.
Image read_png(const std::string& path);

// A width x height 8-bit RGBA PNG written as its rows arrive, top row first, so the whole image
// is never held: each row is filtered (the filter of the five with the smallest sum of absolute
// values, as signed bytes; ties to the lower type) and handed to deflate on its own. Through a
// temporary file renamed over `path` by finish(); destroyed before finish(), it leaves nothing.
// Throws std::runtime_error "cannot write PNG 'PATH': ..." when the file cannot be written, and
// std::logic_error for rows past the height or finish() before the last row.
class PngWriter {
 public:
  PngWriter(const std::string& path, int width, int height);
  ~PngWriter();
  PngWriter(const PngWriter&) = delete;
  PngWriter& operator=(const PngWriter&) = delete;

  // `rows` rows of width * 4 bytes each, packed, the topmost first.
  void write_rows(const std::uint8_t* rgba, int rows);
  int rows_written() const;
  // After the last row: ends the stream and renames the file into place.
  void finish();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace circles
