// PNG files through stb_image_write / stb_image (8-bit RGBA, top row first).
#pragma once
#include <string>

#include "render/image.h"

namespace circles {

// Writes `img` as an 8-bit RGBA PNG. Throws std::runtime_error naming the path on failure.
void write_png(const std::string& path, const Image& img);
// Reads an 8-bit PNG into an Image (values v/255, row 0 = bottom). Throws on failure.
Image read_png(const std::string& path);

}  // namespace circles
